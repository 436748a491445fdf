/*
 * A radix sort of records by the 64-bit unsigned key each starts with.
 * Header-only (the patch runtime uses it too: no allocation, no output).
 *
 * mt_radix_sort(v, tmp, n, size): sorts the n records of size bytes (a
 * multiple of 8, the key the first 8) at v by key, stably, with tmp room
 * for n more: an LSD sort a byte at a time over only the key bytes that
 * differ (addresses of one file share their high bytes: three or four
 * passes). Returns where the sorted records are, v or tmp; the other
 * holds what is left of the passes. Time linear in n.
 */
#ifndef MT_RADIX_H
#define MT_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t mt_radix_key_(const unsigned char *p)
{
	uint64_t k;

	memcpy(&k, p, sizeof(k));
	return k;
}

static inline void *mt_radix_sort(void *v, void *tmp, size_t n, size_t size)
{
	unsigned char *from = v, *to = tmp, *swap;
	uint64_t all_or = 0, all_and = UINT64_MAX, varying;
	size_t i, j, b;

	for (i = 0; i < n; i++) {
		uint64_t k = mt_radix_key_(from + i * size);

		all_or |= k;
		all_and &= k;
	}
	varying = n ? all_or ^ all_and : 0;
	for (b = 0; b < 64; b += 8) {
		size_t count[256] = { 0 }, pos = 0;

		if (!((varying >> b) & 0xff))
			continue;
		for (i = 0; i < n; i++)
			count[(mt_radix_key_(from + i * size) >> b) & 0xff]++;
		for (j = 0; j < 256; j++) {
			size_t c = count[j];

			count[j] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			memcpy(to + size * count[(mt_radix_key_(from + i * size) >> b) & 0xff]++,
			       from + i * size, size);
		swap = from;
		from = to;
		to = swap;
	}
	return from;
}

#endif
