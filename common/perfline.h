/*
 * Parsing one line of `perf script` text (docs/format.md section 4 says how
 * lines become records). The parser is pure: it allocates nothing, keeps no
 * state between lines, and its results point into the caller's line.
 *
 * It accepts what perf 4.x to 6.16 print for Intel PT and sampling sessions:
 * any subset and padding of the comm, pid/tid, cpu, misc, tod, time, period,
 * event, flags, ip, sym, symoff, dso and addr columns; every flags spelling
 * (`tr end  syscall`, `tr strt jmp`, `(xD)`, raw letters); symbols with
 * spaces, commas, `=>` and `+`; DSO paths with spaces; decoder error lines
 * with or without time; synthesized events (cbr, psb, ptwrite, power, Event
 * Trace); uprobe samples; sample headers and their tab-indented frames; and
 * the PERF_RECORD_* lines of --show-task-events.
 */
#ifndef MT_PERFLINE_H
#define MT_PERFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* A piece of the input line: not NUL-terminated. len 0 = absent. */
struct mt_slice {
	const char *p;
	size_t len;
};

struct mt_perf_loc {
	uint64_t ip;      /* 0 when perf printed none (or 0) */
	uint64_t off;     /* MT_NONE64 when no +0x offset */
	struct mt_slice sym; /* absent for [unknown] or no sym column */
	struct mt_slice dso; /* absent for ([unknown]) or no dso column */
};


enum mt_perf_line_kind {
	MT_PL_BLANK = 1, /* empty line: ends a sample's frames */
	MT_PL_FRAME,     /* tab-indented call-chain frame: loc */
	MT_PL_BRANCH,    /* branch: kind, flags, from, to */
	MT_PL_ERROR,     /* decoder error: err_* fields */
	MT_PL_MARK,      /* synthesized event: mark_kind, value, loc(ip), text */
	MT_PL_PROBE,     /* uprobe sample: probe_* fields, loc */
	MT_PL_SAMPLE,    /* sample of a counting event: loc if printed */
	MT_PL_COMM,      /* PERF_RECORD_COMM: comm, pid, tid */
	MT_PL_LOST,      /* PERF_RECORD_LOST: err_count */
	MT_PL_SKIP       /* perf output mt does not use: skip_reason */
};

struct mt_perf_line {
	enum mt_perf_line_kind kind;

	/* header; pid/tid/cpu MT_NONE32 and time MT_NONE64 when absent */
	struct mt_slice comm;
	uint32_t pid, tid, cpu;
	uint64_t time;
	struct mt_slice tod;    /* "2026-11-29 20:48:28.592622740" */
	uint64_t period;        /* 0 when absent */
	struct mt_slice event;  /* as printed, without the final ':' */
	struct mt_slice event_name; /* without modifiers: "branches" */

	/* MT_PL_BRANCH */
	uint8_t br_kind;        /* enum mt_branch_kind */
	uint16_t br_flags;      /* enum mt_branch_flag */
	struct mt_perf_loc from, to;
	/* mt_perf_parse_line_hinted: from has the hint's symbol and DSO;
	 * to has from's (the slices still point into the line) */
	uint8_t from_hinted, to_hinted;

	/* MT_PL_ERROR (and err_count for MT_PL_LOST) */
	uint32_t err_type, err_code;
	uint64_t err_ip, err_count;
	struct mt_slice err_msg;

	/* MT_PL_MARK */
	uint8_t mark_kind;      /* enum mt_mark_kind */
	uint64_t mark_value;
	struct mt_slice mark_text;

	/* MT_PL_PROBE: the probed function (from the event name), whether
	 * this is a return probe, and the addresses of the trace text
	 * "(FUNC)" or "(FUNC <- RET)" (0 when absent) */
	struct mt_slice probe_func;
	int probe_return;
	uint64_t probe_func_addr, probe_ret_addr;

	/* MT_PL_MARK, MT_PL_PROBE, MT_PL_SAMPLE, MT_PL_FRAME */
	struct mt_perf_loc loc;
	int has_loc;

	/* MT_PL_SKIP: a static description, e.g. "PERF_RECORD_MMAP2"; the
	 * pointer MT_PL_UNKNOWN_EVENT for samples of an event mt does not
	 * know (then see event) */
	const char *skip_reason;
};

