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
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "err.h"
#include "inject.h"
#include "procsyms.h"
#include "banned.h"

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

	memset(in, 0, sizeof(*in));
	in->pid = pid;
	in->soft = soft;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((in->mem = open(path, O_RDWR | O_CLOEXEC)) >= 0)
		return 0;
	if (errno == ENOENT || errno == ESRCH || soft)
		return -1;
	no_ptrace(pid, errno);
}

static struct inject_thread *held(struct inject *in, pid_t tid)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (in->t[i].tid == tid)
			return &in->t[i];
	return NULL;
}

/* Waits for thread tid's stop: 0 (a signal it held back in *sig), or -1
 * when it ended. */
static int wait_stop(pid_t tid, int *sig)
{
	int st;

	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return -1;
		if (!WIFSTOPPED(st))
			continue;
		if (st >> 16 == PTRACE_EVENT_STOP)
			return 0;
		/* a signal's delivery stop came first: held back, given back
		 * when the thread goes */
		*sig = WSTOPSIG(st);
		return 0;
	}
}

static void get_regs(pid_t tid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, r))
		die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_GETREGS, %d)", (int)tid);
}

size_t inject_stop_all(struct inject *in)
{
	char path[64];
	size_t i, found;

	do {
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)in->pid);
		if (!(d = opendir(path)))
			return in->n = 0;
		found = 0;
		while ((e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);
			struct inject_thread *t;
			int sig = 0;

			if (tid <= 0 || held(in, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL)) {
				int err = errno;

				if (err == ESRCH)
					continue; /* it ended */
				closedir(d);
				if (in->soft) {
					inject_release_all(in);
					errno = err;
					return 0;
				}
				no_ptrace(in->pid, err);
			}
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) || wait_stop(tid, &sig))
				continue; /* it ended */
			grow_or_die(&in->t, &in->cap, in->n + 1, sizeof(*in->t));
			t = &in->t[in->n++];
			t->tid = tid;
			t->sig = sig;
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
		in->t[i++].ip = r.rip;
	}
	return in->n;
}

static void release(struct inject_thread *t)
{
	/* ESRCH: it ended meanwhile */
	if (ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)t->sig) && errno != ESRCH)
		warn("ptrace(PTRACE_DETACH, %d): %s", (int)t->tid, strerror(errno));
}

void inject_release_all(struct inject *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		release(&in->t[i]);
	in->n = 0;
}

void inject_release_others(struct inject *in)
{
	size_t i;

	for (i = 1; i < in->n; i++)
		release(&in->t[i]);
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

/* A thread's registers, the vector ones too. */
struct saved {
	struct user_regs_struct r;
	unsigned char x[XSTATE_MAX];
	struct iovec iov;
	int have_x;
};

static void save(pid_t tid, struct saved *s)
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
}

static int restore(pid_t tid, struct saved *s)
{
	int bad = ptrace(PTRACE_SETREGS, tid, NULL, &s->r) != 0;

	if (s->have_x)
		bad |= ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &s->iov) != 0;
	else
		bad |= ptrace(PTRACE_SETFPREGS, tid, NULL, s->x) != 0;
	return bad ? -1 : 0;
}

