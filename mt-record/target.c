/*
 * mt-record's target: the -p processes or the command it runs, checked
 * that they can be recorded, started held, released, and (traced) run to
 * the command's entry point. See target.h; its files: target-open.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "proc.h"
#include "spawn.h"
#include "target.h"
#include "xalloc.h"
#include "banned.h"

static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

void target_init(struct target *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->gate_w = t->gate_r = t->end_fd = -1;
	target_view_init(t);
	sigprocmask(SIG_SETMASK, NULL, &t->start_mask);
	sigemptyset(&t->start_ignored);
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
		struct sigaction old;

		if (!sigaction(handled[i], NULL, &old) && old.sa_handler == SIG_IGN)
			sigaddset(&t->start_ignored, handled[i]);
	}
}

void target_add_pids(struct target *t, const char *arg)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;
		size_t i;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX || (*end && *end != ','))
			die(MT_EXIT_USAGE, "-p %s: expected process ids, as 12 or 12,34", arg);
		for (i = 0; i < t->npids; i++)
			if (t->pids[i] == (pid_t)v)
				die(MT_EXIT_USAGE, "-p %s: %ld given twice", arg, v);
		grow_or_die(&t->pids, &t->pids_cap, t->npids, sizeof(*t->pids));
		t->pids[t->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
}
/* ---- targets ---- */

/* The command's executable, resolved as execvp would, then made
 * absolute (uprobes and symbols need the real file); dies (bad input)
 * saying why there is none. */
static char *find_in_path(const char *name)
{
	char *p = mt_which(name), *r = p ? realpath(p, NULL) : NULL;

	free(p);
	if (r)
		return r;
	if (errno == ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (errno == ENOENT)
		die(MT_EXIT_DATA, "%s: command not found", name);
	if (errno == EACCES)
		die(MT_EXIT_DATA, "%s: not executable", name);
	if (errno == EISDIR)
		die(MT_EXIT_DATA, "%s: is a directory", name);
	die_errno(MT_EXIT_DATA, "%s", name);
}


/* In the child, before its exec: held on the gate (its read end in
 * gate[0]) until target_release_child() says how to go on. */
static void held_child(void *arg)
{
	const struct target *t = arg;
	size_t i;
	char b;

	close(t->gate_w);
	if (read(t->gate_r, &b, 1) != 1)
		_exit(127); /* mt-record gave up */
	/* the signals as mt-record found them, not as it set them for
	 * itself: Ctrl+C and kill reach the command, SIGPIPE ends it */
	for (i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], sigismember(&t->start_ignored, handled[i]) ?
		       SIG_IGN : SIG_DFL);
	sigprocmask(SIG_SETMASK, &t->start_mask, NULL);
	for (i = 0; t->env && t->env[i]; i++)
		putenv(t->env[i]);
	/* 't': stop after execve (a traced child gets SIGTRAP there),
	 * for a breakpoint that needs the program's addresses or a
	 * trigger in its libraries */
	if (b == 't' && ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
		fprintf(stderr, "mt-record: ptrace(PTRACE_TRACEME): %s "
			"(--trigger-via uprobe does without)\n", strerror(errno));
		_exit(126);
	}
}

