/*
 * ptsynth: run a program under ptrace single-stepping, from exec to exit,
 * and write what Intel PT would have recorded of it as a perf.data file
 * that real perf decodes, plus the ground truth. See tests/ptsynth/
 * README.md for the usage, the truth file and the limits.
 *
 * usage: ptsynth [-v] [-o perf.data] [--truth FILE] [--timing fine|coarse]
 *                [--aslr] -- PROGRAM [ARGS]
 *
 * Each thread is stepped one instruction at a time; a thread's next step is
 * issued as soon as its last one is handled, so threads run interleaved as
 * the kernel schedules them. The time of an instruction is a global step
 * counter taken when its step is issued (TIME_BASE + step * NS_PER_STEP
 * ns), so that each thread's times grow and sideband records can be placed
 * between the steps they describe.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "ptsynth.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE "usage: ptsynth [-v] [-o perf.data] [--truth FILE] " \
	"[--timing fine|coarse] [--aslr] -- PROGRAM [ARGS]\n"

static int verbose;
/* PTSYNTH_FAKE_LATE_TRAP set: make the trap after each cpuid come one
 * instruction late, as some hypervisors do, to test the repair */
static int fake_late;
static pid_t leader;
static uint64_t steps;
static unsigned long long n_steps, n_rep, n_fill, n_signals, n_syscalls;

static uint64_t next_time(void)
{
	return TIME_BASE + ++steps * NS_PER_STEP;
}

/* ---- instruction cache: address -> decoded instruction ---- */

struct islot {
	uint64_t addr;
	struct insn in;
	int used;
};
static struct islot *icache;
static size_t icap = 1 << 16, icount;

static void icache_clear(void)
{
	memset(icache, 0, icap * sizeof(*icache));
	icount = 0;
}

static size_t ihash(uint64_t a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 24) & (cap - 1);
}

static void icache_put(const struct insn *in)
{
	size_t h;

	if (2 * (icount + 1) > icap) {
		struct islot *old = icache;
		size_t oldcap = icap;

		icap *= 2;
		icache = xcalloc(icap, sizeof(*icache));
		icount = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].used)
				icache_put(&old[i].in);
		free(old);
	}
	h = ihash(in->addr, icap);
	while (icache[h].used)
		h = (h + 1) & (icap - 1);
	icache[h].used = 1;
	icache[h].addr = in->addr;
	icache[h].in = *in;
	icount++;
}

static size_t read_mem(pid_t tid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t got = process_vm_readv(tid, &local, 1, &remote, 1, 0);

	if (got < 0) {
		/* the bytes may end at a page that is not mapped */
		uint64_t room = 4096 - (addr & 4095);

		if (room >= n)
			return 0;
		local.iov_len = remote.iov_len = (size_t)room;
		got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (got < 0)
			return 0;
	}
	return (size_t)got;
}

size_t tracee_read(uint32_t tid, uint64_t addr, void *buf, size_t n)
{
	return read_mem((pid_t)tid, addr, buf, n);
}

static void decode_at(pid_t tid, uint64_t addr, struct insn *in)
{
	uint8_t buf[16];
	size_t h = ihash(addr, icap), n;

	while (icache[h].used) {
		if (icache[h].addr == addr) {
			*in = icache[h].in;
			return;
		}
		h = (h + 1) & (icap - 1);
	}
	n = read_mem(tid, addr, buf, sizeof(buf));
	if (!n)
		die(MT_EXIT_SYSTEM, "thread %d: cannot read the code at %#" PRIx64,
		    (int)tid, addr);
	if (insn_decode(buf, n, addr, in))
		die(MT_EXIT_DATA, "thread %d: capstone cannot decode the code at %#"
		    PRIx64, (int)tid, addr);
	icache_put(in);
}

/* ---- the process's executable mappings ---- */

struct known {
	uint64_t start, end, pgoff, ino;
	char *path;
};
static struct known *known;
static size_t nknown, capknown;

