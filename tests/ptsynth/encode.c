/*
 * Per thread: the Intel PT packets for its executed instructions, the
 * times perf will give its branches, and the truth (tests/ptsynth/
 * README.md).
 *
 * Times. perf gives a branch the TSC of the last TSC packet before the
 * packet the decoder consumed for it, and a direct branch (no packet) the
 * time of the last branch that consumed one (intel_pt_decode() updates the
 * sample time only in states that consumed a packet). So: every TSC packet
 * is preceded by the pending TNT bits (which keep the older time), and the
 * time of any branch is the last TSC written when it was encoded. Fine
 * timing writes a TSC before every TNT bit and TIP, so a TNT packet holds
 * one bit; coarse timing writes one only after COARSE_NS and before each
 * TIP.PGE (perf estimates the time of a trace start from the instruction
 * count since the last TSC; with a TSC just before it, the estimate is that
 * TSC).
 *
 * The truth's stacks follow the real stack pointer: a call pushes a frame
 * whose return address sits at rsp after the call; a ret, or a jump into
 * another function, ends every frame whose return address is below the
 * stack pointer (longjmp, exceptions). A jump into another function that
 * unwinds nothing is a tail call; a return into another function than the
 * caller's frame's (code after a call that belongs to the next symbol)
 * starts that function in the same frame, flagged inferred, as mt-stacks
 * documents. Signal handlers are frames of their own under the
 * interrupted function. Go programs: see "Go: one stack per goroutine".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "ptsynth.h"
#include "xalloc.h"
#include "banned.h"

#define PSB_EVERY 4096
#define COARSE_NS 500
#define NO_SLOT UINT64_MAX

enum pseudo { PS_NONE, PS_SYSCALL, PS_UNTRACED };

struct frame {
	uint64_t entry;
	const char *name;
	uint64_t start;
	uint64_t slot;		/* where its return address is; NO_SLOT */
	int64_t depth;
	uint8_t pseudo;
	uint8_t inferred;
	uint8_t handler;	/* a signal handler: returns to the restorer */
	uint8_t hidden;		/* Go: a resumed goroutine's frame that its
				 * run has not returned into (yet) */
	uint64_t owner;		/* Go: the g whose stack holds slot; 0 for
				 * none known (and for all frames of other
				 * programs) */
};

struct thread {
	uint32_t pid, tid;
	/* PT */
	uint8_t *pt;
	size_t n, cap;
	size_t last_psb;
	unsigned tnt, ntnt;
	uint64_t tsc;		/* last TSC written */
	uint64_t reference;
	int tracing;
	int ended;
	/* truth */
	struct frame *f;
	size_t nf, capf;
	int started;
	uint64_t seg_start, last_event;
	/* Go: the stack rsp is in (owner 0: none known), and the goroutine
	 * whose run the thread is in (0: the thread's first run, on g0) */
	uint64_t owner, own_lo, own_hi;
	int had_g;
	uint64_t run_g;
	int64_t popped_depth;	/* of the last frame ended */
	uint64_t fs;		/* FS base at the last instruction */
};

static enum timing timing;
static FILE *truth;
static struct thread **threads;
static size_t nthreads, capthreads;

void enc_init(enum timing tm, FILE *t)
{
	timing = tm;
	truth = t;
}

struct thread *enc_thread_new(uint32_t pid, uint32_t tid)
{
	struct thread *t = xcalloc(1, sizeof(*t));

	t->pid = pid;
	t->tid = tid;
	grow_or_die(&threads, &capthreads, nthreads, sizeof(*threads));
	threads[nthreads++] = t;
	return t;
}

/* ---- packets ---- */

static void out(struct thread *t, const uint8_t *b, size_t n)
{
	if (t->n + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 65536;

		while (cap < t->n + n)
			cap *= 2;
		t->pt = xrealloc(t->pt, cap, 1);
		t->cap = cap;
	}
	memcpy(t->pt + t->n, b, n);
	t->n += n;
}

