/*
 * mt-record's command line: parsed into struct rec_opts (opts.h) and the
 * target, checked against itself and, once the backend is chosen,
 * against what the backend takes (docs/mt-record.1). Each dies (usage,
 * 2) on what it refuses, naming the option.
 */
#ifndef MT_RECORD_OPTIONS_H
#define MT_RECORD_OPTIONS_H

#include "opts.h"
#include "target.h"

struct rec;

/* The options of argv into o; -p's pids and the command into tgt. */
void rec_parse_options(struct rec_opts *o, struct target *tgt, int argc, char **argv);

/* The options together: a target named, the options that need another,
 * -o's file or directory (r->dir_out, r->cmd_out, r->out_fd). */
void rec_check_options(struct rec *r, int argc, char **argv);

/* What the chosen backend ignores of the options given, said. */
void rec_warn_unused(const struct rec_opts *o);

#endif
