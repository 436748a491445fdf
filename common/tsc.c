/*
 * The TSC as CLOCK_MONOTONIC: see tsc.h.
 */
#include "tsc.h"
#include "banned.h"

void mt_tsc_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t a = mt_mono_now(), t = mt_tsc_now(), b = mt_mono_now();

		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*mono = a + (b - a) / 2;
		}
	}
}

uint64_t mt_tsc_to_mono(uint64_t t, uint64_t tsc_a, uint64_t mono_a, uint64_t tsc_b,
			uint64_t mono_b)
{
	__int128 d;

	if (tsc_b == tsc_a)
		return t;
	/* |t - tsc_a| < 2^63, mono_b - mono_a < 2^64: the product fits */
	d = (__int128)(int64_t)(t - tsc_a) * (__int128)(mono_b - mono_a) /
	    (__int128)(tsc_b - tsc_a);
	if (d > INT64_MAX)
		d = INT64_MAX;
	if (d < INT64_MIN)
		d = INT64_MIN;
	return mono_a + (uint64_t)(int64_t)d;
}