static int is_known(uint64_t start, uint64_t end, uint64_t pgoff,
		    uint64_t ino, const char *path)
{
	for (size_t i = 0; i < nknown; i++)
		if (known[i].start == start && known[i].end == end &&
		    known[i].pgoff == pgoff && known[i].ino == ino &&
		    !strcmp(known[i].path, path))
			return 1;
	return 0;
}

/* Read /proc/PID/maps; new executable mappings go to the symboliser and,
 * as MMAP2 records at time, to perf. */
static void scan_maps(pid_t pid, uint64_t time)
{
	char name[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		die_errno(MT_EXIT_SYSTEM, "cannot open %s", name);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int pos = 0;
		const char *path;
		size_t len;
		const struct sym_map *m;
		uint8_t *image = NULL;
		size_t image_len = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perms, &pgoff, &maj, &min, &ino, &pos) < 7)
			continue;
		path = line + pos;
		len = strlen(path);
		while (len && (path[len - 1] == '\n' || path[len - 1] == ' '))
			line[pos + --len] = '\0';
		if (!strchr(perms, 'x') || start >= 0x800000000000ull || !*path)
			continue;
		if (is_known(start, end, pgoff, ino, path))
			continue;
		grow_or_die(&known, &capknown, nknown, sizeof(*known));
		known[nknown].start = start;
		known[nknown].end = end;
		known[nknown].pgoff = pgoff;
		known[nknown].ino = ino;
		known[nknown].path = xstrdup(path);
		nknown++;
		if (!strcmp(path, "[vdso]")) {
			image_len = (size_t)(end - start);
			image = xmalloc(image_len);
			if (read_mem(pid, start, image, image_len) != image_len)
				die(MT_EXIT_SYSTEM, "cannot read the [vdso] of %d", (int)pid);
		}
		m = sym_add_map(start, end, pgoff, maj, min, ino, path, image,
				image_len);
		pd_mmap2((uint32_t)pid, (uint32_t)pid, m, time);
		free(image);
	}
	free(line);
	fclose(f);
}