static void out_ip(struct thread *t, uint8_t header, uint64_t ip)
{
	uint8_t b[9];

	b[0] = header;
	for (int i = 0; i < 8; i++)
		b[1 + i] = (uint8_t)(ip >> (8 * i));
	out(t, b, 9);
}

static void flush_tnt(struct thread *t)
{
	uint8_t b;

	if (!t->ntnt)
		return;
	/* short TNT: stop bit, then the bits, oldest first; bit 0 is 0 */
	b = (uint8_t)((1u << (t->ntnt + 1)) | (t->tnt << 1));
	out(t, &b, 1);
	t->tnt = t->ntnt = 0;
}

static void put_tsc(struct thread *t, uint64_t time)
{
	uint8_t b[8];

	flush_tnt(t);
	b[0] = 0x19;
	for (int i = 0; i < 7; i++)
		b[1 + i] = (uint8_t)(time >> (8 * i));
	out(t, b, 8);
	t->tsc = time;
}

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};
static const uint8_t psbend[2] = { 0x02, 0x23 };
static const uint8_t mode_exec64[2] = { 0x99, 0x01 };

#define TIP 0xcd	/* IPBytes 6: the whole address */
#define TIP_PGE 0xd1
#define TIP_PGD_NOIP 0x01
#define FUP 0xdd

/* PSB+ now and then, so that a decoder can start there; ip is where the
 * code is (the FUP), 0 while not tracing. */
static void maybe_psb(struct thread *t, uint64_t time, uint64_t ip)
{
	if (t->n - t->last_psb < PSB_EVERY)
		return;
	flush_tnt(t);
	t->last_psb = t->n;
	out(t, psb, sizeof(psb));
	put_tsc(t, time);
	out(t, mode_exec64, sizeof(mode_exec64));
	if (ip)
		out_ip(t, FUP, ip);
	out(t, psbend, sizeof(psbend));
}

/* Before a packet for a branch at ip: PSB and TSC as due. */
static void before_packet(struct thread *t, uint64_t time, uint64_t ip,
			  int force_tsc)
{
	maybe_psb(t, time, ip);
	if (timing == TIMING_FINE || force_tsc || time - t->tsc >= COARSE_NS) {
		if (t->tsc != time || t->ntnt)
			put_tsc(t, time);
	}
}

static void tnt_bit(struct thread *t, int taken)
{
	t->tnt = (t->tnt << 1) | (taken ? 1u : 0u);
	if (++t->ntnt == 6)
		flush_tnt(t);
}

/* ---- the truth ---- */

static void truth_branch(struct thread *t, uint64_t from, uint64_t to,
			 const char *kind)
{
	t->last_event = t->tsc;
	if (truth)
		fprintf(truth, "B\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIx64
			"\t%" PRIx64 "\t%s\n", t->pid, t->tid, t->tsc, from, to, kind);
}

static struct frame *top(struct thread *t)
{
	return t->nf ? &t->f[t->nf - 1] : NULL;
}

static struct frame *push(struct thread *t)
{
	struct frame *f;

	grow_or_die(&t->f, &t->capf, t->nf, sizeof(*t->f));
	f = &t->f[t->nf++];
	memset(f, 0, sizeof(*f));
	f->depth = t->nf > 1 ? t->f[t->nf - 2].depth + 1 : 0;
	f->slot = NO_SLOT;
	f->owner = t->owner;
	return f;
}

static void span(const struct thread *t, const struct frame *f,
		 uint64_t end, int open)
{
	const char *flags = f->inferred ? (open ? "inferred,open" : "inferred") :
					  (open ? "open" : "-");

	if (truth)
		fprintf(truth, "%c\t%" PRIu32 "\t%" PRIu32 "\t%" PRId64 "\t%" PRIu64
			"\t%" PRIu64 "\t%s\t%s\n", f->hidden ? 'H' : 'S', t->pid,
			t->tid, f->depth, f->start, end, flags, f->name);
}

static void pop(struct thread *t, uint64_t end)
{
	span(t, top(t), end, 0);
	if (!top(t)->hidden)
		t->popped_depth = top(t)->depth;
	t->nf--;
}

