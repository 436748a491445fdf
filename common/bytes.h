/*
 * Byte compares inline (pure, header only).
 *
 * mt_bytes_equal(a, b, n) is memcmp(a, b, n) == 0 without the call: the
 * names it compares (symbols, DSO paths) are 10 to 100 bytes, and a libc
 * call per compare cost more than the compare in the text parser's hot
 * path. Reads exactly n bytes of each.
 */
#ifndef MT_BYTES_H
#define MT_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static inline int mt_bytes_equal(const char *a, const char *b, size_t n)
{
	uint64_t x, y, u, v;

#ifdef __SSE2__
	if (n >= 16) {
		size_t i;

		for (i = 0; i + 16 <= n; i += 16) {
			__m128i ca = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
			__m128i cb = _mm_loadu_si128((const __m128i *)(const void *)(b + i));

			if (_mm_movemask_epi8(_mm_cmpeq_epi8(ca, cb)) != 0xffff)
				return 0;
		}
		if (i == n)
			return 1;
		/* the last 16 bytes, overlapping the ones compared */
		return _mm_movemask_epi8(_mm_cmpeq_epi8(
			       _mm_loadu_si128((const __m128i *)(const void *)(a + n - 16)),
			       _mm_loadu_si128((const __m128i *)(const void *)(b + n - 16)))) ==
		       0xffff;
	}
#endif
	if (n >= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(&u, a + n - 8, 8);
		memcpy(&v, b + n - 8, 8);
		return x == y && u == v && (n <= 16 || !memcmp(a + 8, b + 8, n - 16));
	}
	return !memcmp(a, b, n);
}

#endif
