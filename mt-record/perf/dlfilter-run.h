/*
 * Decoding Intel PT through mt's perf dlfilter (plugins/perf-dlfilter/,
 * docs/perf.md 3.1): perf script writes the mt stream itself.
 */
#ifndef MT_RECORD_DLFILTER_RUN_H
#define MT_RECORD_DLFILTER_RUN_H

#include <stdint.h>

struct argv;
struct mark_line;
struct stream_out;

/* The dlfilter mt-record uses: mt-dlfilter.so next to this program, in
 * ../lib/mt/ from it (make install) or in ../lib/ (the build tree). A
 * malloc'ed path, or NULL when there is none. */
char *dlfilter_path(void);

/*
 * The dlfilter to decode with (dlfilter_path()), or NULL after a one-line
 * warning when there is none or perf has no --dlfilter (before 5.14): the
 * caller then decodes through perf's text. Malloc'ed.
 */
char *dlfilter_choose(const char *perf);

/*
 * Runs perf script (script_argv(), how with DECODE_PT) on data with the
 * dlfilter so, which writes the stream to out_fd. Dies (system) with
 * perf's messages when perf script fails.
 */
void decode_dlfilter(const char *perf, const char *data, int how, const char *so,
		     int out_fd);

/*
 * The same, the stream copied into s (stream_out_copy(): one stream for
 * a recording's snapshots, records at or before *after left out, mk's
 * mark placed by time). Dies (system) with perf's messages when perf
 * script fails, (data) when its stream is bad.
 */
void decode_dlfilter_into(const char *perf, const char *data, int how, const char *so,
			  struct stream_out *s, const struct mark_line *mk,
			  uint64_t *after);

/* The arguments that make perf script use the dlfilter so (appended to
 * a): the stream goes to perf's stdout. */
void dlfilter_args(struct argv *a, const char *so);

#endif
