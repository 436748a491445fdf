/*
 * mt-stacks' pieces, seen by each other (not a library): the per-thread
 * stack and its index (stack.c), branches, returns and jumps (branch.c),
 * uprobes and sampled stacks (probe.c), the stream in and out, the
 * spreading of equal timestamps and main (mt-stacks.c). Each thread owns
 * its stacks, their frames and the spans they hold.
 */
#ifndef MT_STACKS_H
#define MT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"
#include "tidtable.h"

/* ---- mt-stacks.c: the run's state ---- */

struct thread;

/*
 * Everything one run of mt-stacks shares across its files: the stream in
 * and out, the options, the counters, the string id maps. main() owns the
 * one instance; each thread points back to it (thread.ctx), and what has
 * no thread at hand takes it as an argument.
 */
struct stacks {
	const char *in_name; /* for messages (mt_filter_open_or_die) */
	struct mt_reader in;
	struct mt_writer out;
	int spread, keep_after_trigger;

	/* counters: nothing is dropped silently */
	unsigned long long n_branches, n_samples, n_spans, n_bad_end,
		n_bad_start, n_noflags, n_after_cut;

	/* After a trigger: events later than this are dropped. cut_pending:
	 * a trigger's function returned, every thread's trace ends at
	 * cut_time. */
	uint64_t cut_time;
	int cut_pending;

	/* mt-stacks.c: input string ids to output ids (0: not yet) */
	uint32_t *idmap;
	size_t idmap_cap;

	/* mt-stacks.c: the threads (struct thread), in order of first sight */
	struct mt_tidtable threads;

	/* branch.c: the class of each input symbol id, cached (sym_class) */
	uint8_t *classes;
	size_t classes_cap;

	/* probe.c: output name ids of the functions probed at entry only
	 * (MARK entry-only), and how many */
	uint8_t *entry_only;
	size_t entry_only_cap;
	unsigned long long n_entry_only;

	/* probe.c: output name ids of the events whose samples are instants
	 * (MARK event), and how many such samples became one */
	uint8_t *events;
	size_t events_cap;
	unsigned long long n_event_samples;
};

/* Die unless err is 0 (a write to the stream). */
void stacks_check(int err);
/* The output id of a string, of a C string, of input string id (0 stays
 * 0; dies when id is not defined). */
uint32_t stacks_out_str(struct stacks *ctx, const char *s, size_t len);
uint32_t stacks_out_lit(struct stacks *ctx, const char *s);
uint32_t stacks_map_id(struct stacks *ctx, uint32_t id);

/* ---- the per-thread stack ---- */

struct spans {
	struct mt_span *v;
	size_t n, cap;
};

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
	struct stacks *ctx;    /* the run the thread belongs to */
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

static inline int is_kernel(uint64_t ip)
{
	return ip >= 0xffff800000000000ull;
}

static inline struct frame *top(struct thread *t)
{
	return t->cur.n ? &t->cur.f[t->cur.n - 1] : NULL;
}

/* The frame a new span would nest under: the top of the current stack, or,
 * for a kernel stack's first frame, the interrupted frame. */
static inline struct frame *parent_of(struct thread *t, size_t i)
{
	if (i > 0)
		return &t->cur.f[i - 1];
	if (t->ninactive) {
		struct stack *s = &t->inactive[t->ninactive - 1];

		return s->n ? &s->f[s->n - 1] : NULL;
	}
	return NULL;
}

static inline int32_t next_depth(struct thread *t)
{
	struct frame *f = top(t);

	return f ? f->depth + 1 : t->cur.empty_depth;
}

/*
 * Whether the code at l belongs to frame f's function: the same entry
 * address when perf printed offsets (two instances of one generic can
 * share a name), otherwise the same symbol and DSO.
 */
static inline int same_fn(const struct mt_loc *l, const struct frame *f)
{
	if (f->pseudo)
		return 0;
	if (f->exact && l->off != MT_NONE64 && l->ip)
		return l->ip - l->off == f->addr;
	if (l->sym != f->sym)
		return 0;
	return !l->sym ? l->dso == f->dso : (l->dso == f->dso || !l->dso || !f->dso);
}

