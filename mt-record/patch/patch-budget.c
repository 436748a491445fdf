/*
 * --max-overhead: the cost of the recording, kept under a budget
 * (patch-budget.h).
 */
#include <stdlib.h>
#include <string.h>

#include "patch-budget.h"
#include "patch-rec.h"
#include "shm.h"
#include "xalloc.h"
#include "banned.h"

void patch_budget_init(struct patch_budget *b, double max, double call_ns)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
	b->call_ns = call_ns;
}

void patch_budget_release(struct patch_budget *b)
{
	free(b->heads);
	free(b->gens);
	free(b->calls);
	free(b->slot_calls);
	free(b->touched);
	free(b->keep);
	memset(b, 0, sizeof(*b));
}

/* calls and keep cover n functions. */
static void cover(struct patch_budget *b, uint32_t n)
{
	if (n <= b->nfn)
		return;
	b->calls = xrealloc(b->calls, n, sizeof(*b->calls));
	b->slot_calls = xrealloc(b->slot_calls, n, sizeof(*b->slot_calls));
	b->touched = xrealloc(b->touched, n, sizeof(*b->touched));
	b->keep = xrealloc(b->keep, n, 1);
	memset(b->calls + b->nfn, 0, (size_t)(n - b->nfn) * sizeof(*b->calls));
	memset(b->slot_calls + b->nfn, 0, (size_t)(n - b->nfn) * sizeof(*b->slot_calls));
	memset(b->keep + b->nfn, 0, n - b->nfn);
	b->nfn = n;
}

void patch_budget_keep(struct patch_budget *b, uint32_t i)
{
	cover(b, i + 1);
	b->keep[i] = 1;
}

/* The calls of slot t since the last look into b->calls: how many (a
 * ring that lapped: its newest ring's worth counted, scaled up). */
static double count_slot(struct patch_budget *b, const struct patch_layout *l, uint32_t i,
			 uint32_t nfn)
{
	const struct mtp_thread *t = patch_slot(l, i);
	const struct mtp_rec *ring = (const struct mtp_rec *)(t + 1);
	uint64_t head = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE), from = b->heads[i], k, n,
		 seen = 0, calls = 0;
	uint32_t gen = __atomic_load_n(&t->gen, __ATOMIC_RELAXED), ntouched = 0, j;
	double scale;

	if (gen != b->gens[i] || head < from)
		from = head; /* another thread's now: from the next look */
	b->heads[i] = head;
	b->gens[i] = gen;
	if (!b->last || head == from)
		return 0;
	n = head - from < l->nrec ? head - from : l->nrec;
	for (k = head - n; k < head; k++) {
		const struct mtp_rec *r = &ring[k & (l->nrec - 1)];
		uint32_t kind = __atomic_load_n(&r->kind, __ATOMIC_ACQUIRE), f = r->func;

		seen++;
		if (MTP_REC_KIND_OF(kind) == MTP_CALL && f < nfn) {
			if (!b->slot_calls[f]++)
				b->touched[ntouched++] = f;
			calls++;
		}
	}
	/* lapped: what the ring held stands for all, each function's share
	 * as it was there */
	scale = seen && head - from > seen ? (double)(head - from) / (double)seen : 1;
	for (j = 0; j < ntouched; j++) {
		b->calls[b->touched[j]] += b->slot_calls[b->touched[j]] * scale;
		b->slot_calls[b->touched[j]] = 0;
	}
	return (double)calls * scale;
}

/* for the sort of candidates: most calls first */
static const double *by_calls;

static int hotter(const void *a, const void *b)
{
	double x = by_calls[*(const uint32_t *)a], y = by_calls[*(const uint32_t *)b];

	return x > y ? -1 : x < y;
}

double patch_budget_recorded(const struct patch_rec *p)
{
	const struct patch_layout *l = &p->rings.l;
	uint32_t nth = __atomic_load_n(&p->h->nthreads, __ATOMIC_ACQUIRE), i;
	double n = 0;

	if (nth > l->max_threads)
		nth = l->max_threads;
	for (i = 0; i < nth; i++)
		n += (double)__atomic_load_n(&patch_slot(l, i)->head, __ATOMIC_RELAXED) / 2;
	return n;
}

size_t patch_budget_look(struct patch_budget *b, const struct patch_rec *p, uint64_t now,
			 uint32_t *out, double *rate, size_t max)
{
	const struct patch_layout *l = &p->rings.l;
	uint32_t nth = __atomic_load_n(&p->h->nthreads, __ATOMIC_ACQUIRE), i, nfn = p->nfn;
	uint64_t dt, threads = 0;
	double cost, fit, total = 0, c, most = 0;
	uint32_t *cand, ncand = 0, k;
	size_t n = 0;

	if (b->last && now - b->last < PATCH_BUDGET_NS)
		return 0;
	if (nth > l->max_threads)
		nth = l->max_threads;
	if (nth > b->nslots) {
		b->heads = xrealloc(b->heads, nth, sizeof(*b->heads));
		b->gens = xrealloc(b->gens, nth, sizeof(*b->gens));
		memset(b->heads + b->nslots, 0, (size_t)(nth - b->nslots) * sizeof(*b->heads));
		memset(b->gens + b->nslots, 0, (size_t)(nth - b->nslots) * sizeof(*b->gens));
		b->nslots = nth;
	}
	cover(b, nfn);
	memset(b->calls, 0, (size_t)nfn * sizeof(*b->calls));
	for (i = 0; i < nth; i++)
		if ((c = count_slot(b, l, i, nfn)) > 0) {
			total += c;
			threads++;
			if (c > most) {
				const struct mtp_thread *t = patch_slot(l, i);

				most = c;
				b->hot_pid = __atomic_load_n(&t->pid, __ATOMIC_RELAXED);
				b->hot_tid = __atomic_load_n(&t->tid, __ATOMIC_RELAXED);
			}
		}
	/* calls of functions turned off since they were counted (made
	 * before their entries went back) cost nothing from now on */
	for (i = 0; i < nfn; i++)
		if (b->calls[i] > 0 && p->fn[i].status == MTP_FN_OFF)
			total -= b->calls[i];
	if (total < 0)
		total = 0;
	dt = b->last ? now - b->last : 0;
	b->last = now;
	if (!dt || !threads)
		return 0;
	/* the share of the busy threads' time the calls took */
	cost = total * b->call_ns / ((double)dt * (double)threads);
	if (cost <= b->max)
		return 0;
	/* down to half the budget: the next interval's calls are not
	 * this one's */
	fit = b->max * 0.5;
	cand = xcalloc((size_t)nfn + 1, sizeof(*cand));
	for (i = 0; i < nfn; i++)
		if (b->calls[i] && !b->keep[i] && p->fn[i].status == MTP_FN_PATCHED &&
		    p->fn[i].kind == MTP_FK_TRACE)
			cand[ncand++] = i;
	by_calls = b->calls;
	qsort(cand, ncand, sizeof(*cand), hotter);
	for (k = 0; k < ncand && cost > fit && n < max; k++) {
		i = cand[k];
		out[n] = i;
		rate[n] = b->calls[i] * 1e9 / (double)dt;
		cost -= b->calls[i] * b->call_ns / ((double)dt * (double)threads);
		n++;
	}
	free(cand);
	return n;
}
