/*
 * mt-record's own lines among perf's text, "# mt: KIND ...", as the MARK
 * records they stand for (docs/format.md, "mt-record's lines"):
 *
 *   # mt: trigger TIME PID/TID 0xADDR SYMBOL
 *   # mt: region TIME START ARG PID/TID 0xADDR SYMBOL
 *   # mt: off TIME CALLS-A-SECOND PID/TID 0xADDR SYMBOL
 *   # mt: snapshot N TIME
 *   # mt: wallclock TIME NS-SINCE-1970
 *   # mt: entry-only SYMBOL
 *   # mt: event EVENT
 *
 * The one place that knows their text: mt-script-parse reads it
 * (mt_parse_mt_line()), mt-record makes the MARKs (mt_mt_trigger(), ...)
 * and writes them as MARK records into its stream, or as the text
 * (mt_format_mt_line()) with --text. Pure: nothing is allocated but by
 * mt_format_mt_line() in its buffer; the results point into the caller's
 * line or strings.
 */
#ifndef MT_MTLINE_H
#define MT_MTLINE_H

#include <stddef.h>

#include "buf.h"
#include "perfline.h"
#include "stream.h"

struct mt_mt_line {
	/* kind, time, pid, tid, cpu, value, ip; name and text left 0 */
	struct mt_mark mark;
	const char *name;     /* the MARK's name (static): "trigger", ... */
	struct mt_slice text; /* the MARK's text; len 0: none */
};

enum {
	MT_MTLINE_NOT = 0,      /* not a "# mt: " line */
	MT_MTLINE_MARK = 1,     /* *out is its MARK */
	MT_MTLINE_UNKNOWN = 2,  /* a "# mt:" line of a kind not known here */
	MT_MTLINE_BAD = -1      /* a known kind, malformed */
};

/* Reads p[0..len) (no line end): one of the MT_MTLINE_ values. */
int mt_parse_mt_line(const char *p, size_t len, struct mt_mt_line *out);

/*
 * The MARK of each kind of line, as mt_parse_mt_line() reads it from the
 * line mt_format_mt_line() writes: a trigger hit at time by pid/tid at
 * address ip of function sym (NUL-terminated; "" none); the no-th
 * snapshot of a --repeat, taken at time; the monotonic time mono and the
 * real time real_ns (ns since 1970) at one moment; a line of a kind for
 * the whole recording, "entry-only" (a function probed without its
 * return) or "event" (an event whose samples are instants), its text
 * text[0..len).
 */
struct mt_mt_line mt_mt_trigger(uint64_t time, uint32_t pid, uint32_t tid,
				uint64_t ip, const char *sym);
struct mt_mt_line mt_mt_snapshot(uint64_t no, uint64_t time);
/* The region a stop indicator's hit (as mt_mt_trigger()) closes, as
 * magic-trace's trigger arguments give it: from start (the records'
 * clock; MT_NONE64: not known) to time, with the program's value arg. */
struct mt_mt_line mt_mt_region(uint64_t time, uint32_t pid, uint32_t tid, uint64_t start,
			       int64_t arg, uint64_t ip, const char *sym);
struct mt_mt_line mt_mt_wallclock(uint64_t mono, uint64_t real_ns);
/* A function mt-record stopped recording at time (--max-overhead), on
 * the thread pid/tid, when it was called rate times a second. */
struct mt_mt_line mt_mt_off(uint64_t time, uint32_t pid, uint32_t tid, uint64_t rate,
			    uint64_t ip, const char *sym);
struct mt_mt_line mt_mt_entry_only(const char *text, size_t len);
struct mt_mt_line mt_mt_event(const char *text, size_t len);

/* ml's line with its newline appended to b: 0, MT_ENOMEM, or MT_EINVAL
 * when ml is not one of the marks above. */
int mt_format_mt_line(struct mt_buf *b, const struct mt_mt_line *ml);

#endif
