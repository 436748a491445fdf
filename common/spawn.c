#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "spawn.h"
#include "banned.h"

/* In the child: a failure before its program runs (call: "dup2", or
 * NULL for the exec of path). */
static _Noreturn void child_fail(const struct mt_spawn *s, const char *call,
				 const char *path)
{
	const char *prog = s->unprefixed ? "" : mt_progname();
	const char *sep = s->unprefixed ? "" : ": ";
	int e = errno;

	if (!s->name)
		_exit(127);
	if (call)
		dprintf(STDERR_FILENO, "%s%s%s: %s: %s\n", prog, sep, s->name,
			call, strerror(e));
	else
		dprintf(STDERR_FILENO, "%s%s%s: %s\n", prog, sep, path,
			strerror(e));
	_exit(!call && s->exec_status ? s->exec_status : MT_EXIT_SYSTEM);
}

/* In the child: in, out and err (fd[]) in place. */
static void redirect(const struct mt_spawn *s, const int *fd)
{
	int null = -1, i;

	for (i = 0; i < 3; i++) {
		int from = fd[i];

		if (from == MT_SPAWN_NULL) {
			if (null < 0)
				null = open("/dev/null", O_RDWR | O_CLOEXEC);
			from = null;
		}
		if (from >= 0 && dup2(from, i) < 0)
			child_fail(s, "dup2", NULL);
	}
}

/* In a child_main's child: every descriptor but keep (n, ascending). */
static void close_all_but(const int *keep, size_t n)
{
	unsigned lo = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			close_range(lo, (unsigned)keep[i] - 1, 0);
		lo = (unsigned)keep[i] + 1;
	}
	close_range(lo, ~0u, 0);
}

/* In the child: the descriptors s keeps, for its program or its
 * child_main. */
static void keep_fds(const struct mt_spawn *s)
{
	size_t i;

	if (s->child_main) {
		close_all_but(s->keep, s->nkeep);
		return;
	}
	for (i = 0; i < s->nkeep; i++) {
		int fl = fcntl(s->keep[i], F_GETFD);

		if (fl >= 0)
			fcntl(s->keep[i], F_SETFD, fl & ~FD_CLOEXEC);
	}
}

static _Noreturn void child(const struct mt_spawn *s, char *const *argv,
			    const int *fd, pid_t parent)
{
	redirect(s, fd);
	if (s->new_session)
		setsid();
	if (s->new_group)
		setpgid(0, 0);
	if (s->death_signal) {
		prctl(PR_SET_PDEATHSIG, s->death_signal);
		if (getppid() != parent)
			_exit(127); /* its parent ended before the prctl */
	}
	keep_fds(s);
	if (s->child_setup)
		s->child_setup(s->child_arg);
	if (s->child_main)
		_exit(s->child_main(s->child_arg));
	if (s->path)
		execv(s->path, argv);
	else
		execvp(argv[0], argv);
	child_fail(s, NULL, s->path ? s->path : argv[0]);
}

/* fork(), or for a detached child a double fork whose middle process is
 * reaped here (its exit status the errno of its fork that failed, or 0):
 * 1 in the child; in the caller 0 with s->pid set (0 when detached), or
 * -1 with errno. */
static int fork_child(struct mt_spawn *s)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (s->detached && (pid = fork()) != 0)
			_exit(pid < 0 ? errno : 0);
		return 1;
	}
	if (!s->detached) {
		s->pid = pid;
		return 0;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		errno = WIFEXITED(st) ? WEXITSTATUS(st) : ECHILD;
		return -1;
	}
	return 0;
}

int mt_spawn_start(struct mt_spawn *s, char *const *argv)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, fd[3], e;
	pid_t parent = getpid();

	s->to_child = s->from_child = -1;
	s->failed = NULL;
	s->pid = 0;
	s->reaped = 0;
	if ((s->in == MT_SPAWN_PIPE && pipe2(in, O_CLOEXEC)) ||
	    (s->out == MT_SPAWN_PIPE && pipe2(out, O_CLOEXEC))) {
		s->failed = "pipe";
		goto fail;
	}
	fd[0] = s->in == MT_SPAWN_PIPE ? in[0] : s->in;
	fd[1] = s->out == MT_SPAWN_PIPE ? out[1] : s->out;
	fd[2] = s->err;
	switch (fork_child(s)) {
	case 1:
		child(s, argv, fd, parent);
	case -1:
		s->failed = "fork";
		goto fail;
	}
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	s->to_child = in[1];
	s->from_child = out[0];
	return 0;
