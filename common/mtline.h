/*
 * mt-record's own lines among perf's text, "# mt: KIND ...", as the MARK
 * records they stand for (docs/format.md, "mt-record's lines"):
 *
 *   # mt: trigger TIME PID/TID 0xADDR SYMBOL
 *   # mt: snapshot N TIME
 *   # mt: wallclock TIME NS-SINCE-1970
 *   # mt: entry-only SYMBOL
 *   # mt: event EVENT
 *
 * One reading of them for mt-script-parse (which meets them in text) and
 * mt-record (which writes them into a stream itself). Pure: nothing is
 * allocated, the results point into the caller's line.
 */
#ifndef MT_MTLINE_H
#define MT_MTLINE_H

#include <stddef.h>

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

#endif
