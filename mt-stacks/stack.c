/*
 * mt-stacks: a thread's stack of frames, the index of its frames by
 * function, and the spans that leave it.
 */
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "stacks.h"
#include "xalloc.h"
#include "banned.h"

/* ---- spans ---- */

static void spans_add(struct spans *s, const struct mt_span *sp)
{
	if (s->n == s->cap)
		grow_or_die(&s->v, &s->cap, s->n, sizeof(*s->v));
	s->v[s->n++] = *sp;
}

static void emit(struct stacks *ctx, const struct mt_span *s)
{
	stacks_check(mt_write_span(&ctx->out, s));
	ctx->n_spans++;
}

static void emit_all(struct stacks *ctx, struct spans *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		emit(ctx, &s->v[i]);
	s->n = 0;
}

/* ---- the index of a stack's frames by function ---- */

enum {
	FI_ADDR = 1,  /* exact frames by entry address */
	FI_SD_N,      /* frames by symbol and DSO, entry not exact */
	FI_SD_X,      /* the same, entry exact */
	FI_S_N,       /* frames by symbol, entry not exact */
	FI_S_X,
};
#define FI_NONE SIZE_MAX

static size_t fi_hash(uint8_t type, uint64_t key)
{
	uint64_t z = key + type * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (size_t)(z ^ (z >> 31));
}

/* The top frame of key (type, key) in stack s: its slot, NULL when the
 * key was never seen there (then made when add is set). */
static size_t *fi_slot(struct stack *s, uint8_t type, uint64_t key, int add)
{
	size_t i;

	if (add && (s->nused + 1) * 2 > s->nslots) {
		size_t n = s->nslots ? s->nslots * 2 : 64, j;
		struct fn_slot *v = xcalloc(n, sizeof(*v));

		for (j = 0; j < s->nslots; j++) {
			struct fn_slot *o = &s->slots[j];

			if (!o->type)
				continue;
			for (i = fi_hash(o->type, o->key) & (n - 1); v[i].type;
			     i = (i + 1) & (n - 1))
				;
			v[i] = *o;
		}
		free(s->slots);
		s->slots = v;
		s->nslots = n;
	}
	if (!s->nslots)
		return NULL;
	for (i = fi_hash(type, key) & (s->nslots - 1); s->slots[i].type;
	     i = (i + 1) & (s->nslots - 1))
		if (s->slots[i].type == type && s->slots[i].key == key)
			return &s->slots[i].top;
	if (!add)
		return NULL;
	s->slots[i].type = type;
	s->slots[i].key = key;
	s->slots[i].top = FI_NONE;
	s->nused++;
	return &s->slots[i].top;
}

static size_t fi_top(struct stack *s, uint8_t type, uint64_t key)
{
	size_t *p = fi_slot(s, type, key, 0);

	return p ? *p : FI_NONE;
}

/* The keys of frame f; returns how many. */
static int fi_keys(const struct frame *f, uint8_t *type, uint64_t *key)
{
	uint64_t sd = (uint64_t)f->sym << 32 | f->dso;

	if (!f->exact) {
		type[0] = FI_SD_N, key[0] = sd;
		type[1] = FI_S_N, key[1] = f->sym;
		return 2;
	}
	type[0] = FI_SD_X, key[0] = sd;
	type[1] = FI_S_X, key[1] = f->sym;
	type[2] = FI_ADDR, key[2] = f->addr;
	return 3;
}

/* Frame i, the new top of s, goes into the index. */
static void fi_push(struct stack *s, size_t i)
{
	struct frame *f = &s->f[i];
	uint8_t type[3];
	uint64_t key[3];
	int k, n = fi_keys(f, type, key);

	for (k = 0; k < n; k++) {
		size_t *top = fi_slot(s, type[k], key[k], 1);

		f->prev[k] = *top;
		*top = i;
	}
	f->indexed = 1;
}

/* The top frame of s leaves the index. */
static void fi_pop(struct stack *s)
{
	struct frame *f = &s->f[s->n - 1];
	uint8_t type[3];
	uint64_t key[3];
	int k, n;

	if (!f->indexed)
		return;
	n = fi_keys(f, type, key);
	for (k = 0; k < n; k++)
		*fi_slot(s, type[k], key[k], 0) = f->prev[k];
}