extern const char MT_PL_UNKNOWN_EVENT[];

/*
 * Parse one line (len bytes, without its newline; a trailing '\r' is
 * ignored). Returns 0 with *out filled in, or MT_ESYNTAX when the line is
 * not perf script output that mt understands; then *why is a static text
 * saying what was expected.
 */
int mt_perf_parse_line(const char *line, size_t len, struct mt_perf_line *out,
		       const char **why);

/*
 * What the next branch line's source is likely to be: the last branch's
 * target symbol and DSO (a branch mostly leaves the function the last one
 * entered). Both non-empty, the DSO holding no '(' (which would make the
 * DSO column ambiguous), in memory that outlives the parse; an empty sym
 * is no hint.
 */
struct mt_perf_hint {
	struct mt_slice sym, dso;
};

/*
 * mt_perf_parse_line, where a branch line in the usual layout whose
 * source text is "SYM+0xHEX (DSO)" with the hint's SYM and DSO is read by
 * compares (from_hinted set), and then a target of the source's SYM and
 * DSO (to_hinted set). The result is mt_perf_parse_line's in every other
 * field, the slices too.
 */
int mt_perf_parse_line_hinted(const char *line, size_t len,
			      struct mt_perf_line *out, const char **why,
			      const struct mt_perf_hint *hint);

/*
 * The hint for the line after l, a branch line whose parse succeeded: its
 * target's symbol and DSO when they can be one (else none). The hint
 * points into l's line.
 */
void mt_perf_hint_after(const struct mt_perf_line *l, struct mt_perf_hint *h);

/*
 * The same parse without the fast paths for the usual header and branch
 * layouts (the general tokenizing parser alone): for tests, which check
 * that both give the same result, field for field, on any input.
 */
int mt_perf_parse_line_general(const char *line, size_t len,
			       struct mt_perf_line *out, const char **why);

/* Parse the text of a location, "sym+0xoff (dso)", "[unknown] (dso)",
 * "sym", "" ... into loc's sym, off and dso (ip untouched). */
void mt_perf_parse_sym(const char *s, size_t len, struct mt_perf_loc *loc);

/* Convert perf's "SECONDS.FRACTION" (6 or 9 or any number of decimals) to
 * ns. Returns 0 or MT_ESYNTAX / MT_ERANGE. */
int mt_perf_parse_time(const char *s, size_t len, uint64_t *ns);

/*
 * perf's sample flags (PERF_IP_FLAG_*, the dlfilter's PERF_DLFILTER_FLAG_*):
 * bit i is the letter MT_PERF_FLAG_CHARS[i] that perf prints for it when no
 * name ("call", "tr strt", ...) matches the whole word.
 */
#define MT_PERF_FLAG_CHARS "bcrosyiABExghDt?"

/*
 * The branch kind (enum mt_branch_kind) and flags (enum mt_branch_flag) of
 * perf's sample flags word bits: sets *kind, ORs into *flags. The one
 * mapping, for perf's raw flag letters and for a dlfilter's samples.
 */
void mt_perf_branch_flags(uint32_t bits, uint8_t *kind, uint16_t *flags);

/* The length of an event's name without perf's modifiers: "branches" of
 * "branches:uH", "cache-misses" of "cache-misses/period=50/u", "probe_x:f"
 * of "probe_x:f:u" (the event_name of struct mt_perf_line). */
size_t mt_perf_event_name_len(const char *event, size_t len);

/*
 * A synthesized event's description as perf script prints it, the len
 * bytes at text ("cbr: 45 freq: 4500 MHz (118%)", "psb offs: 0x4be8"), for
 * the event named name[0..nlen) (without modifiers): fills *out as a
 * MT_PL_MARK line's mark_kind, mark_value, mark_text and event_name (which
 * point into text and name), the rest zero. Returns 0, or MT_ESYNTAX when
 * name is not a synthesized event mt knows.
 */
int mt_perf_parse_synth(const char *name, size_t nlen, const char *text,
			size_t len, struct mt_perf_line *out);

/* The ERROR record of a MT_PL_ERROR or MT_PL_LOST line, all but its msg
 * (left 0: the caller interns l->err_msg). */
void mt_perf_error_record(const struct mt_perf_line *l, struct mt_error *e);

#endif
