/*
 * A backend of mt-record: one way of recording a program (pt, sample,
 * uprobe, patch: mt-record(1), Backends). The core (mt-record.c) parses
 * and checks the options, chooses the backend (--backend, or auto: the
 * first of pt, patch, sample whose cannot() says nothing) and hands it
 * the run through record(); it never asks which backend it has.
 *
 * A new backend is a folder under mt-record/ (patch/ is one) with one
 * struct rec_backend, named in the core's table of backends.
 */
#ifndef MT_RECORD_BACKEND_H
#define MT_RECORD_BACKEND_H

#include <stddef.h>

struct rec;

struct rec_backend {
	const char *name; /* --backend's word for it */
	/*
	 * Why it cannot record what r names (r->tgt: the one process of
	 * -p, or the command), into why (len bytes): 1; 0 when it can. For
	 * --backend auto; NULL: it can whenever the machine can.
	 */
	int (*cannot)(const struct rec *r, char *why, size_t len);
	/* The options as it takes them, once it is chosen: dies (usage) on
	 * what it cannot do, warns of what it does poorly. NULL: none. (The
	 * options it ignores are the core's table, warn_unused().) */
	void (*check_options)(const struct rec *r);
	/* What this machine must have for it (a PMU, perf, an instruction
	 * set): dies (system) naming what it lacks. */
	void (*check_machine)(const struct rec *r);
	/* --dry-run: what it would run, on stdout, after the trigger's line
	 * (the core's); it records nothing. */
	void (*dry_run)(struct rec *r);
	/*
	 * The whole recording: the target started (a command) or looked at
	 * (-p), recorded until the trigger, its end or a signal, the
	 * snapshot or the stream written to r->out_fd (r->dir_out: one file
	 * a snapshot). Dies (die(), the exit codes of mt-record(1)) on what
	 * it cannot do; the core ends the target and the output after it.
	 */
	void (*record)(struct rec *r);
};

extern const struct rec_backend rec_backend_patch;

#endif