void stack_release(struct stack *s)
{
	free(s->f);
	free(s->slots);
}

/* A frame for the function at l (NULL: none), at the depth a call takes. */
void frame_init(struct thread *t, struct frame *f, const struct mt_loc *l,
		uint64_t start, uint8_t kind, uint16_t flags)
{
	memset(f, 0, sizeof(*f));
	if (l) {
		f->sym = l->sym;
		f->dso = l->dso;
		f->exact = l->off != MT_NONE64 && l->ip;
		f->addr = f->exact ? l->ip - l->off : l->ip;
	}
	f->start = start;
	f->depth = next_depth(t);
	f->kind = kind;
	f->flags = flags;
}

/* A frame on top of the current stack; pseudo: the name of a pseudo frame,
 * which is no function's (NULL for a function's frame). */
struct frame *push_frame(struct thread *t, const struct mt_loc *l,
			 uint64_t start, uint8_t kind, uint16_t flags,
			 const char *pseudo)
{
	struct stack *s = &t->cur;
	struct frame *f;

	if (s->n == s->cap)
		grow_or_die(&s->f, &s->cap, s->n, sizeof(*s->f));
	f = &s->f[s->n];
	frame_init(t, f, l, start, kind, flags);
	f->pseudo = pseudo;
	s->n++;
	if (!pseudo)
		fi_push(s, s->n - 1);
	return f;
}

struct frame *stack_push(struct thread *t, const struct mt_loc *l, uint64_t start,
			 uint8_t kind, uint16_t flags)
{
	return push_frame(t, l, start, kind, flags, NULL);
}

void span_of(const struct thread *t, const struct frame *f, uint64_t end,
	     uint16_t flags, struct mt_span *s)
{
	struct stacks *ctx = t->ctx;

	memset(s, 0, sizeof(*s));
	s->start = f->start;
	s->end = end < f->start ? f->start : end;
	s->pid = t->pid;
	s->tid = t->tid;
	s->depth = f->depth;
	s->kind = f->kind;
	s->flags = f->flags | flags;
	s->address = f->addr;
	if (f->pseudo_id)
		s->name = f->pseudo_id;
	else if (f->pseudo)
		s->name = stacks_out_lit(ctx, f->pseudo);
	else if (f->sym)
		s->name = stacks_map_id(ctx, f->sym);
	else
		s->name = stacks_out_lit(ctx, "[unknown]");
	s->dso = stacks_map_id(ctx, f->dso);
}

/* Hand a finished span (and what it held) to its parent, the segment's
 * root list, or the output. */
void stack_finish(struct thread *t, struct frame *parent, struct mt_span *s,
		  struct spans *held)
{
	size_t i;

	if (parent && parent->start == s->start) {
		spans_add(&parent->held, s);
		for (i = 0; held && i < held->n; i++)
			spans_add(&parent->held, &held->v[i]);
	} else if (!parent && s->start == t->seg_start) {
		spans_add(&t->root, s);
		for (i = 0; held && i < held->n; i++)
			spans_add(&t->root, &held->v[i]);
	} else {
		emit(t->ctx, s);
		for (i = 0; held && i < held->n; i++)
			emit(t->ctx, &held->v[i]);
	}
	if (held)
		held->n = 0;
}

/* End the top frame at time end. */
void stack_pop(struct thread *t, uint64_t end, uint16_t flags)
{
	struct stack *st = &t->cur;
	struct frame *f = &st->f[st->n - 1];
	struct mt_span s;

	span_of(t, f, end, flags, &s);
	stack_finish(t, parent_of(t, st->n - 1), &s, &f->held);
	free(f->held.v);
	if (st->n == 1)
		st->empty_depth = f->depth;
	fi_pop(st);
	st->n--;
}

/* Stable by depth: parents before children, all starting at seg_start. */
static void flush_root(struct thread *t)
{
	size_t i, j;

	for (i = 1; i < t->root.n; i++) {
		struct mt_span s = t->root.v[i];

		for (j = i; j > 0 && t->root.v[j - 1].depth > s.depth; j--)
			t->root.v[j] = t->root.v[j - 1];
		t->root.v[j] = s;
	}
	emit_all(t->ctx, &t->root);
}

