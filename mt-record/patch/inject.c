/*
 * A running process held with ptrace (inject.h).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "err.h"
#include "inject.h"
#include "xalloc.h"
#include "banned.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif

#define RED_ZONE 128
/* the vector registers' state (XSAVE area) */
#define XSTATE_MAX 16384

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

_Noreturn static void no_ptrace(pid_t pid, int err)
{
	int scope = yama_scope();

	errno = err;
	if (err == EPERM || err == EACCES) {
		if (scope >= 1 && geteuid() != 0)
			die(MT_EXIT_SYSTEM, "cannot ptrace process %d: kernel.yama.ptrace_scope "
			    "is %d (only a parent may: run the command under mt-record, or as "
			    "root)", (int)pid, scope);
		die_errno(MT_EXIT_SYSTEM, "cannot ptrace process %d (another tracer, a "
			  "debugger, holds it; or it is not yours)", (int)pid);
	}
	die_errno(MT_EXIT_SYSTEM, "ptrace process %d", (int)pid);
}

int inject_open(struct inject *in, pid_t pid, int soft)
{
	char path[64];
	int err;

	memset(in, 0, sizeof(*in));
	in->pid = pid;
	in->soft = soft;
	/* the process, held by a descriptor: a pid reused after it ended is
	 * never another process's stop */
	in->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((in->mem = open(path, O_RDWR | O_CLOEXEC)) >= 0 && inject_alive(in))
		return 0;
	err = in->mem >= 0 ? ESRCH : errno;
	if (in->mem >= 0)
		close(in->mem);
	if (in->pidfd >= 0)
		close(in->pidfd);
	in->mem = in->pidfd = -1;
	errno = err;
	if (err == ENOENT || err == ESRCH || soft)
		return -1;
	no_ptrace(pid, err);
}

static struct inject_thread *held(struct inject *in, pid_t tid)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (in->t[i].tid == tid)
			return &in->t[i];
	return NULL;
}

_Static_assert(sizeof(siginfo_t) == sizeof(((struct inject_thread *)0)->held[0]),
	       "a held signal's siginfo");

/* The signal whose delivery stop status st is, or 0 (another stop: an
 * event's, a system call's with PTRACE_O_TRACESYSGOOD). */
static int delivery(int st)
{
	return WIFSTOPPED(st) && st >> 16 == 0 && WSTOPSIG(st) != (SIGTRAP | 0x80) ?
		WSTOPSIG(st) : 0;
}

/* Holds back signal sig, whose delivery thread t is stopped in, with its
 * siginfo: 0, or -1 when t holds INJECT_HELD already (its caller
 * delivers it). */
static int hold(struct inject_thread *t, int sig)
{
	siginfo_t si;

	if (t->nheld == INJECT_HELD)
		return -1;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si)) {
		memset(&si, 0, sizeof(si));
		si.si_signo = sig;
		si.si_code = SI_TKILL;
	}
	memcpy(t->held[t->nheld++], &si, sizeof(si));
	t->at_delivery = 1;
	return 0;
}

/* Lets held thread t go on (request PTRACE_CONT, PTRACE_SYSCALL) with
 * signal sig delivered (0: none; a delivery it is stopped in is then
 * held, suppressed until it goes). */
static long resume(struct inject_thread *t, int request, int sig)
{
	t->at_delivery = 0;
	return ptrace((enum __ptrace_request)request, t->tid, NULL, (void *)(long)sig);
}

/* Waits for held thread t's next stop, into *st: 0, or -1 when it ended. */
static int next_stop(const struct inject_thread *t, int *st)
{
	for (;;) {
		if (waitpid(t->tid, st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (WIFEXITED(*st) || WIFSIGNALED(*st))
			return -1;
		if (WIFSTOPPED(*st))
			return 0;
	}
}

/* Waits for the stop PTRACE_INTERRUPT asked of thread t: 0, or -1 when it
 * ended. A signal's delivery stop that comes first is held back there
 * (t stays in it). */
static int wait_stop(struct inject_thread *t)
{
	int st, sig;

	if (next_stop(t, &st))
		return -1;
	if ((sig = delivery(st)))
		hold(t, sig);
	return 0;
}

static void get_regs(pid_t tid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, r))
		die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_GETREGS, %d)", (int)tid);
}

char inject_thread_state(pid_t pid, pid_t tid, int *tracer)
{
	char path[80], line[256], state = '\0';
	FILE *f;

	*tracer = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (!(f = fopen(path, "re")))
		return '\0';
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "State: %c", &state) == 1)
			continue;
		if (sscanf(line, "TracerPid: %d", tracer) == 1)
			break;
	}
	fclose(f);
	return state;
}