static void set_fn(struct frame *f, uint64_t addr)
{
	struct sym_info s;

	sym_lookup(addr, &s);
	f->entry = s.entry;
	f->name = s.name;
}

static uint64_t entry_of(uint64_t addr)
{
	struct sym_info s;

	sym_lookup(addr, &s);
	return s.entry;
}

/* End the frames whose return address is below sp, on the stack sp is in;
 * returns how many. */
static int unwind(struct thread *t, uint64_t sp, uint64_t time)
{
	int n = 0;

	while (t->nf && top(t)->slot != NO_SLOT && top(t)->slot < sp &&
	       !top(t)->pseudo && top(t)->owner == t->owner) {
		pop(t, time);
		n++;
	}
	return n;
}

/* Replace the top frame by the function at addr (same depth and slot). */
static void replace(struct thread *t, uint64_t addr, uint64_t time,
		    int inferred)
{
	struct frame *f = top(t);
	uint64_t slot = f ? f->slot : NO_SLOT;
	int hidden = f && f->hidden;

	if (f)
		pop(t, time);
	f = push(t);
	set_fn(f, addr);
	f->start = time;
	f->slot = slot;
	f->inferred = (uint8_t)inferred;
	if (hidden) {
		/* shown from the run's start, one level out of the last
		 * frame shown, as when a thread's trace begins */
		f->start = t->seg_start;
		f->inferred = 1;
		f->depth = t->popped_depth - 1;
	}
}

/* Go: the top frame, a resumed goroutine's, is where the code runs now:
 * the run shows it from its start, one level out of the last frame shown
 * (frames never shown take no level). */
static void reveal(struct thread *t)
{
	struct frame *f = top(t);

	if (f && f->hidden) {
		f->hidden = 0;
		f->start = t->seg_start;
		f->inferred = 1;
		f->depth = t->popped_depth - 1;
	}
}

/* ---- Go: one stack per goroutine ----
 *
 * A Go thread runs on several stacks: the goroutine's, its m's g0 (the
 * scheduler, systemstack, morestack, mcall) and gsignal (signal
 * handlers), each a g whose stack is [g.stack.lo, g.stack.hi]. Every frame
 * belongs to the g whose stack holds its return address; the stack pointer
 * is compared only with frames of the stack it is in. The g comes from
 * TLS (g is at FS - 8 on linux/amd64; asm_amd64.s, go_tls.h), the others
 * from g.m.g0 and g.m.gsignal (runtime2.go of Go 1.19). When a
 * goroutine's stack was copied (morestack, shrinking), its frames move by
 * the difference of the stack tops. A goroutine's run on a thread begins
 * where runtime.execute's runtime.gogo jumps into it (where Go's execution
 * tracer writes GoStart): every frame of the thread ends there; the
 * goroutine's frames come back hidden (written as H lines) and each shows
 * (as an S span from the run's start, inferred) once the run returns into
 * it. See tests/ptsynth/README.md, "The truth file".
 */

#define G_M 48		/* g.m: after stack (16), stackguard0/1, _panic, _defer */
#define M_G0 0
#define M_GSIGNAL 80	/* m.gsignal: after g0, morebuf (56), divmod, procid */

struct gstack {
	uint64_t g;
	uint64_t lo, hi;	/* the bounds its frames' slots are in */
	struct frame *f;	/* its frames while no thread runs it */
	size_t nf, capf;
	struct thread *on;	/* the thread whose run it is in */
	struct thread *last;	/* the thread of its last run */
};

static int go_mode;
static struct gstack *gstacks;
static size_t ngstacks, capgstacks;
static unsigned long long n_go_runs, n_go_moved, n_go_copies, n_go_lost;

static struct gstack *gstack_of(uint64_t g)
{
	struct gstack *r;

