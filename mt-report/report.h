/*
 * What the parts of mt-report share; each file has one job:
 *
 *   mt-report.c  the options, the input (an mt stream, FXT, either
 *                gzip'd) into calls, the walk that nests each thread's
 *                calls, and the report: calls, total and self time per
 *                function
 *   views.c      the other views of the same walk: every call in time
 *                order (--calls, uftrace's replay) and collapsed stacks
 *                for flame graphs (--folded)
 *
 * The walk (mt-report.c) hands each call to the view, in each thread's
 * start order, with its depth (Perfetto's: 0 the thread's outermost), and
 * each call leaving the stack with its self time and the stack above it.
 * Memory grows with the stack's depth, the threads, the names and (for
 * --folded) the distinct stacks, never with the calls: those go through
 * external sorts (common/extsort.h).
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"

/* A call, or an instant (a mark, an FXT instant: CALL_INSTANT, end =
 * start, never on the stack). */
struct call {
	uint64_t start, end;
	uint32_t thread; /* index in the walk's threads */
	uint32_t fn;     /* id in names */
	int32_t depth;   /* the input's: breaks ties of equal starts */
	uint32_t flags;  /* CALL_*; records are compared whole */
};

enum { CALL_INSTANT = 1 };

/* A call open on the walk's stack. */
struct open_call {
	struct call c;
	uint64_t children; /* inclusive time of its direct children */
};

/* The names of the calls, by id. */
extern struct mt_intern names;

/* Thread index i's pid and tid. */
void thread_ids(uint32_t i, uint32_t *pid, uint32_t *tid);

/* A duration, a blank and 11 columns (" 123.456 us"). */
void print_time(uint64_t ns);

/* A JSON string of the bytes: printable ASCII as it is (but \" and \\),
 * every other byte as \u00XX, so the output is ASCII whatever the name. */
void json_bytes(const char *s, size_t n);

/* How the calls are shown: the report, --calls or --folded. */
enum mode { MODE_REPORT, MODE_CALLS, MODE_FOLDED };

/* --calls: the window and filters, as mt-slice's (docs/mt-report.1). */
struct calls_opts {
	uint64_t from, to, dur, min_dur; /* ns; to, dur MT_NONE64: none */
	int have_from, have_to, absolute, have_min, have_max_depth, json;
	int32_t max_depth;
	int color;                       /* on a terminal */
};

/* --folded: a leading frame for the thread (--per-thread). */
extern int folded_per_thread;

/* The views (views.c), once the input is read. base: the earliest start
 * of a call (not an instant), the trace's start (MT_NONE64: none). */
void calls_init(const struct calls_opts *o, uint64_t base);
void calls_seen(const struct call *c, size_t depth);
void calls_print(void);
void folded_init(void);
void folded_popped(const struct open_call *stk, size_t n, uint64_t self);
void folded_print(void);

#endif
