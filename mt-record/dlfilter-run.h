/*
 * Decoding Intel PT through mt's perf dlfilter (mt-record/dlfilter.c,
 * docs/perf.md 3.1): perf script writes the mt stream itself.
 */
#ifndef MT_RECORD_DLFILTER_RUN_H
#define MT_RECORD_DLFILTER_RUN_H

/* The dlfilter mt-record uses: mt-dlfilter.so next to this program, in
 * ../lib/mt/ from it (make install) or in ../lib/ (the build tree). A
 * malloc'ed path, or NULL when there is none. */
char *dlfilter_path(void);

/*
 * Runs perf script (script_argv(), how with DECODE_PT) on data with the
 * dlfilter, which writes the stream to out_fd. Returns 0 when perf has no
 * --dlfilter (before 5.14) or the filter is missing, after a one-line
 * warning, so that the caller decodes through the text; 1 when done. Dies
 * (system) with perf's messages when perf script fails.
 */
int decode_dlfilter(const char *perf, const char *data, int how, int out_fd);

/* The arguments that make perf script use the dlfilter so (appended to
 * a): the stream goes to perf's stdout. */
struct argv;
void dlfilter_args(struct argv *a, const char *so);

#endif