/*
 * PTRACE_SEIZE of thread tid: 0 when held, 1 when there is nothing to
 * hold, -1 (errno set) when it cannot be. The kernel refuses a thread
 * that is ending with EPERM, as it refuses one traced already: a thread
 * that ends as it is listed (the loader thread, a worker's end) and a
 * main thread that called pthread_exit() (a zombie until the others end)
 * run no code of the process and need no stop; one in the middle of its
 * end is asked again until it is gone, 1 s at most.
 */
#define SEIZE_TRIES 1000
static int seize(pid_t pid, pid_t tid)
{
	int tries, tracer;

	for (tries = 0;; tries++) {
		struct timespec ms = { 0, 1000000 };
		char st;

		if (!ptrace(PTRACE_SEIZE, tid, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD))
			return 0;
		if (errno == ESRCH)
			return 1; /* it ended */
		if (errno != EPERM)
			return -1;
		st = inject_thread_state(pid, tid, &tracer);
		if (!st || st == 'Z' || st == 'X')
			return 1;
		if (tracer || tries == SEIZE_TRIES) {
			errno = EPERM;
			return -1;
		}
		nanosleep(&ms, NULL);
	}
}

size_t inject_stop_all(struct inject *in)
{
	char path[64];
	size_t i, found;
	int listings = 0;

	do {
		struct dirent *e;
		DIR *d;

		if (listings++ == INJECT_MAX_LISTINGS) {
			inject_release_all(in);
			errno = EAGAIN;
			return in->n = 0;
		}
		if (!inject_alive(in)) {
			inject_release_all(in);
			return in->n = 0;
		}
		snprintf(path, sizeof(path), "/proc/%d/task", (int)in->pid);
		if (!(d = opendir(path)))
			return in->n = 0;
		found = 0;
		while ((e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);
			struct inject_thread *t;
			int got;

			if (tid <= 0 || held(in, tid))
				continue;
			if ((got = seize(in->pid, tid))) {
				int err = errno;

				if (got > 0)
					continue; /* it ended, or is ending */
				closedir(d);
				if (in->soft) {
					inject_release_all(in);
					errno = err;
					return 0;
				}
				no_ptrace(in->pid, err);
			}
			grow_or_die(&in->t, &in->cap, in->n + 1, sizeof(*in->t));
			t = &in->t[in->n];
			memset(t, 0, sizeof(*t));
			t->tid = tid;
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) || wait_stop(t))
				continue; /* it ended */
			in->n++;
			if (!inject_alive(in)) { /* the tid is another's now */
				ptrace(PTRACE_DETACH, tid, NULL, NULL);
				in->n--;
				closedir(d);
				inject_release_all(in);
				return in->n = 0;
			}
			found++;
		}
		closedir(d);
	} while (found);
	for (i = 0; i < in->n;) {
		struct user_regs_struct r;

		if (ptrace(PTRACE_GETREGS, in->t[i].tid, NULL, &r)) {
			if (errno != ESRCH)
				die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_GETREGS, %d)",
					  (int)in->t[i].tid);
			in->t[i] = in->t[--in->n]; /* killed while held */
			continue;
		}
		in->t[i].in_syscall = (long)r.orig_rax >= 0;
		in->t[i].fs_base = r.fs_base;
		in->t[i].sp = r.rsp;
		in->t[i++].ip = r.rip;
	}
	return in->n;
}

/* at most this many stops while signals are given back */
#define GIVE_BACK_STOPS 64

/*
 * Gives held thread t (which went on since) the signals its stops held
 * back: each is sent again (tgkill), and in the stop of its delivery its
 * siginfo is put back; t is left in the last one's (nheld 1,
 * at_delivery), or with none held when it ended or none could be
 * waited for (blocked by now: pending, as sent by mt-record).
 */