/* Fork the command, held until release_child(), its stdout cmd_out. */
void target_start_child(struct target *t, int cmd_out)
{
	struct mt_spawn sp = MT_SPAWN_INIT;
	int gate[2];

	t->exe = find_in_path(t->cmd[0]);
	if (pipe2(gate, O_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "pipe");
	sp.out = cmd_out;
	sp.path = t->exe;
	sp.name = t->cmd[0];  /* "mt-record: EXE: ERROR" when it cannot run */
	sp.exec_status = 127;
	sp.death_signal = SIGKILL; /* it dies with us */
	sp.child_setup = held_child;
	sp.child_arg = t;
	t->gate_r = gate[0];
	t->gate_w = gate[1];
	if (mt_spawn_start(&sp, t->cmd))
		die_errno(MT_EXIT_SYSTEM, "%s", sp.failed);
	t->child = sp.pid;
	close(gate[0]);
	t->gate_r = -1;
	t->pid = t->child;
}

/* Lets the command run; with trace_start it stops again right after
 * execve (or has ended: then child is 0), until resume_child(). */
void target_release_child(struct target *t)
{
	int st;

	if (t->gate_w < 0)
		return;
	if (write(t->gate_w, t->trace_start ? "t" : "x", 1) != 1)
		die_errno(MT_EXIT_SYSTEM, "starting %s", t->cmd[0]);
	close(t->gate_w);
	t->gate_w = -1;
	if (!t->trace_start)
		return;
	while (waitpid(t->child, &st, 0) < 0)
		if (errno != EINTR)
			die_errno(MT_EXIT_SYSTEM, "waitpid(%d)", (int)t->child);
	if (WIFSTOPPED(st))
		t->child_stopped = 1;
	else
		t->child = 0; /* execve failed (its message is out), or killed */
}

/*
 * The held command, from its execve to its entry point, where the dynamic
 * loader has mapped its libraries (and run their constructors): a
 * breakpoint instruction there, then the original code back. x86-64 only;
 * elsewhere it stays at its execve. Signals on the way are passed on.
 */
void target_run_to_entry(struct target *t)
{
#if defined(__x86_64__)
	char path[64];
	uint64_t av[2], entry = 0;
	struct user_regs_struct regs;
	long word;
	int fd, st;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)t->child);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) && av[0])
		if (av[0] == AT_ENTRY)
			entry = av[1];
	if (fd >= 0)
		close(fd);
	if (!entry)
		die(MT_EXIT_SYSTEM, "%s: no entry point in %s", t->cmd[0], path);
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->child, (void *)entry, NULL);
	if (!errno && (word & 0xff) == 0xcc) {
		/* a uprobe of another recording: it would take our trap and
		 * the program would run on, unseen */
		kill(t->child, SIGKILL);
		waitpid(t->child, NULL, 0);
		t->child = 0;
		t->child_stopped = 0;
		die(MT_EXIT_SYSTEM, "%s: its entry point already holds a breakpoint "
		    "(another recording's uprobe on it?): it cannot be stopped there; "
		    "attach with -p", t->cmd[0]);
	}
	if (errno || ptrace(PTRACE_POKETEXT, t->child, (void *)entry,
			    (void *)((word & ~0xffL) | 0xcc)) ||
	    ptrace(PTRACE_CONT, t->child, NULL, NULL))
		die_errno(MT_EXIT_SYSTEM, "ptrace(%s, to its entry point)", t->cmd[0]);
	for (;;) {
		while (waitpid(t->child, &st, 0) < 0)
			if (errno != EINTR)
				die_errno(MT_EXIT_SYSTEM, "waitpid(%d)", (int)t->child);
		if (!WIFSTOPPED(st)) {
			t->child = 0;
			t->child_stopped = 0;
			die(MT_EXIT_DATA, "%s ended before its entry point", t->cmd[0]);
		}
		if (WSTOPSIG(st) == SIGTRAP)
			break;
		if (ptrace(PTRACE_CONT, t->child, NULL, (void *)(long)WSTOPSIG(st)))
			die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_CONT, %d)", (int)t->child);
	}
	if (ptrace(PTRACE_POKETEXT, t->child, (void *)entry, (void *)word) ||
	    ptrace(PTRACE_GETREGS, t->child, NULL, &regs))
		die_errno(MT_EXIT_SYSTEM, "ptrace(%s, at its entry point)", t->cmd[0]);
	regs.rip = entry;
	if (ptrace(PTRACE_SETREGS, t->child, NULL, &regs))
		die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_SETREGS, %d)", (int)t->child);
#endif
}