static void read_comm(pid_t tid, char *comm, size_t size)
{
	char name[64];
	FILE *f;

	snprintf(comm, size, "?");
	snprintf(name, sizeof(name), "/proc/%d/comm", (int)tid);
	f = fopen(name, "re");
	if (!f)
		return;
	if (fgets(comm, (int)size, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

/* ---- tasks: the traced threads ---- */

struct task {
	pid_t tid;
	struct thread *enc;
	int started;		/* the first stop was seen */
	struct insn cur;	/* at rip: the instruction being stepped */
	uint64_t time;		/* its time */
	uint64_t sysno;		/* rax when cur is a syscall */
	uint64_t rsp;		/* rsp at cur */
	uint64_t fs;		/* FS base after the last step */
	int sig;		/* a signal injected with the step */
	int pge;		/* tracing starts again at the next instruction */
	int pge_sigreturn;	/* after rt_sigreturn */
	uint64_t handler_rsp;	/* and there a signal handler begins */
	int ended;
	int late;		/* a late trap is being faked */
};

static struct task *tasks;
static size_t ntasks, captasks;

static struct task *task_find(pid_t tid)
{
	for (size_t i = 0; i < ntasks; i++)
		if (tasks[i].tid == tid)
			return &tasks[i];
	return NULL;
}

static struct task *task_new(pid_t tid, pid_t parent)
{
	struct task *t;
	char comm[32];
	uint64_t time = next_time();

	grow_or_die(&tasks, &captasks, ntasks, sizeof(*tasks));
	t = &tasks[ntasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->enc = enc_thread_new((uint32_t)leader, (uint32_t)tid);
	t->pge = 1;
	read_comm(tid, comm, sizeof(comm));
	if (tid == leader) {
		pd_comm((uint32_t)leader, (uint32_t)tid, comm, 1, time);
	} else {
		pd_fork((uint32_t)leader, (uint32_t)leader, (uint32_t)tid,
			(uint32_t)(parent ? parent : leader), time);
		pd_comm((uint32_t)leader, (uint32_t)tid, comm, 0, time);
	}
	return t;
}

/* 0, or -1 when the task is gone: killed while it was reported stopped
 * (another thread's exit_group), its end comes next from waitpid. */
static int get_regs(pid_t tid, struct user_regs_struct *r)
{
	if (!ptrace(PTRACE_GETREGS, tid, 0, r))
		return 0;
	if (errno != ESRCH)
		die_errno(MT_EXIT_SYSTEM, "PTRACE_GETREGS %d", (int)tid);
	return -1;
}

/* Step the task's current instruction, with signal sig. */
static void step(struct task *t, int sig)
{
	t->sig = sig;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, 0, (void *)(intptr_t)sig) &&
	    errno != ESRCH)
		die_errno(MT_EXIT_SYSTEM, "PTRACE_SINGLESTEP %d", (int)t->tid);
}

/* The task stopped at rip with the registers r: the next instruction. */
static void at(struct task *t, const struct user_regs_struct *r)
{
	decode_at(t->tid, r->rip, &t->cur);
	t->time = next_time();
	t->sysno = r->rax;
	t->rsp = r->rsp;
	t->fs = r->fs_base;
	if (t->cur.cls == IC_SYSCALL) {
		if (r->rax == 59 || r->rax == 322)
			die(MT_EXIT_DATA, "thread %d calls execve: ptsynth traces one "
			    "program image only", (int)t->tid);
		n_syscalls++;
	}
	step(t, 0);
}

/* Whether control may go from in to next. */
static int may_follow(const struct insn *in, uint64_t next)
{
	switch (in->cls) {
	case IC_OTHER:
		return next == in->addr + in->len;
	case IC_JCC:
		return next == in->addr + in->len || next == in->target;
	case IC_JMP:
	case IC_CALL:
		return next == in->target;
	default:
		return 1;
	}
}

/* Run in (to next) through the encoder, starting the trace first. */
static void run(struct task *t, const struct insn *in, uint64_t next,
		uint64_t rsp, uint64_t time)
{
	if (t->pge) {
		enc_begin(t->enc, in->addr, time, t->handler_rsp, t->rsp,
			  t->pge_sigreturn);
		t->pge = 0;
		t->pge_sigreturn = 0;
		t->handler_rsp = 0;
	}
	enc_exec(t->enc, in, next, rsp, t->fs, time);
	if (in->cls == IC_SYSCALL) {
		t->pge = 1;
		t->pge_sigreturn = t->sysno == 15;
	}
}

/*
 * The step of in ended at next, which cannot follow it: the trap came late
 * (on this kind of VM, after cpuid). Find the instructions in between from
 * their decoded lengths: a path of at most 3 along determined successors.
 */
static int fill(struct task *t, const struct insn *in, uint64_t next,
		uint64_t rsp, int depth, int dry)
{
	uint64_t cand[2];
	int nc = 0, found = 0;

	switch (in->cls) {
	case IC_OTHER:
		cand[nc++] = in->addr + in->len;
		break;
	case IC_JCC:
		cand[nc++] = in->addr + in->len;
		cand[nc++] = in->target;
		break;
	case IC_JMP:
	case IC_CALL:
		cand[nc++] = in->target;
		break;
	default:
		return 0;
	}
	for (int i = 0; i < nc; i++) {
		struct insn q;

		decode_at(t->tid, cand[i], &q);
		if (may_follow(&q, next) || (depth < 3 && fill(t, &q, next, rsp, depth + 1, 1))) {
			if (found++)
				return 0;	/* ambiguous */
		}
	}
	if (found != 1)
		return 0;
	if (dry)
		return 1;
	for (int i = 0; i < nc; i++) {
		struct insn q;

		decode_at(t->tid, cand[i], &q);
		if (may_follow(&q, next)) {
			run(t, in, q.addr, rsp, depth ? next_time() : t->time);
			run(t, &q, next, rsp, next_time());
			n_fill++;
			return 1;
		}
		if (fill(t, &q, next, rsp, depth + 1, 1)) {
			run(t, in, q.addr, rsp, depth ? next_time() : t->time);
			return fill(t, &q, next, rsp, depth + 1, 0);
		}
	}
	return 0;
}

static int mapping_syscall(uint64_t nr)
{
	return nr == 9 || nr == 10 || nr == 11 || nr == 25 || nr == 329;
}

/*
 * After a signal was injected with the step: whether this stop is the one
 * the kernel makes when it has set up a handler's frame (ptrace_notify(),
 * si_code SIGTRAP) rather than the trap of the executed instruction.
 */
static int handler_entry(struct task *t)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si))
		die_errno(MT_EXIT_SYSTEM, "PTRACE_GETSIGINFO %d", (int)t->tid);
	return si.si_code == SIGTRAP;
}