static void give_back(const struct inject *in, struct inject_thread *t)
{
	int waiting[INJECT_HELD], nwait = 0, cur = 0, stops, i, st, sig;
	int n = t->nheld - (t->at_delivery ? 1 : 0);
	uint64_t mask = 0;
	siginfo_t si;

	if (t->at_delivery) {
		memcpy(&si, t->held[t->nheld - 1], sizeof(si));
		cur = si.si_signo; /* delivered as it goes on */
	}
	if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(mask), &mask))
		mask = 0;
	for (i = 0; i < n; i++) {
		memcpy(&si, t->held[i], sizeof(si));
		if (syscall(SYS_tgkill, in->pid, t->tid, si.si_signo))
			continue;
		if (!(mask & (1ull << (si.si_signo - 1))) || si.si_signo == SIGKILL ||
		    si.si_signo == SIGSTOP)
			waiting[nwait++] = i;
	}
	t->nheld = 0;
	for (stops = 0; nwait && stops < GIVE_BACK_STOPS; stops++) {
		if (resume(t, PTRACE_CONT, cur) || next_stop(t, &st))
			return;
		if (!(cur = delivery(st)))
			continue;
		for (i = 0; i < nwait; i++) {
			memcpy(&si, t->held[waiting[i]], sizeof(si));
			if (si.si_signo == cur)
				break;
		}
		if (i == nwait)
			continue; /* another signal: delivered */
		sig = cur;
		ptrace(PTRACE_SETSIGINFO, t->tid, NULL, &si);
		if (--nwait == 0) {
			memcpy(t->held[0], &si, sizeof(si));
			t->nheld = 1;
			t->at_delivery = 1;
			return;
		}
		waiting[i] = waiting[nwait];
		cur = sig;
	}
	if (cur) { /* a delivery it is stopped in */
		if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) == 0) {
			memcpy(t->held[0], &si, sizeof(si));
			t->nheld = 1;
			t->at_delivery = 1;
		}
	}
}

static void release(const struct inject *in, struct inject_thread *t)
{
	int sig = 0;

	if (t->nheld > 1 || (t->nheld && !t->at_delivery))
		give_back(in, t);
	if (t->nheld && t->at_delivery) {
		siginfo_t si;

		memcpy(&si, t->held[0], sizeof(si));
		sig = si.si_signo;
	}
	/* ESRCH: it ended meanwhile */
	if (ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)sig) && errno != ESRCH)
		warn("ptrace(PTRACE_DETACH, %d): %s", (int)t->tid, strerror(errno));
	t->nheld = 0;
}

void inject_release_all(struct inject *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		release(in, &in->t[i]);
	in->n = 0;
}

void inject_release_others(struct inject *in)
{
	size_t i;

	for (i = 1; i < in->n; i++)
		release(in, &in->t[i]);
	if (in->n > 1)
		in->n = 1;
}

int inject_read(const struct inject *in, uint64_t addr, void *buf, size_t n)
{
	return pread(in->mem, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

int inject_write(const struct inject *in, uint64_t addr, const void *buf, size_t n)
{
	return pwrite(in->mem, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

/* ---- a held thread's state, and its way back ---- */

/* The kernel's signal frame (x86-64 rt_sigframe: the return address,
 * the ucontext, the siginfo), as rt_sigreturn reads it. */
struct kstack {
	uint64_t sp;
	int32_t flags, pad;
	uint64_t size;
};

struct ksigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate;
	uint64_t reserved[8];
};

struct kucontext {
	uint64_t flags, link;
	struct kstack stack;
	struct ksigcontext mc;
	uint64_t sigmask;
};

struct kframe {
	uint64_t pretcode;
	struct kucontext uc;
	unsigned char info[128];
};

_Static_assert(sizeof(struct ksigcontext) == 256 && sizeof(struct kucontext) == 304 &&
	       sizeof(struct kframe) == 440, "the kernel's signal frame");

#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
#ifndef FP_XSTATE_MAGIC1
#define FP_XSTATE_MAGIC1 0x46505853u
#endif
#ifndef FP_XSTATE_MAGIC2
#define FP_XSTATE_MAGIC2 0x46505845u
#endif
/* struct _fpx_sw_bytes, in the XSAVE area's software-reserved bytes */
#define FPX_SW_OFF 464
/* a system call's return codes that ask for it to be restarted */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516
#define NR_restart_syscall 219

/* glibc's own signals, never blocked for long: SIGSETXID (setuid() in a
 * threaded process waits for every thread to take it) */
#define SIGSETXID 33

/* What a held thread was doing: its registers, vector registers and
 * signal mask; the frame on its stack that gives them back. */
struct inject_state {
	struct user_regs_struct r;
	unsigned char x[XSTATE_MAX];
	struct iovec iov;
	int have_x;
	uint64_t mask;
	uint64_t frame;  /* the frame's address (its return address word) */
	uint64_t low;    /* below the frame: the stack for code run there */
};

static void get_state(pid_t tid, struct inject_state *s)
{
	get_regs(tid, &s->r);
	s->iov.iov_base = s->x;
	s->iov.iov_len = sizeof(s->x);
	s->have_x = !ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &s->iov);
	if (!s->have_x) {
		/* no XSAVE: the SSE state */
		s->iov.iov_len = sizeof(struct user_fpregs_struct);
		if (ptrace(PTRACE_GETFPREGS, tid, NULL, s->x))
			die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_GETFPREGS, %d)", (int)tid);
	}
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(s->mask), &s->mask))
		die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_GETSIGMASK, %d)", (int)tid);
}