/* ---- stack.c: frames in, spans out ---- */

/* Free a stack's frames and index (not its held spans). */
void stack_release(struct stack *s);
/* f: a frame for the function at l (NULL: none) at the depth a call on
 * thread t takes, not on any stack. */
void frame_init(struct thread *t, struct frame *f, const struct mt_loc *l,
		uint64_t start, uint8_t kind, uint16_t flags);
/* A frame on top of t's current stack, indexed unless it is a pseudo
 * frame (pseudo: its name; NULL for a function's frame, stack_push()). */
struct frame *push_frame(struct thread *t, const struct mt_loc *l,
			 uint64_t start, uint8_t kind, uint16_t flags,
			 const char *pseudo);
struct frame *stack_push(struct thread *t, const struct mt_loc *l, uint64_t start,
			 uint8_t kind, uint16_t flags);
/* s: the span of frame f ending at end, with flags added. */
void span_of(const struct thread *t, const struct frame *f, uint64_t end,
	     uint16_t flags, struct mt_span *s);
/* Hand finished span s, then the spans held (NULL: none), to parent (NULL:
 * none), the segment's root list or the output; held is emptied. */
void stack_finish(struct thread *t, struct frame *parent, struct mt_span *s,
		  struct spans *held);
/* The top frame of t's current stack ends at end. */
void stack_pop(struct thread *t, uint64_t end, uint16_t flags);
/* Every frame of every stack of t ends at end; a new segment starts. */
void stack_reset(struct thread *t, uint64_t end, uint16_t flags);
/* Index of the nearest frame below frame limit (find_fn: from the top)
 * of the function at l (same_fn()), or -1. */
long find_fn_below(struct thread *t, const struct mt_loc *l, size_t limit);
long find_fn(struct thread *t, const struct mt_loc *l);
/* The code runs in dst since the segment began: the bottom frame,
 * inferred. */
void stack_infer(struct thread *t, const struct mt_loc *dst);
/* A call to dst at time. */
void stack_call(struct thread *t, const struct mt_loc *dst, uint64_t time);
/* With the stack empty, a return from the function at from: its span,
 * inferred, one level further out than all seen. */
void stack_reveal(struct thread *t, const struct mt_loc *from, uint64_t time);

/* ---- branch.c: the rules ---- */

/* A STRING record redefined input id sym. */
void forget_class(struct stacks *ctx, uint32_t sym);
/* Branch b of thread t happens at time (after spreading). */
void branch_apply(struct thread *t, const struct mt_branch *b, uint64_t time);
/* A decode gap of t, if one is open, ends at time. */
void end_gap(struct thread *t, uint64_t time);

/* ---- probe.c: uprobes and sampled stacks ---- */

/* Functions probed at entry only, from "entry-only" marks (MARK generic,
 * name "entry-only", text the function): their calls are instants
 * (counted in ctx->n_entry_only). */
int is_entry_only_mark(struct stacks *ctx, const struct mt_mark *m);
void add_entry_only(struct stacks *ctx, uint32_t text);
/* A uprobe's hit (MT_BF_PROBE): a probed function's entry, or its
 * return. */
void probe_call(struct thread *t, const struct mt_branch *b, uint64_t time);
void probe_return(struct thread *t, const struct mt_branch *b, uint64_t time);
/* A sampled stack: frames common with the last sample go on, the others
 * end or start. */
void probe_sample(struct thread *t, const struct mt_sample *s);
/* Events whose samples are instants, from "event" marks (MARK generic,
 * name "event", text the event's name: mt-record --events): such a
 * sample is written as a MARK of kind event (name the event, text the
 * sampled function, value the period, ip the sampled address) and leaves
 * the stacks alone. */
int is_event_mark(struct stacks *ctx, const struct mt_mark *m);
void add_event(struct stacks *ctx, uint32_t text);
int is_event_sample(struct stacks *ctx, const struct mt_sample *s);
void event_sample(struct thread *t, const struct mt_sample *s);

#endif
