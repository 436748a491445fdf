/*
 * mt-stacks: what a branch does to its thread's stack: calls, returns,
 * jumps, the kernel, signal handlers, Go's stack switches, trace starts
 * and ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "stacks.h"
#include "banned.h"

/* What a symbol is, for the few rules that go by name; computed once per
 * input string id. */
enum {
	SC_KNOWN = 1, SC_LONGJMP = 2, SC_GOGO = 4, SC_GOSWITCH = 8,
	SC_RESUME = 16, SC_PLT = 32, SC_GOEXECUTE = 64,
};

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

static unsigned sym_class(struct stacks *ctx, uint32_t sym);

void forget_class(struct stacks *ctx, uint32_t id)
{
	if (id < ctx->classes_cap)
		ctx->classes[id] = 0;
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

static unsigned sym_class(struct stacks *ctx, uint32_t sym)
{
	const char *s;
	unsigned c = SC_KNOWN;

	if (!sym)
		return 0;
	if (sym < ctx->classes_cap && ctx->classes[sym])
		return ctx->classes[sym];
	s = mt_reader_str(&ctx->in, sym, NULL);
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
		grow_or_die(&ctx->classes, &ctx->classes_cap, sym,
			    sizeof(*ctx->classes));
	if (sym < ctx->classes_cap)
		ctx->classes[sym] = (uint8_t)c;
	return c;
}

/* ---- the rules ---- */

static void go_switch(struct thread *t, const struct mt_branch *b,
		      uint64_t time);

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
		stack_infer(t, &t->stop);
	f = stack_push(t, to, time, MT_SPAN_FUNCTION, 0);
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
		if (sym_class(t->ctx, t->cur.f[r].sym) & SC_RESUME)
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
		stack_infer(t, dst);
		return;
	}
	if (same_fn(dst, f))
		return;
	if (!after_return && (sym_class(t->ctx, f->sym) & SC_GOGO) &&
	    same_fn(&b->from, f) && !(sym_class(t->ctx, dst->sym) & SC_GOGO)) {
		go_switch(t, b, time);
		return;
	}
	k = find_fn(t, dst);
	/* a PLT stub jumps to its target or to the PLT header (lazy
	 * binding), which may be unsymbolised code of the caller's file */
	if (k >= 0 && (after_return ||
			(dst->off != 0 &&
			 !(sym_class(t->ctx, b->from.sym) & SC_PLT)))) {
		k = landing_frame(t, dst, k);
		while (t->cur.n > (size_t)k + 1)
			stack_pop(t, time, 0);
		return;
	}
	if (!after_return && dst->off != 0 &&
	    (sym_class(t->ctx, b->from.sym) & SC_LONGJMP)) {
		stack_reset(t, time, 0);
		stack_infer(t, dst);
		return;
	}
	/* a tail call, or a caller we had wrong: replace the top frame (a
	 * signal handler's frame stays one) */
	handler = f->handler;
	resume = f->resume;
	stack_pop(t, time, 0);
	if (after_return)
		stack_push(t, dst, time,
			   is_kernel(dst->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION,
			   MT_SF_INFERRED);
	else
		stack_call(t, dst, time);
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
		unsigned c = sym_class(t->ctx, t->cur.f[i - 1].sym);

		if (c & SC_GOEXECUTE)
			break;
		if (c & SC_GOSWITCH) {
			while (t->cur.n >= i)
				stack_pop(t, time, 0);
			if (find_fn(t, &b->to) < 0) {
				/* further out than every frame known (a frame
				 * the trace never showed may lie between):
				 * they end, and the code there ran since the
				 * segment began */
				while (t->cur.n)
					stack_pop(t, time, 0);
			}
			land(t, b, time, 0);
			return;
		}
	}
	stack_reset(t, time, 0);
	stack_infer(t, &b->to);
}

