/*
 * The input's lines, parsed on worker threads and handed back in order.
 *
 * sp_run() reads the input, splits it into lines (a newline ends one, a
 * CR LF too), parses batches of lines with mt_perf_parse_line_hinted() on
 * up to THREADS threads (the calling one among them), and gives each line
 * to the caller's function on the calling thread, in input order, with
 * its parse: the output is the same whatever the number of threads. The
 * parser is pure (common/perfline.h), so only the reading, the splitting
 * and the caller's function see shared state.
 *
 * Lines that cannot be parsed as they are come as refusals, in their
 * place: longer than SP_MAX_LINE bytes, or holding a carriage return that
 * is not a line end (the rest of such a line, up to its newline, is
 * dropped with it).
 *
 * Within one batch a branch line's hint is the branch line just before it
 * (common/perfline.h): a line whose from_hinted is set has the source
 * symbol and DSO of the line just before it, which was a branch line
 * whose parse succeeded; no hint crosses any other line.
 *
 * Memory: a few buffers of SP_MAX_LINE bytes and a few thousand parse
 * results, whatever the input's length.
 */
#ifndef MT_SP_LINES_H
#define MT_SP_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "perfline.h"

/* The longest line read (perf's longest, two symbols and two DSO paths of
 * up to PATH_MAX, stay below 64 KiB; 1 MiB leaves room for the longest
 * demangled C++ names). Input with no newline in it is not perf output,
 * and is refused after that many bytes instead of filling memory. */
#define SP_MAX_LINE ((size_t)1 << 20)
#define SP_MAX_LINE_TEXT "1 MiB"

enum sp_what {
	SP_LINE,     /* a line: p[0..len) without its line end */
	SP_TOO_LONG, /* longer than SP_MAX_LINE; off is its byte offset */
	SP_BARE_CR   /* a CR not followed by a newline at byte offset off */
};

struct sp_line {
	enum sp_what what;
	/* SP_LINE: the line; refusals: its text up to its newline or as
	 * much of it as was read */
	const char *p;
	size_t len;
	uint64_t off;
	/* SP_LINE: whether l, ret and why hold the line's parse (lines that
	 * start with '#' are left to the caller) */
	int parsed;
	int ret;
	const char *why;
	struct mt_perf_line l;
};

/* Called for each line, in order; the line's memory lasts until it
 * returns. */
typedef void sp_line_fn(const struct sp_line *line);

/*
 * Read fd to its end: head[0..nhead) are its first bytes, already read.
 * threads is the number of threads that parse (1: the calling one only).
 * name is the input's name for messages. Dies on a read error or when
 * out of memory (or a thread cannot start).
 */
void sp_run(int fd, const char *name, const char *head, size_t nhead,
	    int threads, sp_line_fn *fn);

#endif