fail:
	e = errno;
	if (in[0] >= 0) {
		close(in[0]);
		close(in[1]);
	}
	if (out[0] >= 0) {
		close(out[0]);
		close(out[1]);
	}
	errno = e;
	return -1;
}

ssize_t mt_spawn_read(struct mt_spawn *s, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got;
	int e = 0;

	while (len < size - 1 &&
	       (got = read(s->from_child, buf + len, size - 1 - len)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		len += (size_t)got;
	}
	buf[len] = '\0';
	close(s->from_child);
	s->from_child = -1;
	errno = e;
	return e ? -1 : (ssize_t)len;
}

/* waitpid() for the child unless it has been reaped or was never
 * started; flags WNOHANG or 0. Whether it has ended. */
static int reap_child(struct mt_spawn *s, int flags)
{
	pid_t r;

	if (s->reaped || !s->pid)
		return 1;
	while ((r = waitpid(s->pid, &s->status, flags)) < 0)
		if (errno != EINTR)
			die_errno(MT_EXIT_SYSTEM, "waitpid");
	if (!r)
		return 0;
	s->reaped = 1;
	return 1;
}

int mt_spawn_wait(struct mt_spawn *s)
{
	reap_child(s, 0);
	return s->status;
}

int mt_spawn_poll(struct mt_spawn *s)
{
	return reap_child(s, WNOHANG);
}

/* SIGTTOU blocked (*old: the mask before), so that a process of a
 * background group may set the terminal's foreground group. */
static void block_ttou(sigset_t *old)
{
	sigset_t ttou;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, old);
}

/* In fzf's child: in a group of its own that has the terminal, when its
 * runner's had it; no signal blocked. */
static void fzf_child(void *arg)
{
	const struct mt_fzf *z = arg;
	sigset_t none;

	if (z->tty >= 0 && setpgid(0, 0) == 0) {
		block_ttou(NULL);
		tcsetpgrp(z->tty, getpid());
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

FILE *mt_fzf_start(struct mt_fzf *z, char *const *argv)
{
	struct mt_spawn init = MT_SPAWN_INIT;
	char *path = mt_which("fzf");

	if (!path)
		return NULL;
	free(path);
	z->s = init;
	z->s.in = z->s.out = MT_SPAWN_PIPE;
	z->s.child_setup = fzf_child;
	z->s.death_signal = SIGTERM; /* it puts the terminal back as it
				      * found it */
	z->s.child_arg = z;
	z->fg = 0;
	/* fzf talks to the terminal (/dev/tty): a process of a background
	 * group that reads it or sets its modes is stopped (SIGTTIN,
	 * SIGTTOU). When our group has the terminal, fzf is given it; when
	 * it has not (a background job), fzf stays in our group, stopped
	 * with it until the shell's fg. */
	z->tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (z->tty >= 0 && (z->fg = tcgetpgrp(z->tty)) != getpgrp()) {
		close(z->tty);
		z->tty = -1;
	}
	if (mt_spawn_start(&z->s, argv))
		die_errno(MT_EXIT_SYSTEM, "%s", z->s.failed);
	signal(SIGPIPE, SIG_IGN); /* fzf may exit before it has read all */
	z->to = fdopen(z->s.to_child, "w");
	if (!z->to)
		die_errno(MT_EXIT_SYSTEM, "fdopen");
	return z->to;
}

ssize_t mt_fzf_finish(struct mt_fzf *z, char *buf, size_t size)
{
	ssize_t n;
	int e;

	fclose(z->to); /* EPIPE here only means fzf had its answer */
	z->to = NULL;
	n = mt_spawn_read(&z->s, buf, size);
	e = errno;
	mt_spawn_wait(&z->s);
	if (z->tty >= 0) {
		sigset_t old;

		/* the terminal back to our group, unless someone else has
		 * moved it since */
		block_ttou(&old);
		if (tcgetpgrp(z->tty) == z->s.pid)
			tcsetpgrp(z->tty, z->fg);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(z->tty);
		z->tty = -1;
	}
	signal(SIGPIPE, SIG_DFL);
	errno = e;
	return n;
}