static int set_mask(pid_t tid, uint64_t mask)
{
	return ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask) ? -1 : 0;
}

static int put_state(pid_t tid, const struct inject_state *s)
{
	int bad = ptrace(PTRACE_SETREGS, tid, NULL, &s->r) != 0;

	if (s->have_x)
		bad |= ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &s->iov) != 0;
	else
		bad |= ptrace(PTRACE_SETFPREGS, tid, NULL, s->x) != 0;
	bad |= set_mask(tid, s->mask) != 0;
	return bad ? -1 : 0;
}

/*
 * Writes, below held thread 0's red zone, a signal frame whose return
 * (rt_sigreturn) gives it back its registers, vector registers and signal
 * mask, a system call it was stopped in made to restart as the kernel
 * would with no handler to run. 0, or -1 (errno).
 */
static int write_frame(struct inject *in, struct inject_state *s)
{
	const struct user_regs_struct *r = &s->r;
	struct kframe f;
	struct ksigcontext *c = &f.uc.mc;
	size_t xlen = s->have_x ? s->iov.iov_len : sizeof(struct user_fpregs_struct);
	uint64_t fp, at;
	uint32_t magic1 = 0, xsize = 0, magic2 = FP_XSTATE_MAGIC2;
	unsigned char sw[512]; /* the legacy area, its software bytes rewritten */
	long err = (long)r->rax;

	fp = (r->rsp - RED_ZONE - xlen - 8) & ~(uint64_t)63;
	at = (fp - sizeof(f)) & ~(uint64_t)15;
	memset(&f, 0, sizeof(f));
	f.pretcode = in->restore_rt;
	f.uc.flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.stack.flags = 3; /* no valid mode: the thread's sigaltstack stays as it is */
	c->r8 = r->r8; c->r9 = r->r9; c->r10 = r->r10; c->r11 = r->r11;
	c->r12 = r->r12; c->r13 = r->r13; c->r14 = r->r14; c->r15 = r->r15;
	c->rdi = r->rdi; c->rsi = r->rsi; c->rbp = r->rbp; c->rbx = r->rbx;
	c->rdx = r->rdx; c->rax = r->rax; c->rcx = r->rcx; c->rsp = r->rsp;
	c->rip = r->rip; c->eflags = r->eflags;
	c->cs = (uint16_t)r->cs;
	c->ss = (uint16_t)r->ss;
	c->fpstate = fp;
	if ((long)r->orig_rax >= 0) {
		/* stopped in a system call: restarted as without a handler */
		if (err == -ERESTARTSYS || err == -ERESTARTNOINTR || err == -ERESTARTNOHAND) {
			c->rip -= 2;
			c->rax = r->orig_rax;
		} else if (err == -ERESTART_RESTARTBLOCK) {
			c->rip -= 2;
			c->rax = NR_restart_syscall;
		}
	}
	f.uc.sigmask = s->mask;
	memcpy(sw, s->x, xlen < sizeof(sw) ? xlen : sizeof(sw));
	if (s->have_x && xlen > FPX_SW_OFF + 48) {
		/* ptrace leaves XCR0 in the software-reserved bytes; a signal
		 * frame wants struct _fpx_sw_bytes there (magic1, the extended
		 * size, the features, the XSAVE size), then magic2 after the
		 * area: without them rt_sigreturn gives back the SSE state
		 * only, the upper halves of the AVX registers zeroed */
		uint64_t xcr0;
		uint32_t ext = (uint32_t)xlen + 4;

		memcpy(&xcr0, s->x + FPX_SW_OFF, 8);
		xsize = (uint32_t)xlen;
		magic1 = FP_XSTATE_MAGIC1;
		memset(sw + FPX_SW_OFF, 0, 48);
		memcpy(sw + FPX_SW_OFF, &magic1, 4);
		memcpy(sw + FPX_SW_OFF + 4, &ext, 4);
		memcpy(sw + FPX_SW_OFF + 8, &xcr0, 8);
		memcpy(sw + FPX_SW_OFF + 16, &xsize, 4);
		f.uc.flags |= UC_FP_XSTATE;
	}
	if (inject_write(in, fp, sw, xlen < sizeof(sw) ? xlen : sizeof(sw)) ||
	    (xlen > sizeof(sw) && inject_write(in, fp + sizeof(sw), s->x + sizeof(sw),
					       xlen - sizeof(sw))) ||
	    ((f.uc.flags & UC_FP_XSTATE) &&
	     inject_write(in, fp + xsize, &magic2, sizeof(magic2))) ||
	    inject_write(in, at, &f, sizeof(f)))
		return -1;
	s->frame = at;
	s->low = (at - 256) & ~(uint64_t)15;
	return 0;
}