void target_resume_child(struct target *t)
{
	if (!t->child_stopped)
		return;
	t->child_stopped = 0;
	if (ptrace(PTRACE_DETACH, t->child, NULL, NULL))
		die_errno(MT_EXIT_SYSTEM, "ptrace(PTRACE_DETACH, %d)", (int)t->child);
}

int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

#define PF_KTHREAD 0x00200000 /* the kernel's flag in /proc/PID/stat */

/*
 * Why process pid cannot be recorded, into msg (len bytes): 1, or 0 when
 * it can. Kernel threads and zombies have no /proc/PID/exe; a process
 * whose main thread has exited has none either (its /proc/PID/maps is
 * empty too).
 */
int target_unrecordable(pid_t pid, char *msg, size_t len)
{
	char path[64], stat[1024], state = 0, *p;
	unsigned long flags = 0;
	int threads = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, stat, sizeof(stat))) {
		if (kill(pid, 0) && errno == ESRCH) {
			snprintf(msg, len, "no such process: %d", (int)pid);
			return 1;
		}
		return 0; /* the later reads will say what is wrong */
	}
	/* pid (comm) state ppid pgrp session tty_nr tpgid flags ... */
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;
	*p = '\0';
	p = strchr(stat, '(');
	if (flags & PF_KTHREAD) {
		snprintf(msg, len, "PID %d is a kernel thread (%s): it runs no user "
			 "code to record", (int)pid, p ? p + 1 : "?");
		return 1;
	}
	if (state != 'Z' && state != 'X')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (read_small(path, stat, sizeof(stat)) == 0 &&
	    (p = strstr(stat, "\nThreads:")) != NULL)
		threads = atoi(p + 10);
	if (threads > 1)
		snprintf(msg, len, "PID %d: its main thread has exited (a zombie) "
			 "while %d other thread%s run%s on; mt-record needs its "
			 "main thread, for its executable and mappings", (int)pid,
			 threads - 1, threads > 2 ? "s" : "", threads > 2 ? "" : "s");
	else
		snprintf(msg, len, "PID %d has exited (a zombie that its parent has "
			 "not reaped): nothing left to record", (int)pid);
	return 1;
}

/* The -p processes: each one recordable, or die (bad input). */
void target_check_pids(const struct target *t)
{
	char msg[256];
	size_t i;

	for (i = 0; i < t->npids; i++)
		if (target_unrecordable(t->pids[i], msg, sizeof(msg)))
			die(MT_EXIT_DATA, "%s", msg);
}

void target_check_target(struct target *t)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	t->pid = t->pids[0];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", link);
	buf[n] = '\0';
	t->exe = xstrdup(buf);
	target_view_take(t);
}

int target_alive(struct target *tgt)
{
	if (tgt->child) {
		int st;
		pid_t r = waitpid(tgt->child, &st, WNOHANG);

		if (r == tgt->child) {
			tgt->child = 0;
			tgt->status = st;
			tgt->status_known = 1;
			return 0;
		}
		return 1;
	}
	if (tgt->end_fd >= 0) { /* ended, a zombie its parent has not reaped yet too */
		struct pollfd p = { tgt->end_fd, POLLIN, 0 };

		if (poll(&p, 1, 0) > 0)
			return 0;
	}
	return !(kill(tgt->pid, 0) && errno == ESRCH);
}

int target_end_fd(struct target *t)
{
	long fd;

	if (t->end_fd >= 0 || !t->pid)
		return t->end_fd;
	fd = syscall(SYS_pidfd_open, t->pid, 0); /* close-on-exec */
	t->end_fd = fd < 0 ? -1 : (int)fd;
	return t->end_fd;
}

void target_release(struct target *t)
{
	if (t->end_fd >= 0)
		close(t->end_fd);
	t->end_fd = -1;
	free(t->exe);
	t->exe = NULL;
	free(t->pids);
	t->pids = NULL;
	t->npids = t->pids_cap = 0;
	target_symbols_forget(t);
	target_view_release(t);
}