/* A single-step trap: t executed t->cur (or a signal handler begins). */
static void stepped(struct task *t)
{
	struct user_regs_struct r;
	uint64_t next;

	if (get_regs(t->tid, &r))
		return;
	next = r.rip;
	t->fs = r.fs_base;
	n_steps++;
	if (fake_late && t->cur.cpuid && !t->late && !t->sig) {
		t->late = 1;
		step(t, 0);	/* the next instruction too, unseen */
		return;
	}
	t->late = 0;
	if (t->cur.rep && next == t->cur.addr && !t->sig) {
		/* one iteration of a rep string instruction */
		n_rep++;
		step(t, 0);
		return;
	}
	if (t->sig && handler_entry(t)) {
		/* the signal was delivered before t->cur ran: the handler's
		 * first instruction is next */
		n_signals++;
		if (!t->pge)
			enc_async(t->enc, t->cur.addr, t->time);
		t->pge = 1;
		t->handler_rsp = r.rsp;
		at(t, &r);
		return;
	}
	if (may_follow(&t->cur, next)) {
		run(t, &t->cur, next, r.rsp, t->time);
	} else if (!fill(t, &t->cur, next, r.rsp, 0, 0)) {
		die(MT_EXIT_DATA, "thread %d: the %s at %#" PRIx64 " was followed by %#"
		    PRIx64 ", which it cannot reach", (int)t->tid,
		    insn_class_name(t->cur.cls), t->cur.addr, next);
	}
	if (t->cur.cls == IC_SYSCALL && mapping_syscall(t->sysno)) {
		icache_clear();
		scan_maps(leader, next_time());
	}
	at(t, &r);
}

/* The thread is exiting: what it was doing when it stopped ends there. */
static void exiting(struct task *t)
{
	if (t->ended || !t->started)
		return;
	t->ended = 1;
	if (t->cur.cls == IC_SYSCALL)
		run(t, &t->cur, 0, 0, t->time);	/* exit, or killed in a call */
	else if (!t->pge)
		enc_async(t->enc, t->cur.addr, t->time);
	enc_end(t->enc);
}

static void first_stop(struct task *t)
{
	struct user_regs_struct r;

	t->started = 1;
	if (!get_regs(t->tid, &r))
		at(t, &r);
}