	for (size_t i = 0; i < ngstacks; i++)
		if (gstacks[i].g == g)
			return &gstacks[i];
	grow_or_die(&gstacks, &capgstacks, ngstacks, sizeof(*gstacks));
	r = &gstacks[ngstacks++];
	memset(r, 0, sizeof(*r));
	r->g = g;
	return r;
}

static int read_u64(const struct thread *t, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];

	if (tracee_read(t->tid, addr, b, 8) != 8)
		return 0;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return 1;
}

/* A goroutine's stack moved by delta: so do its frames, everywhere. */
static void relocate(uint64_t g, uint64_t delta)
{
	struct gstack *r = gstack_of(g);

	n_go_copies++;
	for (size_t i = 0; i < nthreads; i++)
		for (size_t j = 0; j < threads[i]->nf; j++)
			if (threads[i]->f[j].owner == g &&
			    threads[i]->f[j].slot != NO_SLOT)
				threads[i]->f[j].slot += delta;
	for (size_t j = 0; j < r->nf; j++)
		if (r->f[j].slot != NO_SLOT)
			r->f[j].slot += delta;
}

/* g's stack bounds, read now; a stack that moved (the new one does not
 * overlap the old: copystack allocates it first) moves its frames. */
static int g_bounds(const struct thread *t, uint64_t g, uint64_t *lo,
		    uint64_t *hi)
{
	struct gstack *r;

	if (!g || !read_u64(t, g, lo) || !read_u64(t, g + 8, hi) ||
	    *lo >= *hi || *hi - *lo > (1ull << 30))
		return 0;
	r = gstack_of(g);
	if (r->hi && (*hi <= r->lo || *lo >= r->hi))
		relocate(g, *hi - r->hi);
	r->lo = *lo;
	r->hi = *hi;
	return 1;
}

/* Which g's stack sp is in: t->owner. */
static void go_where(struct thread *t, uint64_t sp, uint64_t fs)
{
	uint64_t g, m, cand[3] = { 0, 0, 0 };

	if (t->owner && sp >= t->own_lo && sp <= t->own_hi)
		return;
	if (fs >= 8 && read_u64(t, fs - 8, &g) && g) {
		cand[0] = g;
		if (read_u64(t, g + G_M, &m) && m) {
			if (!read_u64(t, m + M_G0, &cand[1]))
				cand[1] = 0;
			if (!read_u64(t, m + M_GSIGNAL, &cand[2]))
				cand[2] = 0;
		}
	}
	for (int i = 0; i < 3; i++) {
		uint64_t lo, hi;

		if (g_bounds(t, cand[i], &lo, &hi) && sp >= lo && sp <= hi) {
			t->owner = cand[i];
			t->own_lo = lo;
			t->own_hi = hi;
			t->had_g = 1;
			return;
		}
	}
	if (t->had_g)
		n_go_lost++;	/* keep the last one */
	else
		t->owner = 0;
}

/* The code went over to another stack: the frames of stacks entered after
 * it (g0 after a goroutine, gsignal) are done. */
static void go_leave(struct thread *t, uint64_t time)
{
	size_t k = t->nf;

	while (k && t->f[k - 1].owner != t->owner)
		k--;
	if (!k)
		return;		/* a stack new to this thread */
	while (t->nf > k)
		pop(t, time);
}

static int named(const struct frame *f, const char *name)
{
	return f->name && !strcmp(f->name, name);
}

static int is_gogo(const struct frame *f)
{
	return named(f, "gogo") || named(f, "runtime.gogo.abi0") ||
	       named(f, "runtime.gogo");
}

/* Whether code at addr is gogo's (runtime.gogo.abi0 jumps to gogo). */
static int to_gogo(uint64_t addr)
{
	struct frame f = { 0 };

	set_fn(&f, addr);
	return is_gogo(&f);
}

/* Whether the top frame is the scheduler's gogo (called by
 * runtime.execute), which starts a goroutine's run. */
static int sched_gogo(const struct thread *t)
{
	size_t i = t->nf;

	if (!i || !is_gogo(&t->f[i - 1]))
		return 0;
	while (i && is_gogo(&t->f[i - 1]))
		i--;
	return i && named(&t->f[i - 1], "runtime.execute");
}

