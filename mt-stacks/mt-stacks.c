/*
 * mt-stacks: branch events (and sampled stacks) in, call spans out.
 * See docs/mt-stacks.1 for the rules and docs/format.md for the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "output.h"
#include "err.h"
#include "stream.h"
#include "tidmap.h"
#include "banned.h"

#define USAGE "usage: mt-stacks [-v] [--no-spread] [--keep-after-trigger] [-o output] [file]\n"

static const char *in_name; /* for messages (mt_filter_open_or_die) */
static struct mt_reader in;
static struct mt_writer out;
static int spread = 1, keep_after_trigger;

/* ---- counters: nothing is dropped silently ---- */

static unsigned long long n_branches, n_samples, n_spans, n_bad_end,
	n_bad_start, n_noflags, n_after_cut;

static void check(int err)
{
	if (err)
		die_mt(err, "writing the stream");
}

/* ---- strings: input ids to output ids ---- */

static uint32_t *idmap;
static size_t idmap_cap;

static uint32_t out_str(const char *s, size_t len)
{
	uint32_t id;

	check(mt_writer_intern(&out, s, len, &id));
	return id;
}

static uint32_t out_lit(const char *s)
{
	return out_str(s, strlen(s));
}

/* The output id of input string id (0 stays 0). */
static uint32_t map_id(uint32_t id)
{
	const char *s;
	size_t len;

	if (!id)
		return 0;
	if (id < idmap_cap && idmap[id])
		return idmap[id];
	s = mt_reader_str(&in, id, &len);
	if (!s)
		die(MT_EXIT_DATA, "%s: string id %u is not defined", in_name, id);
	if (id < (1u << 26))
		grow_or_die(&idmap, &idmap_cap, id, sizeof(*idmap));
	if (id < idmap_cap)
		return idmap[id] = out_str(s, len);
	return out_str(s, len); /* huge ids: not cached */
}

/* A STRING record redefined an input id. */
static void forget_class(uint32_t id);

static void forget_id(uint32_t id)
{
	if (id < idmap_cap)
		idmap[id] = 0;
	forget_class(id);
}

/* ---- spans ---- */

struct spans {
	struct mt_span *v;
	size_t n, cap;
};

static void spans_add(struct spans *s, const struct mt_span *sp)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		struct mt_span *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *sp;
}

static void emit(const struct mt_span *s)
{
	check(mt_write_span(&out, s));
	n_spans++;
}

static void emit_all(struct spans *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		emit(&s->v[i]);
	s->n = 0;
}

/* ---- threads ---- */

/*
 * A frame on a stack. sym and dso are input ids: the identity of the
 * function. held: spans that ended already but started when this frame
 * did; they are written after it, so that parents come first among spans
 * with equal starts.
 */
struct frame {
	uint32_t sym, dso;
	uint64_t addr;         /* entry address, exact when from an offset */
	int exact;
	uint64_t start;
	int32_t depth;
	uint8_t kind;
	uint16_t flags;
	const char *pseudo; /* name of [untraced], [syscall], gaps */
	uint32_t pseudo_id; /* output id of a gap's name */
	int handler;           /* a signal handler's frame */
	struct mt_loc resume;  /* a handler's: where the interrupted code was */
	struct spans held;
	int indexed;           /* in its stack's index (not a pseudo frame) */
	size_t prev[3];        /* the next frame down with each of its keys */
};

/* An index key's top frame: the nearest frame with that key. */
struct fn_slot {
	uint64_t key;
	uint8_t type;          /* FI_*, 0: empty */
	size_t top;            /* FI_NONE: none on the stack now */
};

/*
 * A stack, and an index from function to its frames: for each key, the
 * topmost frame with it, and in each frame the next one down (prev), so
 * that the nearest frame of a function is found without a walk down the
 * stack. Keys follow same_fn(): the entry address of frames whose entry
 * is exact, and symbol with DSO and symbol alone, separately for frames
 * whose entry is exact and not. The slots grow with the functions seen on
 * the stack, never with the trace.
 */
struct stack {
	struct frame *f;
	size_t n, cap;
	int32_t empty_depth; /* depth of the next frame when n == 0 */
	struct fn_slot *slots;
	size_t nslots, nused; /* nslots: a power of two, or 0 */
};

struct thread {
	uint32_t pid, tid;
	int started;           /* seg_start is set */
	int fresh;             /* no event yet in this segment */
	int tracing;
	uint64_t seg_start;    /* first event, or last reset */
	uint64_t last_time;
	uint64_t last_seen;    /* any record of the thread, marks included */
	struct stack cur;
	struct stack *inactive; /* stacks pushed aside by kernel entries */
	size_t ninactive, capinactive;
	struct spans root;     /* ended spans that started at seg_start */
	/* where the user code stood when the trace stopped or the kernel was
	 * entered: where it resumes unless a signal handler runs */
	struct mt_loc stop;
	int sigreturn;         /* a handler returned: the restorer runs */
	/* events sharing one timestamp, waiting to be spread */
	struct mt_branch *batch;
	size_t nbatch, capbatch;
	/* a decode gap waiting for the next event to end it */
	int gap;
	uint64_t gap_start;
	uint32_t gap_name;
	/* trigger: the name whose return cuts the trace */
	int trigger;
	uint32_t trigger_name; /* output id */
};

/* After a trigger: events later than this are dropped. */
static uint64_t cut_time = MT_NONE64;
static int cut_pending;

