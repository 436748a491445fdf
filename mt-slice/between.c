/*
 * --between START STOP: the regions of the trace between a span named like
 * START starting and one named like STOP starting, as magic-trace's
 * -filter finds them (src/for_range.ml: the hits in time order, a START
 * then a STOP makes a region, a STOP with no START open is dropped, of two
 * STARTs the later one counts), across threads, cut to the window.
 *
 * The first pass notes each hit (between_hit); they are sorted on disk
 * (common/extsort.h) as they come in file order, not time order (spans
 * come when they end, FXT events in any order), and paired into regions
 * written to a temporary file, 16 bytes a region, in time order. The
 * second pass looks regions up there through a few cached blocks: memory
 * stays bounded whatever the number of regions.
 */
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "extsort.h"
#include "slice.h"
#include "stream.h"
#include "cmp.h"
#include "banned.h"

struct hit {
	uint64_t t;
	uint8_t stop; /* 1: STOP, 0: START */
};

static struct mt_extsort hits;
static int hits_init;
static uint64_t n_start, n_stop;

/* Equal times: a STOP before a START, whatever the file order, so that the
 * stream and its FXT file give the same regions. */
static int by_time(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	MT_CMP_BY(x->t, y->t);
	return MT_CMP(y->stop, x->stop); /* a stop first */
}

static void sort_check(int err)
{
	if (err)
		die_mt(err, "--between: sorting in a temporary file");
}

static void hits_start(void)
{
	if (!hits_init) {
		sort_check(mt_extsort_init(&hits, sizeof(struct hit), by_time,
					   1u << 15, 32));
		hits_init = 1;
	}
}

void between_hit(const struct slice *sl, const char *name, size_t len,
		 uint64_t t)
{
	struct hit h;

	if (!name) {
		name = "";
		len = 0;
	}
	memset(&h, 0, sizeof(h));
	h.t = t;
	/* a name like both is a START, as in magic-trace */
	if (mt_regex_match_len(&sl->start_rx, name, len))
		h.stop = 0;
	else if (mt_regex_match_len(&sl->stop_rx, name, len))
		h.stop = 1;
	else
		return;
	hits_start();
	sort_check(mt_extsort_add(&hits, &h));
	if (h.stop)
		n_stop++;
	else
		n_start++;
}

/* ---- the regions, on disk ---- */

static FILE *regf;
static uint64_t nreg;

#define BLK 512 /* regions a block */
#define NBLK 8
static struct rblock {
	uint64_t base; /* region index of v[0] */
	size_t n;
	uint64_t used; /* 0: empty */
	uint64_t v[2 * BLK];
} blk[NBLK];
static uint64_t blk_clock;

static void region_add(uint64_t from, uint64_t to)
{
	uint64_t v[2] = { from, to };

	tmp_io(1, regf, v, sizeof(v), nreg * sizeof(v));
	nreg++;
}

/* Region i (i < nreg) in *from, *to. */
static void region_get(uint64_t i, uint64_t *from, uint64_t *to)
{
	uint64_t base = i / BLK * BLK;
	struct rblock *b = &blk[0];
	size_t k;

	for (k = 0; k < NBLK; k++) {
		if (blk[k].used && blk[k].base == base) {
			b = &blk[k];
			goto found;
		}
		if (blk[k].used < b->used)
			b = &blk[k];
	}
	b->base = base;
	b->n = nreg - base < BLK ? (size_t)(nreg - base) : BLK;
	tmp_io(0, regf, b->v, b->n * 2 * sizeof(uint64_t),
	       base * 2 * sizeof(uint64_t));
found:
	b->used = ++blk_clock;
	*from = b->v[2 * (i - base)];
	*to = b->v[2 * (i - base) + 1];
}

/* The first region ending after t (nreg: none). Spans and events come
 * roughly in time order: the last answer is tried first. */
static uint64_t hint;