/* The thread's run of the goroutine rg ends: keep its frames for the
 * goroutine's next run, unless another thread runs it already. */
static void go_save(struct thread *t, uint64_t rg)
{
	struct gstack *r;

	if (!rg)
		return;
	r = gstack_of(rg);
	if (r->on != t)
		return;
	r->on = NULL;
	r->nf = 0;
	for (size_t i = 0; i < t->nf; i++)
		if (t->f[i].owner == rg && !t->f[i].pseudo) {
			grow_or_die(&r->f, &r->capf, r->nf, sizeof(*r->f));
			r->f[r->nf++] = t->f[i];
		}
}

/* runtime.execute's gogo jumps to ip with the stack pointer sp on the
 * stack of g t->owner: the thread's frames end, the goroutine's run
 * begins. */
static void go_run(struct thread *t, uint64_t ip, uint64_t sp)
{
	uint64_t g = t->owner, e = entry_of(ip);
	struct gstack *r = gstack_of(g);
	const struct frame *src;
	size_t nsrc, keep = 0;
	struct frame *f;

	n_go_runs++;
	go_save(t, t->run_g);
	while (t->nf)
		pop(t, t->tsc);
	t->seg_start = t->tsc;
	t->run_g = g;
	if (r->on && r->on != t) {
		/* it left another thread, which has not run anything since:
		 * its frames are there */
		src = r->on->f;
		nsrc = r->on->nf;
	} else {
		src = r->f;
		nsrc = r->nf;
	}
	if (ip == e)
		nsrc = 0;	/* at a function's entry: a new goroutine */
	for (size_t i = 0; i < nsrc; i++) {
		/* frames below sp were left when the goroutine stopped
		 * (mcall's, morestack's) */
		if (src[i].owner != g || src[i].pseudo ||
		    (src[i].slot != NO_SLOT && src[i].slot < sp))
			continue;
		f = push(t);
		*f = src[i];
		f->hidden = 1;
		f->handler = 0;
		f->start = t->tsc;
		f->inferred = 1;
		keep++;
	}
	if (r->last && r->last != t)
		n_go_moved++;
	r->last = t;
	r->on = t;
	r->nf = 0;
	/* the depth of a frame not shown yet is its place under the
	 * first one; shown, it is one level out of the last frame shown */
	for (size_t i = 0; i < keep; i++)
		t->f[i].depth = (int64_t)i - (int64_t)keep;
	t->popped_depth = 1;
	if (keep && top(t)->entry == e) {
		reveal(t);
		return;
	}
	/* a new goroutine: its function, whose return address (goexit's)
	 * is at sp */
	f = push(t);
	set_fn(f, ip);
	f->start = t->tsc;
	f->slot = keep ? NO_SLOT : sp;
	f->inferred = 1;
	f->depth = 0;
}

/* A goroutine's run returned (or jumped) past the first frame it showed:
 * the code at ip ran since the run began, one level further out. */
static void go_bottom(struct thread *t, uint64_t ip)
{
	struct frame *f = push(t);

	set_fn(f, ip);
	f->start = t->seg_start;
	f->depth = t->popped_depth - 1;
	f->inferred = 1;
}

/* Before a branch with the stack pointer sp after it: the stack it is on.
 * Returns 1 when it is a goroutine's run's start (handled). */
static int go_branch(struct thread *t, uint64_t to, uint64_t sp,
		     uint64_t fs, int jump)
{
	uint64_t before = t->owner;

	if (!go_mode)
		return 0;
	go_where(t, sp, fs);
	if (t->owner == before)
		return 0;
	if (jump && t->owner && sched_gogo(t) && !to_gogo(to)) {
		go_run(t, to, sp);
		return 1;
	}
	go_leave(t, t->tsc);
	return 0;
}

static void truth_call(struct thread *t, uint64_t to, uint64_t sp,
		       uint64_t fs)
{
	struct frame *f;

	go_branch(t, to, sp, fs, 0);
	f = push(t);
	set_fn(f, to);
	f->start = t->tsc;
	f->slot = sp;
}

