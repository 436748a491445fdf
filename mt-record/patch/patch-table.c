/*
 * The patch backend's table as mt-record keeps it: see patch-table.h.
 */
#include <string.h>

#include "patch-table.h"
#include "banned.h"

/* the runtime's code: libmt-patch.so's text is far smaller */
#define OWN_MAX (64u << 20)
/* an earlier session's offsets and strides: mt-record never makes them
 * larger (its memory is a few GiB at most) */
#define STALE_OFF_MAX (1ull << 40)

void patch_fn_take(struct patch_fn *f, const struct mtp_func *theirs)
{
	struct mtp_func t;

	memcpy(&t, theirs, sizeof(t)); /* once: the process may write on */
	f->where = t.where;
	f->stub = t.stub;
	f->cover = t.cover;
	f->lead = t.lead;
	memcpy(f->orig, t.orig, sizeof(f->orig));
	memcpy(f->code, t.code, sizeof(f->code));
	if (f->status == MTP_FN_PART)
		return; /* mt-record's verdict */
	f->status = t.status;
	if (t.status >= MTP_FN_NSTATUS ||
	    (t.status == MTP_FN_PART && !(f->flags & MTP_FF_GUESSED)) ||
	    t.status == MTP_FN_BAD_ANSWER ||
	    ((t.status == MTP_FN_PATCHED || (t.status == MTP_FN_PENDING && t.stub)) &&
	     !patch_fn_has_patch(f)))
		f->status = MTP_FN_BAD_ANSWER;
}

int patch_fn_has_patch(const struct patch_fn *f)
{
	return (f->status == MTP_FN_PATCHED || f->status == MTP_FN_PENDING) && f->stub &&
	       f->where > MTP_MAX_COVER && f->cover <= 2 * MTP_MAX_COVER &&
	       f->lead >= -MTP_MAX_COVER && f->lead <= MTP_MAX_COVER &&
	       (int64_t)f->lead + f->cover <= MTP_MAX_COVER &&
	       (f->lead > 0 ? f->lead >= 5 && f->cover >= 2 : (int64_t)f->lead + f->cover >= 5);
}

void patch_own_code(uint64_t lo, uint64_t hi, uint64_t *olo, uint64_t *ohi)
{
	int ok = lo < hi && hi - lo <= OWN_MAX;

	*olo = ok ? lo : 0;
	*ohi = ok ? hi : 0;
}

int patch_stale_check(const struct mtp_header *h, struct patch_stale *s)
{
	memset(s, 0, sizeof(*s));
	if (h->magic != MTP_MAGIC || h->version != MTP_VERSION ||
	    h->nfuncs > h->max_funcs || h->nfuncs > PATCH_MAX_FUNCS ||
	    h->funcs_off < sizeof(*h) || h->funcs_off > STALE_OFF_MAX ||
	    h->threads_off > STALE_OFF_MAX || h->thread_stride < sizeof(struct mtp_thread) ||
	    h->thread_stride > STALE_OFF_MAX)
		return -1;
	s->funcs_off = h->funcs_off;
	s->nfuncs = h->nfuncs;
	s->threads_off = h->threads_off;
	s->thread_stride = h->thread_stride;
	s->nthreads = h->nthreads;
	if (s->nthreads > h->max_threads)
		s->nthreads = h->max_threads;
	if (s->nthreads > PATCH_MAX_THREADS)
		s->nthreads = PATCH_MAX_THREADS;
	s->tramp = h->tramp;
	patch_own_code(h->own_lo, h->own_hi, &s->own_lo, &s->own_hi);
	s->live_at = h->live_at & 3 ? 0 : h->live_at;
	s->busy_tls = (h->busy_tls & 3) || h->busy_tls > (1ll << 30) ||
		h->busy_tls < -(1ll << 30) ? 0 : h->busy_tls;
	return 0;
}