/*
 * Calls fn for each mapping of process pid, in address order: its
 * range, its permissions ("r-xp") and its name (the rest of the line,
 * "" when none), until fn returns other than 0: that, or 0 after the
 * last; -1 when the maps cannot be read. The one reading of
 * /proc/PID/maps here.
 */
static int maps_each(pid_t pid, int (*fn)(void *ctx, uint64_t lo, uint64_t hi, const char *perm,
					  const char *name), void *ctx)
{
	char path[64], line[4096];
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (!r && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char perm[8];
		int off = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &lo, &hi, perm, &off) < 3)
			continue;
		r = fn(ctx, lo, hi, perm, off ? line + off : "");
	}
	fclose(f);
	return r;
}

/* Whether name is the file of the C library, or (all) of the dynamic
 * loader, libpthread or libdl too. */
static int is_libc(const char *name, int all)
{
	const char *base = strrchr(name, '/');

	if (!base)
		return 0;
	base++;
	return !strncmp(base, "libc.so", 7) ||
	       (all && (!strncmp(base, "ld-linux", 8) || !strncmp(base, "libpthread.so", 13) ||
			!strncmp(base, "libdl.so", 8)));
}

struct find_code {
	const struct inject *in;
	const unsigned char *needle;
	size_t n;
	uint64_t found;
};

static int find_code_in(void *ctx, uint64_t lo, uint64_t hi, const char *perm, const char *name)
{
	static unsigned char buf[65536 + 16];
	struct find_code *fc = ctx;
	uint64_t a;

	if (perm[2] != 'x' || !is_libc(name, 0))
		return 0;
	for (a = lo; a < hi && !fc->found; a += 65536) {
		size_t len = hi - a < sizeof(buf) ? (size_t)(hi - a) : sizeof(buf);
		size_t i;

		if (inject_read(fc->in, a, buf, len))
			break;
		for (i = 0; i + fc->n <= len; i++)
			if (!memcmp(buf + i, fc->needle, fc->n)) {
				fc->found = a + i;
				break;
			}
	}
	return fc->found != 0;
}

/* The first address of needle (n bytes) in the executable mappings of
 * the C library of in's process: 0 when there is none. */
static uint64_t find_code(const struct inject *in, const unsigned char *needle, size_t n)
{
	struct find_code fc = { in, needle, n, 0 };

	maps_each(in->pid, find_code_in, &fc);
	return fc.found;
}

/* how far above a thread's stack pointer inject_interrupted() looks */
#define SIGFRAME_SCAN ((uint64_t)64 << 10)

/* The end of the mapping that holds *(uint64_t *)ctx, into it. */
static int end_of(void *ctx, uint64_t lo, uint64_t hi, const char *perm, const char *name)
{
	uint64_t *addr = ctx;

	(void)perm;
	(void)name;
	if (*addr < lo || *addr >= hi)
		return 0;
	*addr = hi;
	return 1;
}

/* The end of process pid's mapping that holds addr: 0 when none does. */
static uint64_t mapping_end(pid_t pid, uint64_t addr)
{
	return maps_each(pid, end_of, &addr) == 1 ? addr : 0;
}