/* Close every frame of every stack at time end; a new segment starts
 * there. */
void stack_reset(struct thread *t, uint64_t end, uint16_t flags)
{
	while (t->cur.n)
		stack_pop(t, end, flags);
	while (t->ninactive) {
		stack_release(&t->cur);
		t->cur = t->inactive[--t->ninactive];
		while (t->cur.n)
			stack_pop(t, end, flags);
	}
	flush_root(t);
	memset(&t->stop, 0, sizeof(t->stop));
	t->sigreturn = 0;
	t->cur.empty_depth = 1;
	t->seg_start = end;
	t->started = 1;
	t->fresh = 1;
}

/* The nearer of frames a and b (FI_NONE: none). */
static size_t nearer(size_t a, size_t b)
{
	if (a == FI_NONE)
		return b;
	return b == FI_NONE || a > b ? a : b;
}

/* The nearest frame below frame limit with key (type, key), k its place
 * among a frame's keys (fi_keys()). */
static size_t fi_below(struct stack *s, uint8_t type, uint64_t key, int k,
		       size_t limit)
{
	size_t i = fi_top(s, type, key);

	while (i != FI_NONE && i >= limit)
		i = s->f[i].prev[k];
	return i;
}

/*
 * Index of the nearest frame below frame limit for the function at l, or
 * -1: the frame same_fn() would find first walking down the stack from
 * there, taken from the index. Only frames of the function at or above
 * limit are stepped over.
 */
long find_fn_below(struct thread *t, const struct mt_loc *l, size_t limit)
{
	struct stack *s = &t->cur;
	int exact = l->off != MT_NONE64 && l->ip;
	uint64_t sd = (uint64_t)l->sym << 32 | l->dso;
	size_t best = FI_NONE;
	int x;

	if (exact)
		best = fi_below(s, FI_ADDR, l->ip - l->off, 2, limit);
	/* by symbol: frames whose entry is not exact, and, unless this
	 * place's is, those whose entry is */
	for (x = 0; x <= !exact; x++) {
		uint8_t by_sd = x ? FI_SD_X : FI_SD_N, by_s = x ? FI_S_X : FI_S_N;

		if (!l->sym) {
			best = nearer(best, fi_below(s, by_sd, sd, 0, limit));
		} else if (l->dso) {
			best = nearer(best, fi_below(s, by_sd, sd, 0, limit));
			best = nearer(best, fi_below(s, by_sd,
						     (uint64_t)l->sym << 32, 0,
						     limit));
		} else {
			best = nearer(best, fi_below(s, by_s, l->sym, 1, limit));
		}
	}
	return best == FI_NONE ? -1 : (long)best;
}

/* Index of the nearest frame (from the top) for this function, or -1. */
long find_fn(struct thread *t, const struct mt_loc *l)
{
	return find_fn_below(t, l, t->cur.n);
}

/* The code now runs in dst, entered some time before now: it becomes the
 * bottom frame, flagged inferred, started when the segment did. */
void stack_infer(struct thread *t, const struct mt_loc *dst)
{
	/* with the stack empty, the code runs one level above where the
	 * next call would go */
	stack_push(t, dst, t->seg_start,
		   is_kernel(dst->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION,
		   MT_SF_INFERRED)->depth = t->cur.empty_depth - 1;
}

void stack_call(struct thread *t, const struct mt_loc *dst, uint64_t time)
{
	stack_push(t, dst, time,
		   is_kernel(dst->ip) || t->ninactive ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION, 0);
}

/* With the stack empty, a return from the function at from: it ran since
 * the segment began, one level further out than all seen so far. */
void stack_reveal(struct thread *t, const struct mt_loc *from, uint64_t time)
{
	struct frame r = {
		.sym = from->sym, .dso = from->dso,
		.addr = from->off == MT_NONE64 ? from->ip : from->ip - from->off,
		.start = t->seg_start,
		.depth = t->cur.empty_depth - 1,
		.kind = is_kernel(from->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION,
		.flags = MT_SF_INFERRED,
	};
	struct mt_span s;

	span_of(t, &r, time, 0, &s);
	stack_finish(t, NULL, &s, NULL);
	t->cur.empty_depth = r.depth;
}
