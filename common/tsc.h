/*
 * The time stamp counter and CLOCK_MONOTONIC: reading the TSC, whether it
 * ticks at one rate whatever the CPU does (invariant), and a TSC value as
 * CLOCK_MONOTONIC nanoseconds through two pairs read together. The patch
 * runtime stamps its records with the TSC; magic-trace's OCaml library
 * (and include/magic_trace.h) passes its stop indicator a TSC.
 *
 * x86-64; elsewhere the "TSC" is CLOCK_MONOTONIC itself. Pure: nothing
 * printed, nothing allocated.
 */
#ifndef MT_TSC_H
#define MT_TSC_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* CLOCK_MONOTONIC now, in ns. */
static inline uint64_t mt_mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The TSC now. */
static inline uint64_t mt_tsc_now(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return mt_mono_now();
#endif
}

/* Whether the TSC is invariant (CPUID 0x80000007 EDX bit 8): one rate in
 * every power state, the same on every CPU. */
static inline int mt_tsc_invariant(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* A (TSC, CLOCK_MONOTONIC) pair read together: the closest of five. */
void mt_tsc_pair(uint64_t *tsc, uint64_t *mono);

/* TSC value t as CLOCK_MONOTONIC ns, at the rate the pairs (tsc_a,
 * mono_a) and (tsc_b, mono_b) give (t itself when they are one TSC). */
uint64_t mt_tsc_to_mono(uint64_t t, uint64_t tsc_a, uint64_t mono_a, uint64_t tsc_b,
			uint64_t mono_b);

#endif