void inject_interrupted(struct inject *in, size_t i)
{
	struct inject_thread *t = &in->t[i];
	/* glibc's __restore_rt: mov $15, %rax; syscall */
	static const unsigned char restore[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	static uint64_t buf[SIGFRAME_SCAN / 8];
	uint64_t lo = t->sp & ~(uint64_t)7, hi = mapping_end(in->pid, lo), k, words;

	t->nintr = 0;
	if (!hi || (!in->restore_rt && !(in->restore_rt = find_code(in, restore,
								       sizeof(restore)))))
		return;
	if (hi - lo > sizeof(buf))
		hi = lo + sizeof(buf);
	if (inject_read(in, lo, buf, (size_t)(hi - lo)))
		return;
	words = (hi - lo) / 8;
	for (k = 0; k + sizeof(struct kframe) / 8 <= words; k++) {
		struct kframe f;

		if (buf[k] != in->restore_rt)
			continue;
		memcpy(&f, &buf[k], sizeof(f));
		/* one the kernel wrote: user code and stack segments, its
		 * flags */
		if (f.uc.mc.cs != 0x33 || (f.uc.mc.ss != 0x2b && f.uc.mc.ss != 0) ||
		    (f.uc.flags & ~(uint64_t)(UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS)))
			continue;
		if (t->nintr < 0)
			continue;
		if (t->nintr == INJECT_INTR) {
			t->nintr = -1;
			continue;
		}
		t->intr[t->nintr++] = f.uc.mc.rip;
	}
}

int inject_borrow(struct inject *in)
{
	static const unsigned char sys_ret[] = { 0x0f, 0x05, 0xc3 };
	/* glibc's __restore_rt: mov $15, %rax; syscall */
	static const unsigned char restore[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	struct inject_state *s;

	if (!in->n)
		return -1;
	if (!in->sys_ret && !(in->sys_ret = find_code(in, sys_ret, sizeof(sys_ret)))) {
		errno = ENOEXEC;
		return -1;
	}
	if (!in->restore_rt &&
	    !(in->restore_rt = find_code(in, restore, sizeof(restore)))) {
		errno = ENOEXEC;
		return -1;
	}
	if (!in->state)
		in->state = xmalloc(sizeof(*in->state));
	s = in->state;
	get_state(in->t[0].tid, s);
	if (write_frame(in, s))
		return -1;
	in->borrowed = 1;
	return 0;
}

uint64_t inject_frame_uc(const struct inject *in)
{
	return in->state->frame + 8;
}

long inject_syscall(struct inject *in, long nr, long a, long b, long c, long d, long e,
		    long f)
{
	struct user_regs_struct r = in->state->r;
	struct inject_thread *t = &in->t[0];
	pid_t tid = t->tid;
	int st, stops = 0, sig = 0;

	r.rip = in->sys_ret;
	r.rsp = in->state->frame; /* the ret after the syscall: rt_sigreturn */
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1; /* no system call to restart */
	r.rdi = (uint64_t)a; r.rsi = (uint64_t)b; r.rdx = (uint64_t)c;
	r.r10 = (uint64_t)d; r.r8 = (uint64_t)e; r.r9 = (uint64_t)f;
	/* the registers first: killed between the two, mt-record leaves a
	 * thread that makes the call and goes back through the frame, its
	 * own mask given back (the other order: its own code, every signal
	 * blocked for good) */
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) || set_mask(tid, ~(uint64_t)0))
		die_errno(MT_EXIT_SYSTEM, "ptrace(a system call in process %d)", (int)in->pid);
	/* to its system call's exit: syscall stops (never a SIGTRAP to
	 * deliver, should mt-record die there: TRACESYSGOOD); every signal
	 * blocked, a SIGSTOP's delivery but: held back */
	for (;;) {
		if (resume(t, PTRACE_SYSCALL, sig) || next_stop(t, &st))
			die(MT_EXIT_SYSTEM, "process %d ended while mt-record had it make a "
			    "system call", (int)in->pid);
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = delivery(st);
			if (sig && !hold(t, sig))
				sig = 0;
			continue;
		}
		sig = 0;
		get_regs(tid, &r);
		if (r.rip != in->sys_ret + 2 || (long)r.orig_rax != nr)
			die(MT_EXIT_SYSTEM, "process %d: a system call mt-record had it make "
			    "went astray (at %#llx)", (int)in->pid, (unsigned long long)r.rip);
		if (++stops == 2) /* its entry, then its exit */
			return (long)r.rax;
	}
}

int inject_run(struct inject *in, uint64_t ip, uint64_t arg)
{
	struct user_regs_struct r = in->state->r;
	pid_t tid = in->t[0].tid;

	r.rip = ip;
	r.rsp = in->state->low;
	r.rdi = arg;
	r.rax = 0;
	r.orig_rax = (uint64_t)-1;
	r.eflags &= ~(uint64_t)0x400; /* the direction flag clear */
	/* every signal blocked but glibc's SIGSETXID; SIGCANCEL too */
	/* the registers before the mask, as in inject_syscall() */
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) ||
	    set_mask(tid, ~(uint64_t)0 & ~(1ull << (SIGSETXID - 1))) ||
	    resume(&in->t[0], PTRACE_CONT, 0))
		return -1;
	in->running = 1;
	return 0;
}

/* The signal of stop st (of the borrowed thread t, running code of
 * mt-record's) to deliver as it goes on: glibc's SIGSETXID (setuid() in
 * another thread waits for it), and one more than t can hold; 0 for the
 * rest, held back (a SIGSTOP: every other is blocked). */
static int pass_on(struct inject_thread *t, int st)
{
	int sig = delivery(st);

	if (!sig || (sig != SIGSETXID && !hold(t, sig)))
		return 0;
	return sig;
}

