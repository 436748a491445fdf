/*
 * mt-record/patch/patch-rings: the rings a traced process writes, read
 * back in time order, and a pass's until (a hit's time: what follows it
 * is not the snapshot's), partial or whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patch-rings.h"
#include "shm.h"
#include "unit.h"
#include "banned.h"

#define NREC 16
#define NTH 2

static char *mem;
static struct patch_layout lay;

/* Two threads' rings: times 10, 20 .. 50 (thread 1001's, a call then a
 * return of function 1, and so on) and 15, 25 .. 45 (thread 1002's). */
static void make_rings(void)
{
	static const uint64_t times[NTH][5] = { { 10, 20, 30, 40, 50 }, { 15, 25, 35, 45, 0 } };
	uint32_t i, k;

	lay.nrec = NREC;
	lay.max_threads = NTH;
	lay.threads_off = 64;
	lay.stride = sizeof(struct mtp_thread) + NREC * sizeof(struct mtp_rec);
	lay.size = lay.threads_off + NTH * lay.stride;
	free(mem);
	mem = calloc(1, lay.size);
	lay.base = mem;
	for (i = 0; i < NTH; i++) {
		struct mtp_thread *th = patch_slot(&lay, i);
		struct mtp_rec *rec = (struct mtp_rec *)(th + 1);

		for (k = 0; k < 5 && times[i][k]; k++) {
			rec[k].time = times[i][k];
			rec[k].func = 1;
			rec[k].kind = MTP_REC_KIND(k % 2 ? MTP_RETURN : MTP_CALL, 0);
		}
		th->head = k;
		th->pid = 1000;
		th->tid = 1001 + i;
		memcpy(th->comm, "t", 2);
	}
}

/* One pass: the records' times in out (at most 16), their number. */
static size_t pass(struct patch_rings *r, int partial, uint64_t until, uint64_t *out)
{
	struct patch_pass ps;
	struct patch_event ev;
	size_t n = 0;

	if (patch_pass_begin(r, &ps, 2, MTP_CLOCK_MONOTONIC, NTH, partial, until))
		return 0;
	while (patch_pass_next(&ps, &ev))
		if (!ev.is_thread && n < 16)
			out[n++] = ev.time;
	patch_pass_end(&ps);
	return n;
}

static int same(const uint64_t *got, size_t n, const uint64_t *want, size_t m)
{
	return n == m && !memcmp(got, want, n * sizeof(*got));
}

/* A whole pass: every record, in time order; with until, those up to it
 * (one at until kept: the hit's own) and none after. */
static void test_whole_until(void)
{
	static const uint64_t all[] = { 10, 15, 20, 25, 30, 35, 40, 45, 50 };
	struct patch_rings r;
	uint64_t got[16];
	size_t n;

	make_rings();
	CHECK_EQ(patch_rings_init(&r, &lay), 0);
	n = pass(&r, 0, 0, got);
	CHECK(same(got, n, all, 9));
	patch_rings_rewind(&r);
	n = pass(&r, 0, 30, got);
	CHECK(same(got, n, all, 5));
	patch_rings_rewind(&r);
	n = pass(&r, 0, 29, got);
	CHECK(same(got, n, all, 4));
	patch_rings_release(&r);
}

/* Partial with until (--repeat): up to until, the rest the next pass's. */
static void test_partial_until(void)
{
	static const uint64_t first[] = { 10, 15, 20, 25, 30, 35 }, rest[] = { 40, 45, 50 };
	struct patch_rings r;
	uint64_t got[16];
	size_t n;

	make_rings();
	CHECK_EQ(patch_rings_init(&r, &lay), 0);
	r.tsc_a = r.mono_a = 0; /* the pass sleeps for none */
	n = pass(&r, 1, 35, got);
	CHECK(same(got, n, first, 6));
	n = pass(&r, 0, 0, got);
	CHECK(same(got, n, rest, 3));
	patch_rings_release(&r);
}

int main(void)
{
	RUN(test_whole_until);
	RUN(test_partial_until);
	free(mem);
	return unit_done();
}