static void do_return(struct thread *t, const struct mt_branch *b,
		      uint64_t time)
{
	struct frame *f = top(t);

	if (f && f->pseudo) {
		/* a return while a pseudo frame is open: it ends here */
		stack_pop(t, time, 0);
		f = top(t);
	}
	if (!f) {
		/* returning past the start of the trace reveals the caller
		 * chain one frame at a time */
		stack_reveal(t, &b->from, time);
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
			stack_pop(t, time, 0);
	}
	if ((sym_class(t->ctx, top(t)->sym) & SC_GOGO) &&
	    !(b->flags & MT_BF_PROBE)) {
		go_switch(t, b, time);
		return;
	}
	if (top(t)->handler) {
		/* into the signal restorer, whose sigreturn resumes the
		 * interrupted code: it is nobody's frame */
		t->stop = top(t)->resume;
		t->sigreturn = 1;
		stack_pop(t, time, 0);
		return;
	}
	stack_pop(t, time, 0);
	land(t, b, time, 1);
}


/* A decode gap ends when the thread's events resume. */
void end_gap(struct thread *t, uint64_t time)
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
	stack_finish(t, NULL, &s, NULL);
}

/* The kernel stack's frames end; the interrupted stack continues. */
static void leave_kernel(struct thread *t, uint64_t time)
{
	while (t->cur.n)
		stack_pop(t, time, 0);
	stack_release(&t->cur);
	t->cur = t->inactive[--t->ninactive];
}

/* A branch's time: each thread's stays monotonic. 0: it is dropped (after
 * a trigger's cut). */
static int event_time(struct thread *t, uint64_t *time)
{
	if (*time > t->ctx->cut_time) {
		t->ctx->n_after_cut++;
		return 0;
	}
	if (*time < t->last_time)
		*time = t->last_time;
	if (!t->started) {
		t->seg_start = *time;
		t->started = 1;
	}
	t->fresh = 0;
	t->last_time = *time;
	t->sigreturn = 0;
	return 1;
}

/* Tracing resumes: an open [untraced] or [syscall] frame ends. */
static void end_pseudo(struct thread *t, uint64_t time)
{
	if (top(t) && top(t)->pseudo)
		stack_pop(t, time, 0);
}

/* "tr end": the branch happens, then an [untraced] or [syscall] frame
 * holds the time until tracing resumes. */
static void trace_end(struct thread *t, const struct mt_branch *b,
		      uint64_t time, int sigreturn)
{
	unsigned k = b->kind;

	if (!t->tracing) {
		if (!t->ctx->n_bad_end++)
			warn("%s: 'tr end' while not tracing (tid %u at %llu ns); "
			     "disbelieved, further ones are only counted",
			     t->ctx->in_name, t->tid, (unsigned long long)time);
		return;
	}
	if (k == MT_BR_RETURN && t->cur.n)
		stack_pop(t, time, 0);
	else if (k == MT_BR_CALL && b->to.ip)
		stack_call(t, &b->to, time);
	if (!sigreturn && !is_kernel(b->from.ip))
		t->stop = b->from;
	t->tracing = 0;
	push_frame(t, NULL, time,
		   k == MT_BR_SYSCALL ? MT_SPAN_SYSCALL : MT_SPAN_UNTRACED,
		   0, k == MT_BR_SYSCALL ? "[syscall]" : "[untraced]");
}

/* "tr strt": tracing resumes, maybe in a signal handler. first: the
 * thread's first event of the segment. */
static void trace_begin(struct thread *t, const struct mt_branch *b,
			uint64_t time, int first)
{
	if (t->tracing) {
		if (!first && !t->ctx->n_bad_start++)
			warn("%s: 'tr strt' while tracing (tid %u at %llu ns); "
			     "disbelieved, further ones are only counted",
			     t->ctx->in_name, t->tid, (unsigned long long)time);
		if (!t->cur.n && b->to.ip)
			stack_infer(t, &b->to);
		return;
	}
	t->tracing = 1;
	end_pseudo(t, time);
	if (handler_entry(t, &b->to)) {
		enter_handler(t, &b->to, time);
		return;
	}
	/* not a tail call check: a page fault on a call's target
	 * resumes in the callee */
	if (!t->cur.n && b->to.ip)
		stack_infer(t, &b->to);
}