int inject_running(struct inject *in)
{
	int st;
	pid_t w;

	if (!in->running)
		return 0;
	while ((w = waitpid(in->t[0].tid, &st, __WALL | WNOHANG)) < 0 && errno == EINTR)
		;
	if (w <= 0)
		return w < 0 ? -1 : 1;
	if (WIFEXITED(st) || WIFSIGNALED(st))
		return -1;
	/* stopped: a trap an earlier PTRACE_INTERRUPT left pending (see
	 * inject_run_out()): on; or a signal the mask cannot block (a fault
	 * in the code run, a SIGSTOP); a fault is fatal, said by the caller */
	if (st >> 16 == PTRACE_EVENT_STOP)
		return resume(&in->t[0], PTRACE_CONT, 0) ? -1 : 1;
	if (WSTOPSIG(st) == SIGSEGV || WSTOPSIG(st) == SIGBUS || WSTOPSIG(st) == SIGILL ||
	    WSTOPSIG(st) == SIGFPE || WSTOPSIG(st) == SIGTRAP) {
		in->running = 0;
		return -2;
	}
	if (resume(&in->t[0], PTRACE_CONT, pass_on(&in->t[0], st)))
		return -1;
	return 1;
}

int inject_take_back(struct inject *in, uint64_t lo, uint64_t hi)
{
	struct user_regs_struct r;
	pid_t tid = in->t[0].tid;
	int st;

	if (!in->borrowed)
		return 0;
	if (in->running) {
		if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
			return -1;
		for (;;) {
			if (next_stop(&in->t[0], &st))
				return -1;
			if (st >> 16 == PTRACE_EVENT_STOP)
				break;
			/* a signal's delivery first: passed on (the stop
			 * asked for comes after), or held back */
			if (resume(&in->t[0], PTRACE_CONT, pass_on(&in->t[0], st)))
				return -1;
		}
		in->running = 0;
	}
	get_regs(tid, &r);
	in->borrowed = 0;
	if (lo < hi && (r.rip < lo || r.rip >= hi))
		return 1; /* it went back through the frame by itself */
	/* from any stop (a system call's exit too: PTRACE_DETACH wakes it
	 * with a signal pending, so the kernel's restart of a system call
	 * the state was in runs on the registers put back) */
	if (put_state(tid, in->state))
		die_errno(MT_EXIT_SYSTEM, "ptrace(putting back thread %d's registers)", (int)tid);
	return 0;
}

struct libc_code {
	uint64_t (*rg)[2];
	size_t n, max;
};

static int libc_code_in(void *ctx, uint64_t lo, uint64_t hi, const char *perm, const char *name)
{
	struct libc_code *lc = ctx;

	if (perm[2] != 'x' || !is_libc(name, 1))
		return 0;
	lc->rg[lc->n][0] = lo;
	lc->rg[lc->n][1] = hi;
	return ++lc->n == lc->max;
}

/* The executable mappings of the C library and the dynamic loader of
 * process pid, at most max of them, into rg: how many. */
static size_t libc_code(pid_t pid, uint64_t (*rg)[2], size_t max)
{
	struct libc_code lc = { rg, 0, max };

	if (max)
		maps_each(pid, libc_code_in, &lc);
	return lc.n;
}

/* Whether system call nr waits for something outside the process (a
 * thread blocked in one holds no lock of the C library's). */
static int waits_outside(long nr)
{
	static const long nrs[] = {
		0 /* read */, 1 /* write */, 7 /* poll */, 17 /* pread64 */, 19 /* readv */,
		23 /* select */, 34 /* pause */, 35 /* nanosleep */, 42 /* connect */,
		43 /* accept */, 44 /* sendto */, 45 /* recvfrom */, 46 /* sendmsg */,
		47 /* recvmsg */, 61 /* wait4 */, 70 /* msgrcv */, 128 /* rt_sigtimedwait */,
		130 /* rt_sigsuspend */, 230 /* clock_nanosleep */, 232 /* epoll_wait */,
		247 /* waitid */, 270 /* pselect6 */, 271 /* ppoll */, 281 /* epoll_pwait */,
		288 /* accept4 */, 299 /* recvmmsg */, 441 /* epoll_pwait2 */
	};
	size_t i;

	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		if (nrs[i] == nr)
			return 1;
	return 0;
}

/* Whether held thread tid may call into the C library as it is: it is
 * stopped in code of the program's (not the C library's or the dynamic
 * loader's, which may hold their locks: malloc's, the thread stacks'),
 * or waits in a system call for something outside the process; late,
 * in a futex wait too. */
