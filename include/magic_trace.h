/*
 * magic_trace.h: where mt takes a snapshot, from C or C++, as magic-trace's
 * OCaml library (lib/magic_trace) does. Header-only; installed with mt
 * (PREFIX/include). MIT, as mt.
 *
 *	#include <magic_trace.h>
 *
 *	magic_trace_mark_start();        (a request begins: the time kept)
 *	...
 *	if (it was slow)
 *		magic_trace_take_snapshot();
 *
 * and record with `mt run --trigger . -- PROGRAM` (or `mt attach -p PID
 * --trigger .`): the snapshot ends at the call of
 * magic_trace_stop_indicator, which every take_snapshot makes. Without mt
 * a call costs a few nanoseconds.
 *
 * The two arguments reach the stop indicator in rdi and rsi (x86-64) as
 * OCaml passes its ints (tagged: 2n + 1): the time of mark_start (or the
 * one given), the TSC on x86, and a value of the program's own. A C or C++
 * program that defines magic_trace_stop_indicator itself (an empty
 * function of its own, as mt has always taken) keeps that one: this one
 * is weak.
 */
#ifndef MAGIC_TRACE_H
#define MAGIC_TRACE_H

#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#else
#include <time.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Now, as the stop indicator's first argument gives it: the TSC on x86
 * (what magic-trace's Time_stamp_counter reads), CLOCK_MONOTONIC ns
 * elsewhere. */
static inline uint64_t magic_trace_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return (uint64_t)__rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* The thread's mark_start time (0: none yet). Weak: one however many
 * files include this. */
extern __thread uint64_t magic_trace_start_time;
__attribute__((weak)) __thread uint64_t magic_trace_start_time;

/* The function mt's (and magic-trace's) `--trigger .` names. Out of line,
 * empty but for a 5-byte no-op, so that it is longer than a jump: every
 * backend can patch or probe it, whatever follows it. */
void magic_trace_stop_indicator(long start, long arg);
__attribute__((weak, noinline, used)) void magic_trace_stop_indicator(long start, long arg)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x44, 0x00, 0x00" : : "r"(start), "r"(arg) : "memory");
}

/* An int as OCaml passes it. */
static inline long magic_trace_tag_(uint64_t v)
{
	return (long)(v << 1) | 1;
}

/* A region of interest begins on this thread now. */
static inline void magic_trace_mark_start(void)
{
	magic_trace_start_time = magic_trace_now();
}

/* The snapshot, with a value of the program's own (a request id, a
 * size), and the region from the time given (magic_trace_now()'s clock). */
static inline void magic_trace_take_snapshot_with_time_and_arg(uint64_t start, long arg)
{
	magic_trace_stop_indicator(magic_trace_tag_(start), magic_trace_tag_((uint64_t)arg));
}

/* The snapshot, the region from the thread's mark_start, with a value. */
static inline void magic_trace_take_snapshot_with_arg(long arg)
{
	magic_trace_take_snapshot_with_time_and_arg(magic_trace_start_time, arg);
}

/* The snapshot, the region from the thread's mark_start. */
static inline void magic_trace_take_snapshot(void)
{
	magic_trace_take_snapshot_with_arg(0);
}

#ifdef __cplusplus
}
#endif

#endif