static uint64_t first_ending_after(uint64_t t)
{
	uint64_t lo = 0, hi = nreg, f, e;

	if (hint < nreg) {
		region_get(hint, &f, &e);
		if (e > t) {
			uint64_t pf, pe;

			if (!hint)
				return hint;
			region_get(hint - 1, &pf, &pe);
			if (pe <= t)
				return hint;
			hi = hint;
		} else {
			lo = hint + 1;
		}
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		region_get(mid, &f, &e);
		if (e > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	hint = lo;
	return lo;
}

static void cut_add(const struct slice *sl, uint64_t from, uint64_t to,
		    uint64_t *last_to)
{
	uint64_t v[2];

	if (from < sl->win_from)
		from = sl->win_from;
	if (to > sl->win_to)
		to = sl->win_to;
	if (from >= to)
		return;
	if (nreg && *last_to == from) {
		/* touching the last one: one region */
		tmp_io(0, regf, v, sizeof(v), (nreg - 1) * sizeof(v));
		v[1] = to;
		tmp_io(1, regf, v, sizeof(v), (nreg - 1) * sizeof(v));
	} else {
		region_add(from, to);
	}
	*last_to = to;
}

uint64_t between_regions(struct slice *sl)
{
	const void *p;
	uint64_t start = MT_NONE64, last_to = MT_NONE64, npairs = 0;
	int got;

	hits_start();
	sort_check(mt_extsort_sort(&hits));
	regf = tmp_open();
	while ((got = mt_extsort_next(&hits, &p)) > 0) {
		const struct hit *h = p;

		if (!h->stop) {
			start = h->t; /* of two STARTs, the later one */
		} else if (start != MT_NONE64) {
			npairs++;
			cut_add(sl, start, h->t, &last_to);
			start = MT_NONE64;
		}
	}
	sort_check(got);
	mt_extsort_release(&hits);
	if (!n_start)
		warn("%s: --between: no span named like %s starts: nothing kept",
		     sl->in_name, sl->start_pat);
	else if (!n_stop)
		warn("%s: --between: no span named like %s (and not like %s) "
		     "starts: nothing kept", sl->in_name, sl->stop_pat,
		     sl->start_pat);
	else if (!npairs)
		warn("%s: --between: no span named like %s starts after one "
		     "named like %s: nothing kept", sl->in_name, sl->stop_pat,
		     sl->start_pat);
	else if (!nreg)
		warn("%s: --between: no region meets the window: nothing kept",
		     sl->in_name);
	/* the window is in the regions now */
	sl->win_from = 0;
	sl->win_to = MT_NONE64;
	sl->have_from = 0;
	return nreg;
}

uint64_t between_first(uint64_t s)
{
	return first_ending_after(s);
}

int between_meets(uint64_t s, uint64_t e)
{
	uint64_t i = first_ending_after(s), f, t;

	return between_piece(s, e, &i, &f, &t);
}

int between_piece(uint64_t s, uint64_t e, uint64_t *i, uint64_t *from,
		  uint64_t *to)
{
	if (*i >= nreg)
		return 0;
	region_get(*i, from, to);
	if (*to <= s || !(*from < e || *from <= s))
		return 0;
	(*i)++;
	return 1;
}

int between_ends_in(uint64_t s, uint64_t e)
{
	uint64_t i, f, t;

	if (s >= e)
		return between_kept(s);
	i = first_ending_after(e - 1);
	if (i >= nreg)
		return 0;
	region_get(i, &f, &t);
	return f < e;
}

int between_kept(uint64_t t)
{
	uint64_t i, f, e;

	if (t == MT_NONE64)
		return 1;
	i = first_ending_after(t);
	if (i >= nreg)
		return 0;
	region_get(i, &f, &e);
	return f <= t;
}

int between_is_from(uint64_t t)
{
	uint64_t i, f, e;

	i = first_ending_after(t);
	if (i >= nreg)
		return 0;
	region_get(i, &f, &e);
	return f == t;
}

uint64_t between_count(void)
{
	return nreg;
}