static void truth_jump(struct thread *t, uint64_t to, uint64_t sp,
		       uint64_t fs)
{
	uint64_t e = entry_of(to);

	if (go_branch(t, to, sp, fs, 1))
		return;
	if (t->nf && top(t)->entry == e) {
		reveal(t);
		return;
	}
	if (unwind(t, sp, t->tsc) && t->nf && top(t)->entry == e) {
		reveal(t);
		return;
	}
	if (go_mode && !t->nf) {
		go_bottom(t, to);
		return;
	}
	replace(t, to, t->tsc, 0);
}

static void truth_return(struct thread *t, uint64_t to, uint64_t sp,
			 uint64_t fs)
{
	uint64_t e;
	int handler;

	go_branch(t, to, sp, fs, 0);
	e = entry_of(to);
	handler = t->nf && top(t)->handler;
	if (!unwind(t, sp, t->tsc)) {
		if (t->nf == 1 && top(t)->slot == NO_SLOT) {
			/* the function the trace began in returns: its caller
			 * was running since the start */
			int64_t d = top(t)->depth - 1;
			struct frame *f;

			pop(t, t->tsc);
			f = push(t);
			set_fn(f, to);
			f->start = t->seg_start;
			f->depth = d;
			f->inferred = 1;
			return;
		}
		/* a ret that matches no call: it ends the function */
		handler = t->nf && top(t)->handler;
		if (t->nf)
			pop(t, t->tsc);
	}
	if (go_mode && !t->nf) {
		/* a goroutine's run returned past its first frame */
		go_bottom(t, to);
		return;
	}
	if (!handler && t->nf && top(t)->entry != e)
		replace(t, to, t->tsc, 1);
	else
		reveal(t);
}

/* ---- the interface ---- */

void enc_begin(struct thread *t, uint64_t ip, uint64_t time,
	       uint64_t handler_rsp, uint64_t rsp, int sigreturn)
{
	struct frame *f;

	if (t->tracing)
		die(MT_EXIT_SYSTEM, "internal error: trace of %u begins twice",
		    t->tid);
	if (!t->n) {
		t->reference = time;
		t->last_psb = 0;
		out(t, psb, sizeof(psb));
		put_tsc(t, time);
		out(t, psbend, sizeof(psbend));
		out(t, mode_exec64, sizeof(mode_exec64));
	} else {
		before_packet(t, time, 0, 1);
	}
	out_ip(t, TIP_PGE, ip);
	t->tracing = 1;
	truth_branch(t, 0, ip, "tr strt");
	if (!t->started) {
		t->started = 1;
		go_mode = sym_go();
		t->seg_start = t->tsc;
		f = push(t);
		set_fn(f, ip);
		f->start = t->tsc;
		f->inferred = 1;
		f->depth = 0;
	} else if (t->nf && top(t)->pseudo) {
		pop(t, t->tsc);
	}
	if (handler_rsp) {
		go_branch(t, ip, handler_rsp, t->fs, 0);
		f = push(t);
		set_fn(f, ip);
		f->start = t->tsc;
		f->slot = handler_rsp;
		f->handler = 1;
	} else if (go_mode && sigreturn && ip == entry_of(ip) &&
		   !(t->nf && top(t)->entry == ip)) {
		/* the handler made the code resume with a call (Go's
		 * asynchronous preemption: the return address pushed, pc set
		 * to runtime.asyncPreempt) */
		go_branch(t, ip, rsp, t->fs, 0);
		f = push(t);
		set_fn(f, ip);
		f->start = t->tsc;
		f->slot = rsp;
	}
}

static void pseudo(struct thread *t, enum pseudo kind)
{
	struct frame *f = push(t);

	f->pseudo = (uint8_t)kind;
	f->name = kind == PS_SYSCALL ? "[syscall]" : "[untraced]";
	f->start = t->tsc;
	f->entry = kind;
}