static struct thread *threads; /* by index in thread_ids */
static size_t nthreads, thread_cap;
static struct mt_tidmap thread_ids;

static struct thread *thread_get(uint32_t pid, uint32_t tid)
{
	uint32_t i;
	int is_new;

	if (mt_tidmap_get(&thread_ids, pid, tid, &i, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (!is_new)
		return &threads[i];
	grow_or_die(&threads, &thread_cap, i, sizeof(*threads));
	threads[i].pid = pid;
	threads[i].tid = tid;
	threads[i].tracing = 1;
	threads[i].fresh = 1;
	/* the code the trace begins in is depth 0, its callees 1 */
	threads[i].cur.empty_depth = 1;
	nthreads = i + 1;
	return &threads[i];
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
		struct fn_slot *v = calloc(n, sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
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

static void stack_release(struct stack *s)
{
	free(s->f);
	free(s->slots);
}

static struct frame *top(struct thread *t)
{
	return t->cur.n ? &t->cur.f[t->cur.n - 1] : NULL;
}

/* The frame a new span would nest under: the top of the current stack, or,
 * for a kernel stack's first frame, the interrupted frame. */
static struct frame *parent_of(struct thread *t, size_t i)
{
	if (i > 0)
		return &t->cur.f[i - 1];
	if (t->ninactive) {
		struct stack *s = &t->inactive[t->ninactive - 1];

		return s->n ? &s->f[s->n - 1] : NULL;
	}
	return NULL;
}

static int32_t next_depth(struct thread *t)
{
	struct frame *f = top(t);

	return f ? f->depth + 1 : t->cur.empty_depth;
}

/* A frame for the function at l (NULL: none), at the depth a call takes. */
static void frame_init(struct thread *t, struct frame *f, const struct mt_loc *l,
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
static struct frame *push_frame(struct thread *t, const struct mt_loc *l,
				uint64_t start, uint8_t kind, uint16_t flags,
				const char *pseudo)
{
	struct stack *s = &t->cur;
	struct frame *f;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		struct frame *v = realloc(s->f, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		s->f = v;
		s->cap = cap;
	}
	f = &s->f[s->n];
	frame_init(t, f, l, start, kind, flags);
	f->pseudo = pseudo;
	s->n++;
	if (!pseudo)
		fi_push(s, s->n - 1);
	return f;
}

static struct frame *push(struct thread *t, const struct mt_loc *l,
			  uint64_t start, uint8_t kind, uint16_t flags)
{
	return push_frame(t, l, start, kind, flags, NULL);
}

static void span_of(const struct thread *t, const struct frame *f,
		    uint64_t end, uint16_t flags, struct mt_span *s)
{
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
		s->name = out_lit(f->pseudo);
	else if (f->sym)
		s->name = map_id(f->sym);
	else
		s->name = out_lit("[unknown]");
	s->dso = map_id(f->dso);
}

/* Hand a finished span (and what it held) to its parent, the segment's
 * root list, or the output. */
static void finish(struct thread *t, struct frame *parent, struct mt_span *s,
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
		emit(s);
		for (i = 0; held && i < held->n; i++)
			emit(&held->v[i]);
	}
	if (held)
		held->n = 0;
}

/* End the top frame at time end. */
static void pop(struct thread *t, uint64_t end, uint16_t flags)
{
	struct stack *st = &t->cur;
	struct frame *f = &st->f[st->n - 1];
	struct mt_span s;

	span_of(t, f, end, flags, &s);
	finish(t, parent_of(t, st->n - 1), &s, &f->held);
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
	emit_all(&t->root);
}

/* Close every frame of every stack at time end; a new segment starts
 * there. */
static void reset(struct thread *t, uint64_t end, uint16_t flags)
{
	while (t->cur.n)
		pop(t, end, flags);
	while (t->ninactive) {
		stack_release(&t->cur);
		t->cur = t->inactive[--t->ninactive];
		while (t->cur.n)
			pop(t, end, flags);
	}
	flush_root(t);
	memset(&t->stop, 0, sizeof(t->stop));
	t->sigreturn = 0;
	t->cur.empty_depth = 1;
	t->seg_start = end;
	t->started = 1;
	t->fresh = 1;
}

/* ---- symbols ---- */

static int is_kernel(uint64_t ip)
{
	return ip >= 0xffff800000000000ull;
}

/*
 * Whether the code at l belongs to frame f's function: the same entry
 * address when perf printed offsets (two instances of one generic can
 * share a name), otherwise the same symbol and DSO.
 */
static int same_fn(const struct mt_loc *l, const struct frame *f)
{
	if (f->pseudo)
		return 0;
	if (f->exact && l->off != MT_NONE64 && l->ip)
		return l->ip - l->off == f->addr;
	if (l->sym != f->sym)
		return 0;
	return !l->sym ? l->dso == f->dso : (l->dso == f->dso || !l->dso || !f->dso);
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
static long find_fn_below(struct thread *t, const struct mt_loc *l,
			  size_t limit)
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
static long find_fn(struct thread *t, const struct mt_loc *l)
{
	return find_fn_below(t, l, t->cur.n);
}

/* What a symbol is, for the few rules that go by name; computed once per
 * input string id. */
enum {
	SC_KNOWN = 1, SC_LONGJMP = 2, SC_GOGO = 4, SC_GOSWITCH = 8,
	SC_RESUME = 16, SC_PLT = 32, SC_GOEXECUTE = 64,
};
static uint8_t *classes;
static size_t classes_cap;

static int in_list(const char *s, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(s, *names))
			return 1;
	return 0;
}

/* Whether symbol s is name, or one of its versions (name@@GCC_3.0), but
 * not its PLT stub. */
static int is_versioned(const char *s, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(s, name, n))
		return 0;
	return !s[n] || (s[n] == '@' && strcmp(s + n, "@plt"));
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static unsigned sym_class(uint32_t sym);

static void forget_class(uint32_t id)
{
	if (id < classes_cap)
		classes[id] = 0;
}

static const char *const longjmp_names[] = {
	"__longjmp", "____longjmp_chk", "__longjmp_chk", "longjmp",
	"_longjmp", "siglongjmp", "__libc_siglongjmp", "__libc_longjmp",
	NULL,
};
static const char *const gogo_names[] = {
	"gogo", "runtime.gogo", "runtime.gogo.abi0", NULL,
};
static const char *const go_switch_names[] = {
	"runtime.mcall", "runtime.morestack", "runtime.morestack.abi0", NULL,
};
/* the scheduler: its gogo starts a goroutine's run (execute calls gogo
 * in Go 1.19; schedule calls execute, which could tail-call it) */
static const char *const go_execute_names[] = {
	"runtime.execute", "runtime.schedule", NULL,
};

static unsigned sym_class(uint32_t sym)
{
	const char *s;
	unsigned c = SC_KNOWN;

	if (!sym)
		return 0;
	if (sym < classes_cap && classes[sym])
		return classes[sym];
	s = mt_reader_str(&in, sym, NULL);
	if (s) {
		if (in_list(s, longjmp_names))
			c |= SC_LONGJMP;
		if (in_list(s, gogo_names))
			c |= SC_GOGO;
		if (in_list(s, go_switch_names))
			c |= SC_GOSWITCH;
		if (in_list(s, go_execute_names))
			c |= SC_GOEXECUTE;
		if (is_versioned(s, "_Unwind_Resume"))
			c |= SC_RESUME;
		if (ends_with(s, "@plt"))
			c |= SC_PLT;
	}
	if (sym < (1u << 26))
		grow_or_die(&classes, &classes_cap, sym, sizeof(*classes));
	if (sym < classes_cap)
		classes[sym] = (uint8_t)c;
	return c;
}

/* ---- the rules ---- */

static void go_switch(struct thread *t, const struct mt_branch *b,
		      uint64_t time);

/* The code now runs in dst, entered some time before now: it becomes the
 * bottom frame, flagged inferred, started when the segment did. */
static void infer(struct thread *t, const struct mt_loc *dst)
{
	/* with the stack empty, the code runs one level above where the
	 * next call would go */
	push(t, dst, t->seg_start,
	     is_kernel(dst->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION,
	     MT_SF_INFERRED)->depth = t->cur.empty_depth - 1;
}

static void call(struct thread *t, const struct mt_loc *dst, uint64_t time)
{
	push(t, dst, time,
	     is_kernel(dst->ip) || t->ninactive ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION, 0);
}

/* Whether two places are in one function: by entry address when perf
 * printed both offsets, otherwise by symbol and DSO. */
static int same_place_fn(const struct mt_loc *a, const struct mt_loc *b)
{
	if (a->ip && b->ip && a->off != MT_NONE64 && b->off != MT_NONE64)
		return a->ip - a->off == b->ip - b->off;
	return a->sym == b->sym && a->dso == b->dso;
}

/*
 * Whether user code resuming at to, after the trace stopped (or entered
 * the kernel) at t->stop, is a signal handler: it resumes at the entry of another
 * function. (Interrupts and faults resume where the code stood, system
 * calls after their instruction, sigreturn where the handler interrupted.)
 * Which function unsymbolised code is in is not known: only another file
 * tells.
 */
static int handler_entry(const struct thread *t, const struct mt_loc *to)
{
	const struct mt_loc *s = &t->stop;

	if (!to->ip || is_kernel(to->ip) || to->off != 0 || !s->ip)
		return 0;
	if (!s->sym && s->off == MT_NONE64)
		return s->dso && to->dso && s->dso != to->dso;
	return !same_place_fn(to, s);
}

/* A signal handler starts: its frame goes on top of the interrupted ones,
 * as the kernel pushes the signal frame on the interrupted stack. */
static void enter_handler(struct thread *t, const struct mt_loc *to,
			  uint64_t time)
{
	struct frame *f;

	if (!t->cur.n)
		infer(t, &t->stop);
	f = push(t, to, time, MT_SPAN_FUNCTION, 0);
	f->handler = 1;
	f->resume = t->stop;
}

/*
 * A jump into the middle of the function of frame k, deeper on the stack:
 * the frame it unwinds to. _Unwind_Resume goes on unwinding past the frame
 * that called it (a cleanup's landing pad, done): with recursion the
 * landing pad it jumps to belongs to an activation further out.
 */
static long landing_frame(struct thread *t, const struct mt_loc *dst, long k)
{
	long r, i;

	for (r = (long)t->cur.n - 1; r > k; r--)
		if (sym_class(t->cur.f[r].sym) & SC_RESUME)
			break;
	if (r != k + 1)
		return k;
	i = find_fn_below(t, dst, (size_t)k);
	return i >= 0 ? i : k;
}

/*
 * After a jump (or a return) the code runs in dst. Same function: nothing.
 * A function deeper on the stack: a longjmp, an exception or missed returns
 * unwound to it. Otherwise a tail call replaces the top frame, except after
 * longjmp, whose target is nowhere on the stack: start again there.
 */
static void land(struct thread *t, const struct mt_branch *b, uint64_t time,
		 int after_return)
{
	const struct mt_loc *dst = &b->to;
	struct frame *f = top(t);
	struct mt_loc resume;
	int handler;
	long k;

	if (!dst->ip)
		return;
	if (!f) {
		infer(t, dst);
		return;
	}
	if (same_fn(dst, f))
		return;
	if (!after_return && (sym_class(f->sym) & SC_GOGO) &&
	    same_fn(&b->from, f) && !(sym_class(dst->sym) & SC_GOGO)) {
		go_switch(t, b, time);
		return;
	}
	k = find_fn(t, dst);
	/* a PLT stub jumps to its target or to the PLT header (lazy
	 * binding), which may be unsymbolised code of the caller's file */
	if (k >= 0 && (after_return ||
			(dst->off != 0 && !(sym_class(b->from.sym) & SC_PLT)))) {
		k = landing_frame(t, dst, k);
		while (t->cur.n > (size_t)k + 1)
			pop(t, time, 0);
		return;
	}
	if (!after_return && dst->off != 0 &&
	    (sym_class(b->from.sym) & SC_LONGJMP)) {
		reset(t, time, 0);
		infer(t, dst);
		return;
	}
	/* a tail call, or a caller we had wrong: replace the top frame (a
	 * signal handler's frame stays one) */
	handler = f->handler;
	resume = f->resume;
	pop(t, time, 0);
	if (after_return)
		push(t, dst, time,
		     is_kernel(dst->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION,
		     MT_SF_INFERRED);
	else
		call(t, dst, time);
	top(t)->handler = handler;
	top(t)->resume = resume;
}

/*
 * Go: gogo leaves g0 for a goroutine's stack. Called by runtime.execute,
 * the scheduler, it starts a goroutine's run, and which goroutine that is
 * the branches do not tell: every frame of the thread ends, and the code
 * it jumps to is where a new segment begins (as at a trace's start; the
 * returns of the run reveal its callers). Otherwise (newstack after
 * morestack, recovery or goschedguarded_m after mcall) the goroutine that
 * left through runtime.morestack or runtime.mcall goes on: the frames from
 * that one up end, and the jump lands in its stack, unwinding to the
 * function it lands in, or past every frame known when that is none of
 * them. With neither on the stack, start again there as well.
 */
static void go_switch(struct thread *t, const struct mt_branch *b,
		      uint64_t time)
{
	size_t i;

	for (i = t->cur.n; i > 0; i--) {
		unsigned c = sym_class(t->cur.f[i - 1].sym);

		if (c & SC_GOEXECUTE)
			break;
		if (c & SC_GOSWITCH) {
			while (t->cur.n >= i)
				pop(t, time, 0);
			if (find_fn(t, &b->to) < 0) {
				/* further out than every frame known (a frame
				 * the trace never showed may lie between):
				 * they end, and the code there ran since the
				 * segment began */
				while (t->cur.n)
					pop(t, time, 0);
			}
			land(t, b, time, 0);
			return;
		}
	}
	reset(t, time, 0);
	infer(t, &b->to);
}

/* With the stack empty, a return from the function at from: it ran since
 * the segment began, one level further out than all seen so far. */
static void reveal(struct thread *t, const struct mt_loc *from, uint64_t time)
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
	finish(t, NULL, &s, NULL);
	t->cur.empty_depth = r.depth;
}

static void do_return(struct thread *t, const struct mt_branch *b,
		      uint64_t time)
{
	struct frame *f = top(t);

	if (f && f->pseudo) {
		/* a return while a pseudo frame is open: it ends here */
		pop(t, time, 0);
		f = top(t);
	}
	if (!f) {
		/* returning past the start of the trace reveals the caller
		 * chain one frame at a time */
		reveal(t, &b->from, time);
		land(t, b, time, 1);
		return;
	}
	if (!same_fn(&b->from, f) && (b->from.sym || b->from.off != MT_NONE64)) {
		long k = find_fn(t, &b->from);

		if (k < 0) {
			/* a return from a function whose call was not seen
			 * (lost data, a missed probe): it tells where the code
			 * is now, and nothing about when that function began */
			land(t, b, time, 1);
			return;
		}
		while (t->cur.n > (size_t)k + 1)
			pop(t, time, 0);
	}
	if ((sym_class(top(t)->sym) & SC_GOGO) && !(b->flags & MT_BF_PROBE)) {
		go_switch(t, b, time);
		return;
	}
	if (top(t)->handler) {
		/* into the signal restorer, whose sigreturn resumes the
		 * interrupted code: it is nobody's frame */
		t->stop = top(t)->resume;
		t->sigreturn = 1;
		pop(t, time, 0);
		return;
	}
	pop(t, time, 0);
	land(t, b, time, 1);
}

/* ---- uprobes ---- */

/* Output name ids of the functions probed at entry only (MARK entry-only). */
static uint8_t *entry_only;
static size_t entry_only_cap;
static unsigned long long n_entry_only;

static int is_entry_only_mark(const struct mt_mark *m)
{
	const char *name;
	size_t len;

	if (m->kind != MT_MARK_GENERIC || !m->name || !m->text)
		return 0;
	name = mt_reader_str(&in, m->name, &len);
	return name && len == 10 && !memcmp(name, "entry-only", 10);
}

static void add_entry_only(uint32_t text)
{
	uint32_t id = map_id(text);

	grow_or_die(&entry_only, &entry_only_cap, id, sizeof(*entry_only));
	if (!entry_only[id])
		n_entry_only++;
	entry_only[id] = 1;
}

static int is_entry_only(uint32_t sym)
{
	uint32_t id;

	if (!n_entry_only || !sym)
		return 0;
	id = map_id(sym);
	return id < entry_only_cap && entry_only[id];
}

/*
 * Whether a probe's return from l is frame f's function: by entry address
 * when both have one, else by name (perf probe names the function; the
 * DSO of a return is its caller's).
 */
static int probe_same_fn(const struct mt_loc *l, const struct frame *f)
{
	if (f->pseudo)
		return 0;
	if (l->ip && f->addr)
		return (l->off == MT_NONE64 ? l->ip : l->ip - l->off) == f->addr;
	return l->sym && l->sym == f->sym;
}

/* A probed function's entry: a frame, or an instant when it has no return
 * probe. */
static void probe_call(struct thread *t, const struct mt_branch *b,
		       uint64_t time)
{
	if (is_entry_only(b->to.sym)) {
		struct frame f;
		struct mt_span s;

		frame_init(t, &f, &b->to, time, MT_SPAN_FUNCTION, 0);
		span_of(t, &f, time, 0, &s);
		finish(t, parent_of(t, t->cur.n), &s, NULL);
		return;
	}
	call(t, &b->to, time);
}

/*
 * A probed function returns: its frame ends, and those above it (their
 * returns were missed). Probes see only the probed functions, so the
 * return address reveals nothing: the code there may be an unprobed
 * caller's. A function not on the stack was called before the segment
 * began and held all of it.
 */
static void probe_return(struct thread *t, const struct mt_branch *b,
			 uint64_t time)
{
	size_t i;

	for (i = t->cur.n; i > 0; i--)
		if (probe_same_fn(&b->from, &t->cur.f[i - 1])) {
			while (t->cur.n >= i)
				pop(t, time, 0);
			return;
		}
	while (t->cur.n)
		pop(t, time, 0);
	reveal(t, &b->from, time);
}

/* A decode gap ends when the thread's events resume. */
static void end_gap(struct thread *t, uint64_t time)
{
	struct frame g = { 0 };
	struct mt_span s;

	if (!t->gap)
		return;
	t->gap = 0;
	g.start = t->gap_start;
	g.depth = next_depth(t);
	g.kind = MT_SPAN_GAP;
	g.pseudo_id = t->gap_name;
	span_of(t, &g, time, 0, &s);
	finish(t, NULL, &s, NULL);
}

/* The kernel stack's frames end; the interrupted stack continues. */
static void leave_kernel(struct thread *t, uint64_t time)
{
	while (t->cur.n)
		pop(t, time, 0);
	stack_release(&t->cur);
	t->cur = t->inactive[--t->ninactive];
}

static void branch(struct thread *t, const struct mt_branch *b, uint64_t time)
{
	unsigned k = b->kind;
	int begin = b->flags & MT_BF_BEGIN, end = b->flags & MT_BF_END;
	int first = t->fresh, sigreturn = t->sigreturn;

	if (time > cut_time) {
		n_after_cut++;
		return;
	}
	if (time < t->last_time)
		time = t->last_time; /* keep each thread's time monotonic */
	if (!t->started) {
		t->seg_start = time;
		t->started = 1;
	}
	t->fresh = 0;
	t->last_time = time;
	t->sigreturn = 0;
	end_gap(t, time);
	if (t->ninactive && b->to.ip && !is_kernel(b->to.ip) &&
	    (!b->from.ip || !is_kernel(b->from.ip)))
		leave_kernel(t, time); /* user code runs again */

	if (b->flags & MT_BF_PROBE) {
		if (k == MT_BR_CALL)
			probe_call(t, b, time);
		else if (k == MT_BR_RETURN)
			probe_return(t, b, time);
		return;
	}
	if (begin && end)
		return; /* "tr strt tr end": nothing happened */
	if (end) {
		if (!t->tracing) {
			if (!n_bad_end++)
				warn("%s: 'tr end' while not tracing (tid %u at %llu ns); "
				     "disbelieved, further ones are only counted",
				     in_name, t->tid, (unsigned long long)time);
			return;
		}
		if (k == MT_BR_RETURN && t->cur.n)
			pop(t, time, 0);
		else if (k == MT_BR_CALL && b->to.ip)
			call(t, &b->to, time);
		if (!sigreturn && !is_kernel(b->from.ip))
			t->stop = b->from;
		t->tracing = 0;
		push_frame(t, NULL, time,
			   k == MT_BR_SYSCALL ? MT_SPAN_SYSCALL : MT_SPAN_UNTRACED,
			   0, k == MT_BR_SYSCALL ? "[syscall]" : "[untraced]");
		return;
	}
	if (begin) {
		if (t->tracing) {
			if (!first && !n_bad_start++)
				warn("%s: 'tr strt' while tracing (tid %u at %llu ns); "
				     "disbelieved, further ones are only counted",
				     in_name, t->tid, (unsigned long long)time);
			if (!t->cur.n && b->to.ip)
				infer(t, &b->to);
			return;
		}
		t->tracing = 1;
		if (top(t) && top(t)->pseudo)
			pop(t, time, 0);
		if (handler_entry(t, &b->to)) {
			enter_handler(t, &b->to, time);
			return;
		}
		/* not a tail call check: a page fault on a call's target
		 * resumes in the callee */
		if (!t->cur.n && b->to.ip)
			infer(t, &b->to);
		return;
	}
	if (!t->tracing) {
		/* events while not tracing: tracing evidently resumed */
		t->tracing = 1;
		if (top(t) && top(t)->pseudo)
			pop(t, time, 0);
	}
	switch (k) {
	case MT_BR_CALL:
		if (!t->cur.n && b->from.ip)
			infer(t, &b->from);
		call(t, &b->to, time);
		break;
	case MT_BR_RETURN:
		do_return(t, b, time);
		break;
	case MT_BR_SYSCALL:
	case MT_BR_HWINT:
	case MT_BR_INT:
	case MT_BR_ASYNC:
		if (is_kernel(b->to.ip) && !is_kernel(b->from.ip)) {
			/* into the kernel: the user stack waits */
			if (!t->cur.n && b->from.ip)
				infer(t, &b->from);
			if (!sigreturn)
				t->stop = b->from;
			if (t->ninactive == t->capinactive) {
				size_t cap = t->capinactive ? t->capinactive * 2 : 4;
				struct stack *v = realloc(t->inactive, cap * sizeof(*v));

				if (!v)
					die(MT_EXIT_SYSTEM, "out of memory");
				t->inactive = v;
				t->capinactive = cap;
			}
			t->inactive[t->ninactive++] = t->cur;
			memset(&t->cur, 0, sizeof(t->cur));
			t->cur.empty_depth = t->inactive[t->ninactive - 1].n ?
				t->inactive[t->ninactive - 1].f[t->inactive[t->ninactive - 1].n - 1].depth + 1 :
				t->inactive[t->ninactive - 1].empty_depth;
			push(t, &b->to, time, MT_SPAN_KERNEL, 0);
		} else {
			land(t, b, time, 0);
		}
		break;
	case MT_BR_IRET:
	case MT_BR_SYSRET:
		if (t->ninactive && is_kernel(b->from.ip)) {
			leave_kernel(t, time);
			if (handler_entry(t, &b->to)) {
				enter_handler(t, &b->to, time);
				break;
			}
		}
		land(t, b, time, 1);
		break;
	case MT_BR_NONE:
		if (b->flags & MT_BF_NOFLAGS) {
			if (!n_noflags++)
				warn("%s: branches without a flags column: calls and "
				     "returns cannot be told apart; run perf script "
				     "with -F ...,flags", in_name);
		}
		land(t, b, time, 0);
		break;
	default: /* jcc, jmp, tx abrt, vmentry, vmexit */
		if (!t->cur.n && b->from.ip)
			infer(t, &b->from);
		land(t, b, time, 0);
		break;
	}
	if (t->trigger && k == MT_BR_RETURN && !cut_pending) {
		/* the stop indicator returned: the trace ends here */
		uint32_t from = b->from.sym ? map_id(b->from.sym) : 0;

		if (from == t->trigger_name) {
			cut_time = time;
			cut_pending = 1;
		}
	}
}

/* ---- spreading equal timestamps ---- */

/*
 * Whether b starts a frame, and so takes a share of the time its timestamp
 * group is spread over. A trace end starts an [untraced] or [syscall]
 * frame: without its share, one after the group's last call would start at
 * the next timestamp, where the next group's first event, the trace start,
 * ends it; zero-length there, it is not inside its frame when the frame
 * returns right after (a system call's wrapper), and viewers nest it
 * beside the frame instead.
 */
static int consumes_time(const struct mt_branch *b)
{
	if ((b->flags & (MT_BF_BEGIN | MT_BF_END)) == MT_BF_END)
		return 1;
	if (b->flags & (MT_BF_BEGIN | MT_BF_END))
		return 0;
	switch (b->kind) {
	case MT_BR_CALL:
	case MT_BR_SYSCALL:
	case MT_BR_HWINT:
	case MT_BR_INT:
		return 1;
	case MT_BR_JMP:
		return b->to.off == 0 && b->to.sym != b->from.sym;
	default:
		return 0;
	}
}

/*
 * Events that share a timestamp are laid out over the interval to the next
 * distinct time: each event that starts a frame takes an equal integer
 * share (the first ones get nothing when there are more such events than
 * nanoseconds); other events take the time where the previous share ended.
 * So nesting comes out right in viewers that cannot nest zero-length spans.
 */
static void flush_batch(struct thread *t, uint64_t next)
{
	uint64_t t0, left, cursor;
	size_t i, consumers = 0;

	if (!t->nbatch)
		return;
	t0 = t->batch[0].time;
	left = next != MT_NONE64 && next > t0 ? next - t0 : 0;
	for (i = 0; i < t->nbatch; i++)
		consumers += consumes_time(&t->batch[i]);
	cursor = t0;
	for (i = 0; i < t->nbatch; i++) {
		const struct mt_branch *b = &t->batch[i];
		uint64_t at = cursor;

		if (consumes_time(b) && consumers) {
			uint64_t share = left / consumers;

			cursor += share;
			left -= share;
			consumers--;
		}
		branch(t, b, at);
	}
	t->nbatch = 0;
}

static void add_branch(struct thread *t, const struct mt_branch *b)
{
	uint64_t time = b->time == MT_NONE64 ? t->last_time : b->time;

	if (time > cut_time) {
		n_after_cut++;
		return;
	}
	if (!spread) {
		branch(t, b, time);
		return;
	}
	if (t->nbatch && t->batch[0].time != time)
		flush_batch(t, time);
	if (t->nbatch == t->capbatch) {
		size_t cap = t->capbatch ? t->capbatch * 2 : 16;
		struct mt_branch *v = realloc(t->batch, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		t->batch = v;
		t->capbatch = cap;
	}
	t->batch[t->nbatch] = *b;
	t->batch[t->nbatch].time = time;
	t->nbatch++;
}

/* ---- the end of a thread, errors, snapshots, triggers ---- */

/*
 * Whether the thread's last event started a frame under another one: ended
 * there, it would be zero-length at the end of its caller, and viewers
 * would nest it beside it (a thread whose trace ends in a system call).
 */
static int starts_at_end(struct thread *t)
{
	struct frame *f = top(t);

	return f && f->start == t->last_time && parent_of(t, t->cur.n - 1);
}

/* The thread's events end (or a snapshot does): what is open stays open.
 * Spreading, a frame the last event started gets the nanosecond after it
 * (there is no next time to spread over). */
static void end_thread(struct thread *t)
{
	flush_batch(t, MT_NONE64);
	if (t->last_seen > t->last_time && t->last_seen <= cut_time)
		t->last_time = t->last_seen;
	else if (spread && starts_at_end(t) && t->last_time < cut_time &&
		 t->last_time < MT_NONE64 - 1)
		t->last_time++;
	end_gap(t, t->last_time);
	reset(t, t->last_time, MT_SF_OPEN);
	t->started = 0;
	t->tracing = 1;
}

static void error(struct thread *t, const struct mt_error *e)
{
	uint64_t time = e->time == MT_NONE64 ? t->last_time : e->time;
	char name[300];
	const char *msg = mt_reader_str(&in, e->msg, NULL);

	flush_batch(t, time);
	if (time < t->last_time)
		time = t->last_time;
	end_gap(t, time);
	reset(t, time, MT_SF_OPEN);
	t->last_time = time;
	t->tracing = 1;
	snprintf(name, sizeof(name), "[%s: %.250s]",
		 e->class == MT_ERRC_LOST ? "lost data" : "decode error",
		 msg ? msg : "?");
	t->gap = 1;
	t->gap_start = time;
	t->gap_name = out_lit(name);
}

/* Every thread's trace ends at cut_time. */
static void cut_all(void)
{
	size_t i;

	cut_pending = 0;
	for (i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];

		flush_batch(t, MT_NONE64);
		if (t->started)
			end_thread(t);
	}
}

static void mark(const struct mt_mark *m)
{
	size_t i;

	if (m->tid != MT_NONE32 && m->time != MT_NONE64) {
		/* the thread was running then */
		struct thread *t = thread_get(m->pid, m->tid);

		if (m->time > t->last_seen)
			t->last_seen = m->time;
	}

	if (m->kind == MT_MARK_SNAPSHOT) {
		/* a new snapshot: nothing carries over */
		for (i = 0; i < nthreads; i++)
			end_thread(&threads[i]);
		cut_time = MT_NONE64;
	} else if (m->kind == MT_MARK_TRIGGER && !keep_after_trigger) {
		uint32_t name = m->text ? map_id(m->text) : 0;

		if (!name) {
			/* no function named: the trace ends at the mark */
			cut_time = m->time;
			cut_all();
			return;
		}
		for (i = 0; i < nthreads; i++) {
			struct thread *t = &threads[i];

			if (m->tid == MT_NONE32 || m->tid == t->tid) {
				t->trigger = 1;
				t->trigger_name = name;
			}
		}
		if (m->tid != MT_NONE32) {
			struct thread *t = thread_get(m->pid, m->tid);

			t->trigger = 1;
			t->trigger_name = name;
		}
	}
}

/* ---- sampled stacks become a timeline ---- */

static void sample(struct thread *t, const struct mt_sample *s)
{
	uint64_t time = s->time == MT_NONE64 ? t->last_time : s->time;
	size_t n = s->nframes, k = 0;
	uint32_t i;

	if (time > cut_time) {
		n_after_cut++;
		return;
	}
	if (time < t->last_time)
		time = t->last_time;
	if (!t->started) {
		t->seg_start = time;
		t->started = 1;
	}
	t->fresh = 0;
	t->last_time = time;
	/* frames common with the previous sample, from the root, continue */
	while (k < t->cur.n && k < n) {
		const struct mt_loc *l = &s->frames[n - 1 - k];

		if (!same_fn(l, &t->cur.f[k]))
			break;
		k++;
	}
	while (t->cur.n > k)
		pop(t, time, 0);
	for (i = (uint32_t)k; i < n; i++) {
		const struct mt_loc *l = &s->frames[n - 1 - i];

		push(t, l, time, is_kernel(l->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION, 0);
	}
}

/* ---- main loop ---- */

static void pass_string_ids(struct mt_record *r)
{
	switch (r->type) {
	case MT_REC_THREAD:
		r->u.thread.comm = map_id(r->u.thread.comm);
		check(mt_write_thread(&out, &r->u.thread));
		break;
	case MT_REC_ERROR:
		r->u.error.msg = map_id(r->u.error.msg);
		check(mt_write_error(&out, &r->u.error));
		break;
	case MT_REC_MARK:
		r->u.mark.name = map_id(r->u.mark.name);
		r->u.mark.text = map_id(r->u.mark.text);
		check(mt_write_mark(&out, &r->u.mark));
		break;
	case MT_REC_META:
		r->u.meta.key = map_id(r->u.meta.key);
		r->u.meta.value = map_id(r->u.meta.value);
		check(mt_write_meta(&out, &r->u.meta));
		break;
	case MT_REC_SPAN:
		r->u.span.name = map_id(r->u.span.name);
		r->u.span.dso = map_id(r->u.span.dso);
		check(mt_write_span(&out, &r->u.span));
		break;
	}
}

static void each_thread(uint32_t pid, uint32_t tid,
			void (*fn)(struct thread *, const void *), const void *arg)
{
	size_t i;

	if (tid != MT_NONE32) {
		fn(thread_get(pid, tid), arg);
		return;
	}
	for (i = 0; i < nthreads; i++)
		if (pid == MT_NONE32 || threads[i].pid == pid)
			fn(&threads[i], arg);
}

static void error_fn(struct thread *t, const void *arg)
{
	error(t, arg);
}

static void run(void)
{
	struct mt_record r;
	int got, show = mt_progress_enabled();
	unsigned long long nrec = 0;
	size_t i;

	while ((got = mt_reader_next(&in, &r)) > 0) {
		if (show && !(++nrec & 0xfffff))
			fprintf(stderr, "\r%s: %llu records", mt_progname(), nrec);
		switch (r.type) {
		case MT_REC_END:
			break;
		case MT_REC_STRING:
			forget_id(r.u.string.id);
			break;
		case MT_REC_BRANCH:
			n_branches++;
			add_branch(thread_get(r.u.branch.pid, r.u.branch.tid),
				   &r.u.branch);
			break;
		case MT_REC_SAMPLE:
			n_samples++;
			sample(thread_get(r.u.sample.pid, r.u.sample.tid),
			       &r.u.sample);
			break;
		case MT_REC_ERROR: {
			struct mt_error e = r.u.error;

			each_thread(e.pid, e.tid, error_fn, &e);
			pass_string_ids(&r);
			break;
		}
		case MT_REC_MARK: {
			struct mt_mark m = r.u.mark;

			if (is_entry_only_mark(&m)) {
				/* timeless, for this stage only */
				add_entry_only(m.text);
				break;
			}
			pass_string_ids(&r);
			mark(&m);
			break;
		}
		case MT_REC_THREAD:
		case MT_REC_META:
		case MT_REC_SPAN:
			pass_string_ids(&r);
			break;
		default:
			check(mt_write_raw(&out, r.raw, r.raw_len));
			break;
		}
		if (cut_pending)
			cut_all();
	}
	if (got < 0)
		die_reader(&in, got, in_name);
	if (show && nrec > 0xfffff)
		fputs("\r\033[K", stderr);
	for (i = 0; i < nthreads; i++)
		end_thread(&threads[i]);
}

static void report(int verbose)
{
	unsigned long long odd = n_bad_end + n_bad_start + n_noflags + n_after_cut;

	if (!verbose && !odd)
		return;
	fprintf(stderr, "%s: %s: %llu branches, %llu samples, %zu threads, "
		"%llu spans written\n", mt_progname(), in_name, n_branches,
		n_samples, nthreads, n_spans);
	if (n_bad_end)
		fprintf(stderr, "  %llu 'tr end' while not tracing, ignored\n", n_bad_end);
	if (n_bad_start)
		fprintf(stderr, "  %llu 'tr strt' while tracing, ignored\n", n_bad_start);
	if (n_noflags)
		fprintf(stderr, "  %llu branches without flags\n", n_noflags);
	if (n_after_cut)
		fprintf(stderr, "  %llu events after the trigger, dropped\n", n_after_cut);
	if (n_entry_only)
		fprintf(stderr, "  %llu functions probed at entry only\n", n_entry_only);
}

int main(int argc, char **argv)
{
	enum { OPT_NO_SPREAD = 256, OPT_KEEP };
	static const struct option longopts[] = {
		{ "no-spread", no_argument, NULL, OPT_NO_SPREAD },
		{ "keep-after-trigger", no_argument, NULL, OPT_KEEP },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct mt_filter_io io = { 0 };
	int c, err;

	mt_set_progname(argv[0]);
	mt_finish_on_interrupt();
	while ((c = mt_getopt(argc, argv, "o:v", longopts, USAGE)) != -1) {
		switch (c) {
		case OPT_NO_SPREAD:
			spread = 0;
			break;
		case OPT_KEEP:
			keep_after_trigger = 1;
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	output_binary_or_die("an mt stream");
	in_name = io.in_name;
	if ((err = mt_reader_init_fd(&in, io.in_fd, NULL, 0)))
		die_mt(err, "%s", in_name);
	if ((err = mt_writer_init_fd(&out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	{
		struct mt_meta m = { out_lit("stacks"), out_lit("mt-stacks") };

		check(mt_write_meta(&out, &m));
	}
	run();
	check(mt_writer_finish(&out));
	report(io.verbose);
	mt_reader_release(&in);
	mt_writer_release(&out);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
