/*
 * What the parts of mt-slice share; each file has one job:
 *
 *   mt-slice.c  the options, the window, --pid and --tid, the kind of
 *               input (sniffed), the temporary files; main()
 *   stream.c    slicing an mt stream
 *   fxt.c       slicing an FXT file (plain or gzip-compressed)
 *   replay.c    the slice events of a first pass sorted on disk and
 *               replayed through Perfetto's nesting rule, giving each one
 *               a decision that the second pass reads in file order
 *   between.c   --between: the calls of START and STOP a first pass
 *               finds, paired into regions kept on disk, and the lookups
 *               the second pass makes
 *
 * main() sets the options (struct slice) before calling stream_slice() or
 * fxt_slice(), and these die (die.h) on any error, naming the input.
 */
#ifndef MT_SLICE_H
#define MT_SLICE_H

#include "idlist.h"
#include "regex.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the options, the threads and the window (mt-slice.c) ---- */

/*
 * One slice: main() owns it, parse_options() fills the options and the
 * --pid and --tid lists, see_time() sets the window; stream_slice(),
 * fxt_slice() and replay_decide() read it through the pointer they are
 * given.
 */
struct slice {
	const char *in_name; /* for messages: the file, or "<stdin>" */
	/* opt_to and opt_dur: MT_NONE64 unless given */
	uint64_t opt_from, opt_to, opt_dur, min_dur;
	int have_from, have_to, absolute, have_max_depth, have_min, verbose;
	int32_t max_depth;
	struct mt_regex match_rx; /* --match; match_rx.re NULL without it */
	/* --between START STOP: have_between, the patterns and the regexes */
	int have_between;
	const char *start_pat, *stop_pat;
	struct mt_regex start_rx, stop_rx;
	struct mt_idlist pids, tids; /* --pid and --tid */
	/* the window: absolute times, in ns, once have_base */
	int have_base;
	uint64_t win_from, win_to; /* [win_from, win_to); MT_NONE64: open */
};

/* The first call with a time other than MT_NONE64 sets sl's window from
 * its options: t is the start of the trace. Later calls do nothing. */
void see_time(struct slice *sl, uint64_t t);
/* t lies in the window (MT_NONE64: a record with no time, kept). */
int time_kept(const struct slice *sl, uint64_t t);
/* --pid and --tid keep (pid, tid). */
int thread_kept(const struct slice *sl, uint32_t pid, uint32_t tid);

/* ---- --between (between.c) ---- */

/*
 * The first pass calls between_hit() for every span (FXT: begin or
 * complete event) that starts at t, name (len bytes; NULL: none) not
 * flagged as inferred or clipped at its start; between_regions() then
 * pairs the hits into regions, cut to sl's window (see_time() first), says
 * on stderr (warn) why there is none if so, and leaves the window open
 * (the regions hold it): it returns how many regions. Regions are
 * half-open [from, to), sorted, apart from one another.
 */
void between_hit(const struct slice *sl, const char *name, size_t len,
		 uint64_t t);
uint64_t between_regions(struct slice *sl);
uint64_t between_count(void);
/* Whether a span [s, e) (e: MT_NONE64, never ended) meets a region,
 * intervals half-open, a zero-length span in the region holding its time. */
int between_meets(uint64_t s, uint64_t e);
/* The pieces of [s, e) in the regions: i = between_first(s), then each
 * call to between_piece() gives the next region the span meets in *from,
 * *to (0: no more). */
uint64_t between_first(uint64_t s);
int between_piece(uint64_t s, uint64_t e, uint64_t *i, uint64_t *from,
		  uint64_t *to);
/* Whether the last piece of a span [s, e) that meets a region ends at e:
 * e is in a region, or the span is zero-length in one. */
int between_ends_in(uint64_t s, uint64_t e);
/* t lies in a region (MT_NONE64: a record with no time, kept). */
int between_kept(uint64_t t);
/* t is the start of a region. */
int between_is_from(uint64_t t);

/* ---- temporary files (mt-slice.c); they die naming the failure ---- */

FILE *tmp_open(void);
/* n bytes at byte at of f, written (wr) or read, all of them. */
void tmp_io(int wr, FILE *f, void *p, size_t n, uint64_t at);

/* ---- the two kinds of input ---- */

/*
 * Slice the mt stream on fd, whose first len bytes were read (to sniff
 * the kind of input) and are at magic; write it to standard output.
 */
void stream_slice(struct slice *sl, int fd, const unsigned char *magic,
		  size_t len);

/*
 * Slice the FXT file on fd (gzin: gzip-compressed), whose first len bytes
 * (8 at most) were read and are at pre; write it to standard output,
 * compressed when gzip.
 */
void fxt_slice(struct slice *sl, int fd, const unsigned char *pre,
	       size_t len, int gzin, int gzip);

/* ---- the replay (replay.c) ---- */

/*
 * A first pass notes each event that makes or ends a slice on a thread
 * track, in file order: its thread (replay_thread()), type (an FXT event
 * type: MT_FXT_EV_BEGIN, _END, _COMPLETE or _INSTANT), time and, for a
 * complete event, its end, in ns; match: its name matches --match.
 * replay_decide() then sorts them by (thread, time, file order), replays
 * Perfetto's slice tracker on each thread (docs/fxt.md 2.6) and decides
 * every event against the window and the options of sl. max_ts is the
 * latest time of the input; depth_only: decide --max-depth alone (the mt
 * stream, where the rest is decided on the spans). The second pass then asks
 * replay_next() for the decision of each such event, in the same order.
 * Memory is bounded by the threads, the stack depth and fixed buffers; the
 * temporary files grow with the events.
 */
enum { D_DROP, D_KEEP, D_CLOSE /* a begin never ended: an end at --to */ };

uint32_t replay_thread(uint64_t pid, uint64_t tid);
void replay_note(uint32_t th, unsigned type, uint64_t ts, uint64_t end,
		 int match);
void replay_decide(const struct slice *sl, int depth_only, int64_t max_ts);
/* The decision of the next event (D_DROP past the last), with its place
 * in file order among the events noted (0, 1, 2 ...) in *seq if not NULL. */
int replay_next(uint64_t *seq);
/* The same with, for a begin kept with --between, the end of its slice in
 * *end (MT_NONE64: it never ends; MT_NONE64 for other events too). */
int replay_next_end(uint64_t *seq, uint64_t *end);

/* for -v and the summary, after replay_decide(): events noted, stack
 * frames visited, slices dropped as shorter than --min-duration (all 0
 * before) */
struct replay_counts {
	uint64_t nevents;
	unsigned long long nsteps, nshort;
};
struct replay_counts replay_counts(void);

#endif