uint64_t inject_call(struct inject *in, uint64_t fn, const uint64_t *args, int nargs,
		     const char *const *strings, int nstr)
{
	static struct saved s; /* large: not on the stack */
	struct user_regs_struct r;
	uint64_t sp, at[8], ret;
	pid_t tid;
	int k, st;

	if (!in->n || nargs > 6 || nstr > 8)
		die(MT_EXIT_SYSTEM, "inject_call: no thread held, or too many arguments");
	tid = in->t[0].tid;
	save(tid, &s);
	r = s.r;
	sp = r.rsp - RED_ZONE;
	for (k = 0; k < nstr; k++) {
		size_t len = strlen(strings[k]) + 1;

		sp = (sp - len) & ~(uint64_t)15;
		at[k] = sp;
		if (inject_write(in, sp, strings[k], len))
			die_errno(MT_EXIT_SYSTEM, "writing to process %d's stack", (int)in->pid);
	}
	/* as a call leaves it: the return address (0: the call's end faults
	 * there) at a stack pointer 8 off 16-byte alignment */
	sp = (sp & ~(uint64_t)15) - 8;
	ret = 0;
	if (inject_write(in, sp, &ret, sizeof(ret)))
		die_errno(MT_EXIT_SYSTEM, "writing to process %d's stack", (int)in->pid);
	r.rsp = sp;
	r.rip = fn;
	r.rax = 0;
	r.orig_rax = (uint64_t)-1; /* no system call to restart */
	r.eflags &= ~(uint64_t)0x400; /* the direction flag clear */
	for (k = 0; k < nargs; k++) {
		uint64_t v = args[k] >= INJECT_STR(0) && args[k] < INJECT_STR(nstr) ?
			     at[args[k] - INJECT_STR(0)] : args[k];

		switch (k) {
		case 0: r.rdi = v; break;
		case 1: r.rsi = v; break;
		case 2: r.rdx = v; break;
		case 3: r.rcx = v; break;
		case 4: r.r8 = v; break;
		case 5: r.r9 = v; break;
		}
	}
	if (ptrace(PTRACE_SETREGS, tid, NULL, &r) || ptrace(PTRACE_CONT, tid, NULL, NULL))
		die_errno(MT_EXIT_SYSTEM, "ptrace(a call in process %d)", (int)in->pid);
	for (;;) {
		int sig;

		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			die_errno(MT_EXIT_SYSTEM, "waitpid(%d)", (int)tid);
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			die(MT_EXIT_SYSTEM, "process %d ended while mt-record had it load "
			    "the patch runtime", (int)in->pid);
		if (!WIFSTOPPED(st))
			continue;
		sig = st >> 16 == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(st);
		if (sig == SIGSEGV) {
			get_regs(tid, &r);
			if (r.rip == 0)
				break; /* returned */
			restore(tid, &s);
			die(MT_EXIT_SYSTEM, "process %d faulted at %#llx while mt-record had it "
			    "load the patch runtime", (int)in->pid, (unsigned long long)r.rip);
		}
		/* another signal: delivered (its handler runs, then the call
		 * goes on) */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig))
			die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_CONT, %d)", (int)tid);
	}
	ret = r.rax;
	if (restore(tid, &s))
		die_errno(MT_EXIT_SYSTEM, "ptrace(putting back thread %d's registers)", (int)tid);
	return ret;
}

int inject_step_out(struct inject *in, size_t i, uint64_t lo, uint64_t hi, long max)
{
	struct inject_thread *t = &in->t[i];
	struct user_regs_struct r;
	int st;

	for (;;) {
		if (ptrace(PTRACE_GETREGS, t->tid, NULL, &r))
			return -1;
		t->ip = r.rip;
		if (r.rip < lo || r.rip >= hi)
			return 0;
		if (max-- <= 0 || ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL))
			return -1;
		while (waitpid(t->tid, &st, __WALL) < 0)
			if (errno != EINTR)
				return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return -1;
		if (WIFSTOPPED(st) && st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP && !t->sig)
			t->sig = WSTOPSIG(st); /* held back, as a stop's */
	}
}

uint64_t inject_symbol(pid_t pid, const char *base, const char *name)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	uint64_t rt = 0;
	size_t k, i;

	if (mt_procsyms_read(&ps, pid) < 0) {
		mt_procsyms_release(&ps);
		return 0;
	}
	for (k = 0; k < ps.nfiles && !rt; k++) {
		const char *path = ps.files[k].path, *b = strrchr(path, '/');
		const struct mt_symtab *t = &ps.files[k].sym.t;

		if (path[0] != '/')
			continue;
		if (strchr(base, '/') ? strcmp(path, base) : strncmp(b + 1, base, strlen(base)))
			continue;
		if (mt_procsyms_load(&ps, k, NULL, 0, 0) < 0)
			continue;
		for (i = 0; i < t->n; i++)
			if (t->v[i].bind != MT_SYM_PLT && t->v[i].addr &&
			    !strcmp(t->v[i].name, name)) {
				if (mt_procsyms_runtime(&ps, k, t, t->v[i].addr, &rt))
					rt = 0;
				break;
			}
	}
	mt_procsyms_release(&ps);
	return rt;
}

void inject_close(struct inject *in)
{
	inject_release_all(in);
	if (in->mem >= 0)
		close(in->mem);
	in->mem = -1;
	free(in->t);
	in->t = NULL;
	in->cap = 0;
}
