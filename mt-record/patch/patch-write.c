/*
 * Byte ranges written a run of pages at a time (patch-write.h).
 */
#include <stdlib.h>
#include <string.h>

#include "patch-write.h"
#include "xalloc.h"
#include "cmp.h"
#include "banned.h"

#define PAGE_LO(a) ((a) & ~(uint64_t)4095)
#define PAGE_HI(a) (((a) + 4095) & ~(uint64_t)4095)

static int by_at(const void *a, const void *b)
{
	return MT_CMP(((const struct patch_write *)a)->at, ((const struct patch_write *)b)->at);
}

/* w, alone: its rc. */
static int write_one(const struct inject *in, const struct patch_write *w)
{
	uint8_t now[256];

	if (w->len > sizeof(now) || inject_read(in, w->at, now, w->len))
		return PW_FAILED;
	if (!memcmp(now, w->to, w->len))
		return PW_ALREADY;
	if (memcmp(now, w->from, w->len))
		return PW_OTHER;
	return inject_write(in, w->at, w->to, w->len) ? PW_FAILED : PW_WRITTEN;
}

void patch_write_all(const struct inject *in, struct patch_write *w, size_t n)
{
	uint8_t *buf = xmalloc(PATCH_WRITE_RUN);
	size_t i, j, k;

	qsort(w, n, sizeof(*w), by_at);
	for (i = 0; i < n; i = j) {
		uint64_t lo = PAGE_LO(w[i].at), hi = PAGE_HI(w[i].at + w[i].len);
		int put = 0;

		/* a run: ranges on the same page or the next */
		for (j = i + 1; j < n; j++) {
			uint64_t e = PAGE_HI(w[j].at + w[j].len);

			if (PAGE_LO(w[j].at) > hi || e - lo > PATCH_WRITE_RUN)
				break;
			if (e > hi)
				hi = e;
		}
		if (hi - lo > PATCH_WRITE_RUN || inject_read(in, lo, buf, (size_t)(hi - lo))) {
			for (k = i; k < j; k++)
				w[k].rc = write_one(in, &w[k]);
			continue;
		}
		for (k = i; k < j; k++) {
			uint8_t *at = buf + (w[k].at - lo);

			if (!memcmp(at, w[k].to, w[k].len)) {
				w[k].rc = PW_ALREADY;
			} else if (memcmp(at, w[k].from, w[k].len)) {
				w[k].rc = PW_OTHER;
			} else {
				memcpy(at, w[k].to, w[k].len);
				w[k].rc = PW_WRITTEN;
				put = 1;
			}
		}
		if (put && inject_write(in, lo, buf, (size_t)(hi - lo)))
			for (k = i; k < j; k++)
				if (w[k].rc == PW_WRITTEN)
					w[k].rc = write_one(in, &w[k]);
	}
	free(buf);
}