static int may_borrow(pid_t tid, const uint64_t (*rg)[2], size_t nrg, int late)
{
	struct user_regs_struct r;
	size_t k;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r))
		return 0;
	if ((long)r.orig_rax >= 0)
		return waits_outside((long)r.orig_rax) || (late && r.orig_rax == 202);
	for (k = 0; k < nrg; k++)
		if (r.rip >= rg[k][0] && r.rip < rg[k][1])
			return 0;
	return 1;
}

int inject_choose(struct inject *in, int tries)
{
	uint64_t rg[16][2];
	size_t nrg = libc_code(in->pid, rg, 16), i;
	int round;

	for (round = 0; round < tries; round++) {
		struct timespec pause = { 0, 1000000 + 100000 * (round % 20) };

		if (!inject_stop_all(in))
			return -1;
		for (i = 0; i < in->n; i++)
			if (in->t[i].tid != in->avoid &&
			    may_borrow(in->t[i].tid, (const uint64_t (*)[2])rg, nrg,
				       round >= tries / 2)) {
				struct inject_thread t = in->t[i];

				in->t[i] = in->t[0];
				in->t[0] = t;
				return 0;
			}
		inject_release_all(in);
		nanosleep(&pause, NULL);
	}
	errno = EBUSY;
	return -1;
}

int inject_getfd(const struct inject *in, int fd)
{
	if (in->pidfd < 0) {
		errno = ENOSYS;
		return -1;
	}
	return (int)syscall(SYS_pidfd_getfd, in->pidfd, fd, 0);
}

int inject_alive(const struct inject *in)
{
	struct pollfd p = { in->pidfd, POLLIN, 0 };

	if (in->pidfd < 0)
		return !(kill(in->pid, 0) && errno == ESRCH);
	return poll(&p, 1, 0) == 0;
}

int inject_run_out(struct inject *in, size_t i,
		   int (*inside)(const void *ctx, const struct inject *in,
				 const struct inject_thread *t),
		   const void *ctx, int tries)
{
	struct inject_thread *t = &in->t[i];
	struct user_regs_struct r;
	int st, sig;
	long ran;
	pid_t w;
	int asked;

	for (ran = 1;; ran++) {
		/* a moment that grows, 20 us to 2 ms: a thread that a busy
		 * host (a VM's stolen time) did not run at all gets more */
		struct timespec moment = { 0, ran < 100 ? 20000L * ran : 2000000L };

		if (ptrace(PTRACE_GETREGS, t->tid, NULL, &r))
			return -1;
		t->ip = r.rip;
		t->fs_base = r.fs_base;
		t->sp = r.rsp;
		t->in_syscall = (long)r.orig_rax >= 0;
		if (!inside(ctx, in, t))
			return 0;
		/* a signal whose delivery it is stopped in stays held */
		if (tries-- <= 0 || resume(t, PTRACE_CONT, 0))
			return -1;
		nanosleep(&moment, NULL);
		/*
		 * Stopped already, at once, by a trap an earlier
		 * PTRACE_INTERRUPT left pending (one sent while the thread was
		 * in a stop, a signal's delivery that came first, takes effect
		 * after that stop): that stop is this moment's, and no
		 * interrupt is sent, for one sent now to a thread stopped so
		 * would be pending again and stop it at once the next time:
		 * round after round it would never run (a thread held in a
		 * signal's delivery in the hooks never left them, 1 detach in
		 * 50 under SIGSETXIDs).
		 */
		while ((w = waitpid(t->tid, &st, __WALL | WNOHANG)) < 0)
			if (errno != EINTR)
				return -1;
		asked = 0;
		for (;;) {
			if (w == 0) {
				if (!asked && ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL))
					return -1;
				asked = 1;
				while (waitpid(t->tid, &st, __WALL) < 0)
					if (errno != EINTR)
						return -1;
			}
			w = 0;
			if (WIFEXITED(st) || WIFSIGNALED(st))
				return -1;
			if (!WIFSTOPPED(st) || st >> 16 == PTRACE_EVENT_STOP)
				break;
			/* a signal came first: held back, given back when it
			 * goes (one more than it can hold: delivered); on to
			 * the stop asked for */
			sig = delivery(st);
			if (sig && !hold(t, sig))
				sig = 0;
			if (resume(t, PTRACE_CONT, sig))
				return -1;
		}
	}
}

void inject_close(struct inject *in)
{
	inject_release_all(in);
	if (in->mem >= 0)
		close(in->mem);
	in->mem = -1;
	if (in->pidfd >= 0)
		close(in->pidfd);
	in->pidfd = -1;
	free(in->state);
	in->state = NULL;
	free(in->t);
	in->t = NULL;
	in->cap = 0;
}
