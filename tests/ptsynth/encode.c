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
 * interrupted function.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "ptsynth.h"
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
	struct thread *t = calloc(1, sizeof(*t));

	if (!t)
		die(MT_EXIT_SYSTEM, "out of memory");
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
		t->pt = realloc(t->pt, cap);
		if (!t->pt)
			die(MT_EXIT_SYSTEM, "out of memory");
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
	return f;
}

static void span(const struct thread *t, const struct frame *f,
		 uint64_t end, int open)
{
	const char *flags = f->inferred ? (open ? "inferred,open" : "inferred") :
					  (open ? "open" : "-");

	if (truth)
		fprintf(truth, "S\t%" PRIu32 "\t%" PRIu32 "\t%" PRId64 "\t%" PRIu64
			"\t%" PRIu64 "\t%s\t%s\n", t->pid, t->tid, f->depth,
			f->start, end, flags, f->name);
}

static void pop(struct thread *t, uint64_t end)
{
	span(t, top(t), end, 0);
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

/* End the frames whose return address is below sp; returns how many. */
static int unwind(struct thread *t, uint64_t sp, uint64_t time)
{
	int n = 0;

	while (t->nf && top(t)->slot != NO_SLOT && top(t)->slot < sp &&
	       !top(t)->pseudo) {
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

	if (f)
		pop(t, time);
	f = push(t);
	set_fn(f, addr);
	f->start = time;
	f->slot = slot;
	f->inferred = (uint8_t)inferred;
}

static void truth_call(struct thread *t, uint64_t to, uint64_t sp)
{
	struct frame *f = push(t);

	set_fn(f, to);
	f->start = t->tsc;
	f->slot = sp;
}

static void truth_jump(struct thread *t, uint64_t to, uint64_t sp)
{
	uint64_t e = entry_of(to);

	if (t->nf && top(t)->entry == e)
		return;
	if (unwind(t, sp, t->tsc) && t->nf && top(t)->entry == e)
		return;
	replace(t, to, t->tsc, 0);
}

static void truth_return(struct thread *t, uint64_t to, uint64_t sp)
{
	uint64_t e = entry_of(to);
	int handler = t->nf && top(t)->handler;

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
	if (!handler && t->nf && top(t)->entry != e)
		replace(t, to, t->tsc, 1);
}

/* ---- the interface ---- */

void enc_begin(struct thread *t, uint64_t ip, uint64_t time,
	       uint64_t handler_rsp)
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
		f = push(t);
		set_fn(f, ip);
		f->start = t->tsc;
		f->slot = handler_rsp;
		f->handler = 1;
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
	      uint64_t rsp, uint64_t time)
{
	if (!t->tracing)
		die(MT_EXIT_SYSTEM, "internal error: thread %u runs %#" PRIx64
		    " while not tracing", t->tid, in->addr);
	switch (in->cls) {
	case IC_OTHER:
		return;
	case IC_JCC:
		before_packet(t, time, in->addr, 0);
		tnt_bit(t, next == in->target && next != in->addr + in->len);
		if (next == in->target && next != in->addr + in->len) {
			truth_branch(t, in->addr, next, "jcc");
			truth_jump(t, next, rsp);
		}
		return;
	case IC_JMP:
		truth_branch(t, in->addr, next, "jmp");
		truth_jump(t, next, rsp);
		return;
	case IC_CALL:
		truth_branch(t, in->addr, next, "call");
		truth_call(t, next, rsp);
		return;
	case IC_JMP_IND:
	case IC_CALL_IND:
	case IC_RET:
		before_packet(t, time, in->addr, 0);
		flush_tnt(t);
		out_ip(t, TIP, next);
		if (in->cls == IC_JMP_IND) {
			truth_branch(t, in->addr, next, "jmp");
			truth_jump(t, next, rsp);
		} else if (in->cls == IC_CALL_IND) {
			truth_branch(t, in->addr, next, "call");
			truth_call(t, next, rsp);
		} else {
			truth_branch(t, in->addr, next, "return");
			truth_return(t, next, rsp);
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
}
