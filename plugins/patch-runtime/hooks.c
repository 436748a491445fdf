/*
 * The patch runtime's hooks (hooks.h): per-thread state, the shadow
 * stack, the rings. No library calls (system calls are made directly),
 * no vector registers (-mgeneral-regs-only).
 */
#include <stddef.h>
#include <stdint.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#include "hooks.h"
#include "../../common/banned.h"

struct mtp_header *mtp_shm;
/* 1 while this process records: a word of its own page, which the kernel
 * zeroes in a fork's child (MADV_WIPEONFORK) before the child runs a
 * single instruction (mtp_live_init()); else this one, zeroed by an
 * atfork handler (mtp_forked(): too late for the child's first calls) */
static int live_fallback = 1;
int *mtp_live = &live_fallback;
static uint32_t session;


#define SHADOW_MAX MTP_SHADOW_MAX
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
/* a ring is made present so many records at a time, one step ahead of
 * its writes (own_ring(), ring_ahead()): 64 KiB */
#define RING_STEP ((uint64_t)4096)

struct tstate {
	struct mtp_thread *slot; /* NULL: no ring (none was free) */
	struct mtp_rec *ring;
	uint64_t mask;
	uint32_t shift;          /* log2 of the ring's records */
	uint32_t depth;
	uint64_t landing;        /* an unwind is landing (mtp_landing): when */
	uint32_t gen;            /* the session its slot is of (mtp_new_session) */
	struct mtp_shadow stack[SHADOW_MAX];
};

static __thread struct tstate *ts __attribute__((tls_model("initial-exec")));
/* the runtime's own work on this thread, or a child sharing it (mtp_quiet,
 * tramp.S's vfork wrapper) */
__thread int mtp_quiet_n __attribute__((tls_model("initial-exec"), visibility("hidden")));
#define quiet mtp_quiet_n
/*
 * The hooks this thread is inside (a signal handler's on top of an
 * interrupted one: 2): from before a hook reads *mtp_live to after its
 * last touch of the shared memory. mt-record, ending a session with
 * every thread stopped, clears *mtp_live, then lets each thread whose
 * count is not 0 run until it is (mtp_busy_offset(): where it reads the
 * count), so that no hook touches the memory after it is unmapped: not
 * even one a signal handler interrupted, which no instruction pointer
 * shows. A hook left by a longjmp out of a handler leaves the count up
 * for good: the session's memory then stays mapped.
 */
__thread uint32_t mtp_busy_n __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* vfork's return address (tramp.S) */
__thread uint64_t mtp_vfork_ret __attribute__((tls_model("initial-exec"), visibility("hidden")));

long mtp_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

uint64_t mtp_now(void)
{
	if (mtp_shm->clock == MTP_CLOCK_TSC) {
		uint32_t lo, hi;

		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	} else {
		struct timespec t;

		mtp_syscall6(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&t, 0, 0, 0, 0);
		return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	}
}

void mtp_prefault(void *p, uint64_t n)
{
	uint64_t lo = (uint64_t)p & ~(uint64_t)4095, hi = ((uint64_t)p + n + 4095) & ~(uint64_t)4095;

	if (n)
		mtp_syscall6(SYS_madvise, (long)lo, (long)(hi - lo), MADV_POPULATE_WRITE, 0, 0, 0);
}

/* The first two steps of t's ring (of n records) made present: a
 * thread's first calls write them. put() keeps a step ahead on the first
 * lap (ring_ahead()): a ring takes memory as it fills, as it did page
 * fault by page fault, 16 pages a call. The first two are made present
 * here, before the thread's first call takes its time: a trigger's first
 * call (a new thread's) sets frozen as soon after its time as it did. */
static void own_ring(const struct tstate *t, uint64_t n)
{
	mtp_prefault(t->ring, (n < 2 * RING_STEP ? n : 2 * RING_STEP) * sizeof(*t->ring));
}

/* Record h (a multiple of RING_STEP) is being written: the step after
 * the next made present while the first lap lasts (own_ring() made the
 * first two). */
static __attribute__((noinline)) void ring_ahead(const struct tstate *t, uint64_t h)
{
	if (h && h + 2 * RING_STEP <= (uint64_t)t->mask + 1)
		mtp_prefault(&t->ring[h + RING_STEP], RING_STEP * sizeof(*t->ring));
}