static void trace(void)
{
	int status;
	pid_t tid;
	struct task *t;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL;

	if (waitpid(leader, &status, __WALL) != leader || !WIFSTOPPED(status))
		die(MT_EXIT_SYSTEM, "the program did not start");
	if (ptrace(PTRACE_SETOPTIONS, leader, 0, (void *)opts))
		die_errno(MT_EXIT_SYSTEM, "PTRACE_SETOPTIONS");
	/* the sideband comes before any TSC of the code it covers */
	t = task_new(leader, 0);
	scan_maps(leader, next_time());
	first_stop(t);
	while (ntasks) {
		unsigned event;
		int sig;

		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			die_errno(MT_EXIT_SYSTEM, "waitpid");
		}
		t = task_find(tid);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (t) {
				exiting(t);
				*t = tasks[--ntasks];
			}
			if (tid == leader && WIFSIGNALED(status))
				warn("the program was killed by signal %d",
				     WTERMSIG(status));
			else if (tid == leader && WEXITSTATUS(status))
				warn("the program exited with status %d",
				     WEXITSTATUS(status));
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (!t) {
			/* a new thread, before its parent's clone event */
			t = task_new(tid, 0);
		}
		sig = WSTOPSIG(status);
		event = (unsigned)status >> 16;
		if (sig == SIGTRAP && event == PTRACE_EVENT_CLONE) {
			unsigned long child;

			if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &child))
				die_errno(MT_EXIT_SYSTEM, "PTRACE_GETEVENTMSG");
			if (!task_find((pid_t)child))
				task_new((pid_t)child, tid);
			step(t, 0);	/* the clone syscall goes on */
			continue;
		}
		if (sig == SIGTRAP && event == PTRACE_EVENT_EXIT) {
			exiting(t);
			if (ptrace(PTRACE_CONT, tid, 0, 0) && errno != ESRCH)
				die_errno(MT_EXIT_SYSTEM, "PTRACE_CONT");
			continue;
		}
		if (event)
			die(MT_EXIT_DATA, "thread %d: unexpected ptrace event %u",
			    (int)tid, event);
		if (!t->started) {
			/* a new thread's first stop (SIGSTOP) */
			first_stop(t);
			continue;
		}
		if (sig == SIGTRAP && t->cur.cls != IC_INT) {
			stepped(t);
			continue;
		}
		/* a signal for the program: deliver it with the step */
		step(t, sig);
	}
}

static _Noreturn void start_child(char **argv, int aslr)
{
	if (!aslr && personality(ADDR_NO_RANDOMIZE) < 0)
		die_errno(MT_EXIT_SYSTEM, "personality");
	/* the program's environment as without the switch: the same run */
	unsetenv("PTSYNTH_FAKE_LATE_TRAP");
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		die_errno(MT_EXIT_SYSTEM, "PTRACE_TRACEME");
	execvp(argv[0], argv);
	die_errno(MT_EXIT_SYSTEM, "cannot run %s", argv[0]);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aslr", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "output", required_argument, NULL, 'o' },
		{ "timing", required_argument, NULL, 't' },
		{ "truth", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = "perf.data", *truth_path = NULL;
	enum timing timing = TIMING_FINE;
	FILE *truth = NULL;
	int ch, aslr = 0;
	struct timespec t0, t1;

	mt_set_progname(argv[0]);
	fake_late = getenv("PTSYNTH_FAKE_LATE_TRAP") != NULL;
	while ((ch = getopt_long(argc, argv, "+o:v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			aslr = 1;
			break;
		case 'h':
			usage_ok(USAGE);
		case 'o':
			output = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "fine"))
				timing = TIMING_FINE;
			else if (!strcmp(optarg, "coarse"))
				timing = TIMING_COARSE;
			else
				usage_fail(USAGE);
			break;
		case 'T':
			truth_path = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage_fail(USAGE);
		}
	}
	if (optind >= argc)
		usage_fail(USAGE);
	if (truth_path && !(truth = fopen(truth_path, "we")))
		die_errno(MT_EXIT_SYSTEM, "cannot create %s", truth_path);
	if (insn_init())
		die(MT_EXIT_SYSTEM, "cannot start capstone");
	icache = xcalloc(icap, sizeof(*icache));
	sym_init();
	pd_init();
	enc_init(timing, truth);
	if (truth)
		fprintf(truth, "# ptsynth truth 1\n");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	leader = fork();
	if (leader < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (!leader)
		start_child(argv + optind, aslr);
	trace();
	enc_finish();
	pd_write(output);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (verbose)
		fprintf(stderr, "ptsynth: %llu steps (%llu rep iterations, %llu late "
			"traps filled), %llu syscalls, %llu signals, %.2f s\n",
			n_steps, n_rep, n_fill, n_syscalls, n_signals,
			(double)(t1.tv_sec - t0.tv_sec) +
				(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (truth && (fflush(truth) || ferror(truth) || fclose(truth)))
		die_errno(MT_EXIT_SYSTEM, "error writing %s", truth_path);
	enc_release();
	pd_release();
	sym_release();
	insn_release();
	for (size_t i = 0; i < nknown; i++)
		free(known[i].path);
	free(known);
	free(tasks);
	free(icache);
	return 0;
}