void enc_exec(struct thread *t, const struct insn *in, uint64_t next,
	      uint64_t rsp, uint64_t fs, uint64_t time)
{
	if (!t->tracing)
		die(MT_EXIT_SYSTEM, "internal error: thread %u runs %#" PRIx64
		    " while not tracing", t->tid, in->addr);
	t->fs = fs;
	switch (in->cls) {
	case IC_OTHER:
		return;
	case IC_JCC:
		before_packet(t, time, in->addr, 0);
		tnt_bit(t, next == in->target && next != in->addr + in->len);
		if (next == in->target && next != in->addr + in->len) {
			truth_branch(t, in->addr, next, "jcc");
			truth_jump(t, next, rsp, fs);
		}
		return;
	case IC_JMP:
		truth_branch(t, in->addr, next, "jmp");
		truth_jump(t, next, rsp, fs);
		return;
	case IC_CALL:
		truth_branch(t, in->addr, next, "call");
		truth_call(t, next, rsp, fs);
		return;
	case IC_JMP_IND:
	case IC_CALL_IND:
	case IC_RET:
		before_packet(t, time, in->addr, 0);
		flush_tnt(t);
		out_ip(t, TIP, next);
		if (in->cls == IC_JMP_IND) {
			truth_branch(t, in->addr, next, "jmp");
			truth_jump(t, next, rsp, fs);
		} else if (in->cls == IC_CALL_IND) {
			truth_branch(t, in->addr, next, "call");
			truth_call(t, next, rsp, fs);
		} else {
			truth_branch(t, in->addr, next, "return");
			truth_return(t, next, rsp, fs);
		}
		return;
	case IC_SYSCALL:
		before_packet(t, time, in->addr, 0);
		flush_tnt(t);
		{
			uint8_t b = TIP_PGD_NOIP;

			out(t, &b, 1);
		}
		t->tracing = 0;
		truth_branch(t, in->addr, 0, "tr end syscall");
		pseudo(t, PS_SYSCALL);
		return;
	default:
		die(MT_EXIT_DATA, "thread %u: %s instruction at %#" PRIx64
		    " is not supported", t->tid, insn_class_name(in->cls), in->addr);
	}
}

void enc_async(struct thread *t, uint64_t ip, uint64_t time)
{
	if (!t->tracing)
		return;
	/* no TSC may come between a FUP and its TIP */
	before_packet(t, time, ip, 1);
	flush_tnt(t);
	out_ip(t, FUP, ip);
	{
		uint8_t b = TIP_PGD_NOIP;

		out(t, &b, 1);
	}
	t->tracing = 0;
	truth_branch(t, ip, 0, "tr end async");
	pseudo(t, PS_UNTRACED);
}

void enc_end(struct thread *t)
{
	static const uint8_t pad[8];

	if (t->ended)
		return;
	t->ended = 1;
	flush_tnt(t);
	if (t->n % 8)
		out(t, pad, 8 - t->n % 8);
	while (t->nf) {
		span(t, top(t), t->last_event, 1);
		t->nf--;
	}
}

void enc_finish(void)
{
	for (size_t i = 0; i < nthreads; i++) {
		struct thread *t = threads[i];

		enc_end(t);
		if (t->n)
			pd_aux(t->tid, t->pt, t->n, t->reference);
	}
	if (truth && go_mode)
		fprintf(truth, "# go: %llu goroutine runs (%llu on another thread "
			"than the goroutine's last), %llu stack copies, %llu stack "
			"pointers on no known stack\n", n_go_runs, n_go_moved,
			n_go_copies, n_go_lost);
}

void enc_release(void)
{
	for (size_t i = 0; i < nthreads; i++) {
		free(threads[i]->pt);
		free(threads[i]->f);
		free(threads[i]);
	}
	free(threads);
	threads = NULL;
	nthreads = capthreads = 0;
	for (size_t i = 0; i < ngstacks; i++)
		free(gstacks[i].f);
	free(gstacks);
	gstacks = NULL;
	ngstacks = capgstacks = 0;
}