/* Slot t->slot, claimed, made this thread's (its tid written last). */
static void own_slot(struct tstate *t, struct mtp_thread *sl, uint32_t pid)
{
	struct mtp_header *h = mtp_shm;

	t->slot = sl;
	t->ring = (struct mtp_rec *)((char *)sl + sizeof(struct mtp_thread));
	t->mask = h->ring_records - 1;
	t->shift = (uint32_t)__builtin_ctzll(h->ring_records);
	own_ring(t, h->ring_records);
	sl->pid = pid;
	sl->depth_at = (uint64_t)&t->depth;
	sl->stack_at = (uint64_t)t->stack;
	sl->state_at = (uint64_t)t;
	mtp_syscall6(SYS_prctl, PR_GET_NAME, (long)sl->comm, 0, 0, 0, 0);
	__atomic_store_n(&sl->tid, (uint32_t)mtp_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0),
			 __ATOMIC_RELEASE);
}

/*
 * Every slot taken: one whose thread has ended (tgkill says no such
 * thread), read out by mt-record when it drains, taken again, looking in
 * turn from where the last look began (the oldest go first): its records
 * so far become prev_tid's, the dead thread's state is unmapped. 1 when
 * one was.
 */
static int reclaim(struct tstate *t, uint32_t pid)
{
	struct mtp_header *h = mtp_shm;
	uint32_t i, first = __atomic_fetch_add(&h->reclaim_next, 1, __ATOMIC_RELAXED);

	for (i = 0; i < h->max_threads; i++) {
		struct mtp_thread *sl = (struct mtp_thread *)
			((char *)h + h->threads_off +
			 (uint64_t)((first + i) % h->max_threads) * h->thread_stride);
		uint32_t tid = __atomic_load_n(&sl->tid, __ATOMIC_ACQUIRE);
		uint64_t old;

		if (!tid || sl->pid != pid ||
		    mtp_syscall6(SYS_tgkill, pid, tid, 0, 0, 0, 0) != -3 /* ESRCH */)
			continue;
		if (__atomic_load_n(&h->drain, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&sl->drained, __ATOMIC_ACQUIRE) <
			    __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE))
			continue;
		if (!__atomic_compare_exchange_n(&sl->tid, &tid, 0, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue; /* another thread took it */
		old = sl->state_at;
		if (old && old != (uint64_t)t)
			mtp_syscall6(SYS_munmap, (long)old, sizeof(struct tstate), 0, 0, 0, 0);
		sl->prev_tid = tid;
		__builtin_memcpy(sl->prev_comm, sl->comm, sizeof(sl->comm));
		sl->prev_start = sl->start;
		sl->start = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
		__atomic_fetch_add(&sl->gen, 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&h->reclaimed, 1, __ATOMIC_RELAXED);
		own_slot(t, sl, pid);
		return 1;
	}
	return 0;
}

/* The calling thread's state, made on its first call; NULL when even the
 * state cannot be mapped (the thread then runs unrecorded). */
static struct tstate *thread_state(void)
{
	struct mtp_header *h = mtp_shm;
	struct tstate *t;
	long p;
	uint32_t n, pid;

	if (ts && ts->gen == __atomic_load_n(&session, __ATOMIC_RELAXED))
		return ts;
	if (ts) {
		/* a session before (-p): its frames all gone, undone */
		t = ts;
		t->slot = NULL;
		t->depth = 0;
		t->landing = 0;
	} else {
		p = mtp_syscall6(SYS_mmap, 0, sizeof(struct tstate), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p < 0 && p > -4096)
			return NULL;
		t = (struct tstate *)p;
	}
	t->gen = session;
	pid = (uint32_t)mtp_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	n = __atomic_fetch_add(&h->nthreads, 1, __ATOMIC_RELAXED);
	if (n < h->max_threads) {
		own_slot(t, (struct mtp_thread *)((char *)h + h->threads_off +
						  (uint64_t)n * h->thread_stride), pid);
	} else {
		__atomic_fetch_add(&h->nthreads, -1u, __ATOMIC_RELAXED);
		if (!reclaim(t, pid))
			__atomic_fetch_add(&h->threads_lost, 1, __ATOMIC_RELAXED);
	}
	ts = t;
	return t;
}

/* Writes record h of t's ring: its kind is cleared before the rest is
 * written and set, with the lap, last (shm.h: how a reader tells a
 * record whole). */
static inline __attribute__((always_inline)) void write_rec(struct tstate *t, uint64_t h,
							     uint64_t func, uint32_t kind,
							     uint64_t time)
{
	struct mtp_rec *r = &t->ring[h & t->mask];

	__atomic_store_n(&r->kind, 0, __ATOMIC_RELAXED);
	__asm__ volatile("" : : : "memory");
	r->time = time;
	r->func = (uint32_t)func;
	__atomic_store_n(&r->kind, MTP_REC_KIND(kind, h >> t->shift), __ATOMIC_RELEASE);
}

/* put()'s way once a step: the ring kept a step ahead, then record h. A
 * function of its own, reached by a jump, so that put() saves no register
 * for it. */
static __attribute__((noinline)) void put_ahead(struct tstate *t, uint64_t func, uint32_t kind,
						uint64_t time, uint64_t h)
{
	ring_ahead(t, h);
	write_rec(t, h, func, kind, time);
}

/* Appends a record: its slot is claimed by one instruction, so that a
 * signal handler's records on this thread take the next ones. */
static void put(struct tstate *t, uint64_t func, uint32_t kind, uint64_t time)
{
	uint64_t h = 1;

	if (__atomic_load_n(&mtp_shm->frozen, __ATOMIC_RELAXED))
		return; /* the trigger was hit: the snapshot ends there */
	__asm__ volatile("xaddq %0, %1" : "+r"(h), "+m"(t->slot->head) : : "memory");
	if (__builtin_expect(!(h & (RING_STEP - 1)), 0)) {
		put_ahead(t, func, kind, time, h);
		return;
	}
	write_rec(t, h, func, kind, time);
}

/* A call of the trigger with --repeat: queued for mt-record (shm.h),
 * the recording going on. */
static void queue_hit(struct mtp_header *h, struct tstate *t, uint64_t now, uint64_t dur,
		      const uint64_t *args)
{
	uint32_t n = __atomic_load_n(&h->hits_n, __ATOMIC_ACQUIRE);
	struct mtp_hit *e;

	do {
		if (n - __atomic_load_n(&h->hits_taken, __ATOMIC_ACQUIRE) >= MTP_HITS) {
			__atomic_fetch_add(&h->hits_dropped, 1, __ATOMIC_RELAXED);
			return;
		}
	} while (!__atomic_compare_exchange_n(&h->hits_n, &n, n + 1, 1, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	e = &h->hits[n % MTP_HITS];
	e->time = now;
	e->dur = dur;
	e->rdi = args ? args[1] : 0;
	e->rsi = args ? args[0] : 0;
	e->pid = t->slot->pid;
	e->tid = t->slot->tid;
	__atomic_store_n(&e->seq, n + 1, __ATOMIC_RELEASE);
}

/* The trigger's call (its return, dur after the call: --slower-than;
 * args its rsi and rdi at the call, NULL at a return): the first stops
 * every thread's recording (with --repeat, each is queued). */
static void triggered(struct tstate *t, uint64_t now, uint64_t dur, const uint64_t *args)
{
	struct mtp_header *h = mtp_shm;
	uint32_t no = 0;

	if (__atomic_load_n(&h->trigger_queue, __ATOMIC_RELAXED)) {
		queue_hit(h, t, now, dur, args);
		return;
	}
	if (!__atomic_compare_exchange_n(&h->frozen, &no, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	h->trigger_pid = t->slot->pid;
	h->trigger_tid = t->slot->tid;
	h->trigger_dur = dur;
	h->trigger_rdi = args ? args[1] : 0;
	h->trigger_rsi = args ? args[0] : 0;
	__atomic_store_n(&h->trigger_time, now, __ATOMIC_RELEASE);
	mtp_syscall6(SYS_futex, (long)&h->frozen, FUTEX_WAKE, 1 << 30, 0, 0, 0);
}

void mtp_quiet(int on)
{
	quiet += on ? 1 : -1;
}

int64_t mtp_busy_offset(void)
{
	uint64_t tp;

	__asm__("movq %%fs:0, %0" : "=r"(tp));
	return (int64_t)((uint64_t)&mtp_busy_n - tp);
}

void mtp_busy(int on)
{
	__asm__ volatile("" : : : "memory");
	mtp_busy_n += on ? 1 : -1u;
	__asm__ volatile("" : : : "memory");
}

/* Into a hook (see mtp_busy_n), and out: the count is up around every
 * read of *mtp_live and every touch of the memory after it */
static inline __attribute__((always_inline)) void busy_in(void)
{
	mtp_busy_n++;
	__asm__ volatile("" : : : "memory");
}

static inline __attribute__((always_inline)) void busy_out(void)
{
	__asm__ volatile("" : : : "memory");
	mtp_busy_n--;
}

/* func was called at now with args (mtp_enter()'s): a hit when it is the
 * trigger, without --slower-than; with it, a region's (trigger_region)
 * when the time the program passed (rdi, an OCaml int) is that long ago */
static inline __attribute__((always_inline)) void called(struct tstate *t, uint64_t func,
							 uint64_t now, const uint64_t *args)
{
	uint64_t slower, start;

	if (func + 1 != __atomic_load_n(&mtp_shm->trigger, __ATOMIC_RELAXED))
		return;
	if (!(slower = __atomic_load_n(&mtp_shm->slower_raw, __ATOMIC_RELAXED)))
		triggered(t, now, 0, args);
	else if (__atomic_load_n(&mtp_shm->trigger_region, __ATOMIC_RELAXED) && (args[1] & 1) &&
		 (start = (uint64_t)((int64_t)args[1] >> 1)) && start <= now &&
		 now - start >= slower)
		triggered(t, now, now - start, args);
}

/* func, called at then, returned at now: a hit when it is the trigger
 * and took at least --slower-than */
static inline __attribute__((always_inline)) void returned(struct tstate *t, uint64_t func,
							   uint64_t then, uint64_t now)
{
	uint64_t slower;

	if (func + 1 == __atomic_load_n(&mtp_shm->trigger, __ATOMIC_RELAXED) &&
	    (slower = __atomic_load_n(&mtp_shm->slower_raw, __ATOMIC_RELAXED)) &&
	    !__atomic_load_n(&mtp_shm->trigger_region, __ATOMIC_RELAXED) &&
	    now - then >= slower && now >= then)
		triggered(t, now, now - then, NULL);
}

/* mtp_enter(), inside: *mtp_live was 1 */
static inline __attribute__((always_inline)) void enter(uint64_t func, uint64_t *ret,
							const uint64_t *args)
{
	struct tstate *t;
	uint64_t now;
	uint32_t d;

	t = thread_state();
	now = mtp_now();
	if (!t || !t->slot)
		return;
	if (*ret == (uint64_t)mtp_return_tramp) {
		/* a patched function jumped here (a tail call): it ends now
		 * and this one takes its frame (any frame above that one was
		 * cut, by a longjmp) */
		for (d = t->depth; d > 0 && t->stack[d - 1].slot != (uint64_t)ret; d--)
			;
		if (d) {
			while (t->depth > d) {
				t->depth--;
				put(t, t->stack[t->depth].func, MTP_CUT, now);
			}
			put(t, t->stack[d - 1].func, MTP_RETURN, now);
			returned(t, t->stack[d - 1].func, t->stack[d - 1].time, now);
			t->stack[d - 1].func = func;
			t->stack[d - 1].time = now;
			put(t, func, MTP_CALL, now);
			called(t, func, now, args);
		}
		return;
	}
	if (t->landing) {
		/* the first call where an unwind landed: the frames at or
		 * below its return address are gone */
		while (t->depth > 0 && t->stack[t->depth - 1].slot <= (uint64_t)ret) {
			t->depth--;
			put(t, t->stack[t->depth].func, MTP_CUT, t->landing);
		}
		t->landing = 0;
	}
	if (t->depth >= SHADOW_MAX)
		return;
	/* the frame is claimed, then filled: a signal handler's calls in
	 * between push above it */
	d = t->depth++;
	__asm__ volatile("" : : : "memory");
	t->stack[d].ret = *ret;
	t->stack[d].slot = (uint64_t)ret;
	t->stack[d].func = func;
	t->stack[d].time = now;
	*ret = (uint64_t)mtp_return_tramp;
	put(t, func, MTP_CALL, now);
	called(t, func, now, args);
}

void mtp_enter(uint64_t func, uint64_t *ret, const uint64_t *args)
{
	if (quiet)
		return; /* the runtime's own calls: not the program's */
	busy_in();
	if (*mtp_live)
		enter(func, ret, args);
	busy_out();
}

/* No frame of this thread returns to sp: the return address is lost.
 * Says so on stderr and aborts (it cannot go on). */
static void lost(void)
{
	static const char msg[] = "libmt-patch: a return through the trampoline "
				  "that no patched frame made; aborting\n";

	mtp_syscall6(SYS_write, 2, (long)msg, sizeof(msg) - 1, 0, 0, 0);
	mtp_syscall6(SYS_kill, mtp_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0), 6, 0, 0, 0, 0);
	for (;;)
		mtp_syscall6(SYS_exit_group, 134, 0, 0, 0, 0, 0);
}

/* The word at addr, read so that an address no longer mapped is no
 * fault: 0 then. */
static uint64_t peek(uint64_t addr)
{
	uint64_t v = 0;
	struct iovec mine = { &v, sizeof(v) }, at = { (void *)addr, sizeof(v) };

	/* (this process's pid: after fork, not the slot's) */
	if (mtp_syscall6(SYS_process_vm_readv, mtp_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0),
			 (long)&mine, 1, (long)&at, 1, 0) != sizeof(v))
		return 0;
	return v;
}

/*
 * Frame d - 1 returned with newer frames above it on the shadow stack,
 * and no unwind landed. Those whose return address is still the
 * trampoline's are alive on another stack (a coroutine switched away
 * inside them: makecontext, boost.context): they stay, and will return
 * in turn. The others were left by a jump nothing here saw (their slot
 * reused since): cut. Returns the frame's return address.
 */
static uint64_t exit_under(struct tstate *t, uint32_t d, uint64_t now, int live)
{
	uint32_t i, keep = d - 1;
	uint64_t r = t->stack[d - 1].ret;

	if (t->slot && live) {
		put(t, t->stack[d - 1].func, MTP_RETURN, now);
		returned(t, t->stack[d - 1].func, t->stack[d - 1].time, now);
	}
	for (i = d; i < t->depth; i++) {
		if (peek(t->stack[i].slot) == (uint64_t)mtp_return_tramp)
			t->stack[keep++] = t->stack[i];
		else if (t->slot && live)
			put(t, t->stack[i].func, MTP_CUT, now);
	}
	__asm__ volatile("" : : : "memory");
	t->depth = keep;
	return r;
}

/* mtp_exit(), inside; live: *mtp_live as it read it (0: the frame is
 * taken off, nothing recorded) */
static inline __attribute__((always_inline)) uint64_t exit_(uint64_t sp, int live)
{
	struct tstate *t = ts;
	uint64_t now = live ? mtp_now() : 0, slot = sp - 8, r;
	uint32_t d;

	if (!t)
		lost();
	/* the frame that returned; any above it were cut by an unwind */
	for (d = t->depth; d > 0 && t->stack[d - 1].slot != slot; d--)
		;
	if (!d)
		lost();
	if (d < t->depth && !t->landing)
		return exit_under(t, d, now, live);
	while (t->depth > d) {
		t->depth--;
		if (t->slot && live)
			put(t, t->stack[t->depth].func, MTP_CUT,
			    t->landing ? t->landing : now);
	}
	t->landing = 0;
	r = t->stack[d - 1].ret;
	if (t->slot && live) {
		put(t, t->stack[d - 1].func, MTP_RETURN, now);
		returned(t, t->stack[d - 1].func, t->stack[d - 1].time, now);
	}
	__asm__ volatile("" : : : "memory");
	t->depth = d - 1;
	return r;
}

uint64_t mtp_exit(uint64_t sp)
{
	uint64_t r;

	busy_in();
	r = exit_(sp, *mtp_live);
	busy_out();
	return r;
}

uint64_t mtp_calibrate(void)
{
	static struct {
		struct mtp_thread slot;
		struct mtp_rec ring[256];
	} scratch;
	struct tstate *saved = ts, *cal;
	uint64_t best_fn = UINT64_MAX, best_plain = UINT64_MAX, t0, t1, t2;
	int q = quiet, round, i;
	long p;

	if (!*mtp_live)
		return 0;
	p = mtp_syscall6(SYS_mmap, 0, sizeof(struct tstate), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p < 0 && p > -4096)
		return 0;
	cal = (struct tstate *)p;
	cal->slot = &scratch.slot;
	cal->ring = scratch.ring;
	cal->mask = 255;
	cal->shift = 8;
	cal->gen = __atomic_load_n(&session, __ATOMIC_RELAXED);
	ts = cal;
	quiet = 0;
	for (round = 0; round < 5; round++) {
		t0 = mtp_now();
		for (i = 0; i < 200; i++)
			mtp_calib_fn();
		t1 = mtp_now();
		for (i = 0; i < 200; i++)
			mtp_calib_plain();
		t2 = mtp_now();
		if (t1 - t0 < best_fn)
			best_fn = t1 - t0;
		if (t2 - t1 < best_plain)
			best_plain = t2 - t1;
	}
	quiet = q;
	ts = saved;
	mtp_syscall6(SYS_munmap, p, sizeof(struct tstate), 0, 0, 0, 0);
	return best_fn > best_plain ? (best_fn - best_plain) / 200 : 0;
}

void mtp_new_session(void)
{
	__atomic_fetch_add(&session, 1, __ATOMIC_RELAXED);
}

void mtp_forked(void)
{
	*mtp_live = 0;
}

void mtp_live_init(void)
{
	long p;

	if (mtp_live != &live_fallback)
		return;
	p = mtp_syscall6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p < 0 && p > -4096)
		return;
	if (mtp_syscall6(SYS_madvise, p, 4096, MADV_WIPEONFORK, 0, 0, 0)) {
		mtp_syscall6(SYS_munmap, p, 4096, 0, 0, 0, 0);
		return; /* before Linux 4.14: the atfork handler's word */
	}
	*(int *)p = *mtp_live;
	__atomic_store_n(&mtp_live, (int *)p, __ATOMIC_RELEASE);
}

void mtp_unhook(void)
{
	struct tstate *t = ts;
	uint32_t d;

	if (!t)
		return;
	/* newest first: of two frames at one slot (an older one left by a
	 * longjmp) the newest is on the stack */
	for (d = t->depth; d > 0; d--) {
		uint64_t *slot = (uint64_t *)t->stack[d - 1].slot;

		if (*slot == (uint64_t)mtp_return_tramp)
			*slot = t->stack[d - 1].ret;
	}
}

void mtp_rehook(uint64_t cfa)
{
	struct tstate *t = ts;
	uint32_t d;

	if (!t)
		return;
	mtp_landed(cfa);
	for (d = t->depth; d > 0; d--) {
		uint64_t *slot = (uint64_t *)t->stack[d - 1].slot;

		if (*slot == t->stack[d - 1].ret)
			*slot = (uint64_t)mtp_return_tramp;
	}
}

void mtp_longjmp(uint64_t sp, uint64_t target)
{
	struct tstate *t = ts;
	uint64_t now;
	int live;

	if (!t || target <= sp || target - sp > (1ull << 30))
		return;
	busy_in();
	live = *mtp_live;
	now = live ? mtp_now() : 0;
	while (t->depth > 0 && t->stack[t->depth - 1].slot < target &&
	       t->stack[t->depth - 1].slot >= sp) {
		t->depth--;
		if (t->slot && live)
			put(t, t->stack[t->depth].func, MTP_CUT, now);
	}
	busy_out();
}

void mtp_landing(void)
{
	struct tstate *t = ts;

	busy_in();
	if (t && t->slot && *mtp_live)
		t->landing = mtp_now();
	busy_out();
}

void mtp_landed(uint64_t cfa)
{
	struct tstate *t = ts;
	uint64_t when;
	int live;

	if (!t)
		return;
	busy_in();
	live = *mtp_live;
	when = t->landing ? t->landing : live ? mtp_now() : 0;
	while (t->depth > 0 && t->stack[t->depth - 1].slot < cfa) {
		t->depth--;
		if (t->slot && live)
			put(t, t->stack[t->depth].func, MTP_CUT, when);
	}
	t->landing = 0;
	busy_out();
}