/* From user code into the kernel: the user stack waits (inactive) and the
 * kernel's frames go on a new one. */
static void enter_kernel(struct thread *t, const struct mt_branch *b,
			 uint64_t time, int sigreturn)
{
	if (!t->cur.n && b->from.ip)
		stack_infer(t, &b->from);
	if (!sigreturn)
		t->stop = b->from;
	if (t->ninactive == t->capinactive)
		grow_or_die(&t->inactive, &t->capinactive, t->ninactive,
			    sizeof(*t->inactive));
	t->inactive[t->ninactive++] = t->cur;
	memset(&t->cur, 0, sizeof(t->cur));
	t->cur.empty_depth = t->inactive[t->ninactive - 1].n ?
		t->inactive[t->ninactive - 1].f[t->inactive[t->ninactive - 1].n - 1].depth + 1 :
		t->inactive[t->ninactive - 1].empty_depth;
	stack_push(t, &b->to, time, MT_SPAN_KERNEL, 0);
}

/* A traced branch, by kind. */
static void transfer(struct thread *t, const struct mt_branch *b,
		     uint64_t time, int sigreturn)
{
	switch (b->kind) {
	case MT_BR_CALL:
		if (!t->cur.n && b->from.ip)
			stack_infer(t, &b->from);
		stack_call(t, &b->to, time);
		break;
	case MT_BR_RETURN:
		do_return(t, b, time);
		break;
	case MT_BR_SYSCALL:
	case MT_BR_HWINT:
	case MT_BR_INT:
	case MT_BR_ASYNC:
		if (is_kernel(b->to.ip) && !is_kernel(b->from.ip))
			enter_kernel(t, b, time, sigreturn);
		else
			land(t, b, time, 0);
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
			if (!t->ctx->n_noflags++)
				warn("%s: branches without a flags column: calls and "
				     "returns cannot be told apart; run perf script "
				     "with -F ...,flags", t->ctx->in_name);
		}
		land(t, b, time, 0);
		break;
	default: /* jcc, jmp, tx abrt, vmentry, vmexit */
		if (!t->cur.n && b->from.ip)
			stack_infer(t, &b->from);
		land(t, b, time, 0);
		break;
	}
}

/* A return from the stop indicator ends the trace here. */
static void check_trigger(struct thread *t, const struct mt_branch *b,
			  uint64_t time)
{
	uint32_t from;

	if (!t->trigger || b->kind != MT_BR_RETURN || t->ctx->cut_pending)
		return;
	from = b->from.sym ? stacks_map_id(t->ctx, b->from.sym) : 0;
	if (from == t->trigger_name) {
		t->ctx->cut_time = time;
		t->ctx->cut_pending = 1;
	}
}

void branch_apply(struct thread *t, const struct mt_branch *b, uint64_t time)
{
	int begin = b->flags & MT_BF_BEGIN, end = b->flags & MT_BF_END;
	int first = t->fresh, sigreturn = t->sigreturn;

	if (!event_time(t, &time))
		return;
	end_gap(t, time);
	if (t->ninactive && b->to.ip && !is_kernel(b->to.ip) &&
	    (!b->from.ip || !is_kernel(b->from.ip)))
		leave_kernel(t, time); /* user code runs again */

	if (b->flags & MT_BF_PROBE) {
		if (b->kind == MT_BR_CALL)
			probe_call(t, b, time);
		else if (b->kind == MT_BR_RETURN)
			probe_return(t, b, time);
		return;
	}
	if (begin && end)
		return; /* "tr strt tr end": nothing happened */
	if (end) {
		trace_end(t, b, time, sigreturn);
		return;
	}
	if (begin) {
		trace_begin(t, b, time, first);
		return;
	}
	if (!t->tracing) {
		/* events while not tracing: tracing evidently resumed */
		t->tracing = 1;
		end_pseudo(t, time);
	}
	transfer(t, b, time, sigreturn);
	check_trigger(t, b, time);
}
