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
	int e = errno;

	if (!s->name)
		_exit(127);
	if (call)
		dprintf(STDERR_FILENO, "%s: %s: %s: %s\n", mt_progname(), s->name,
			call, strerror(e));
	else
		dprintf(STDERR_FILENO, "%s: %s: %s\n", mt_progname(), path,
			strerror(e));
	_exit(!call && s->exec_status ? s->exec_status : MT_EXIT_SYSTEM);
}

static _Noreturn void child(const struct mt_spawn *s, char *const *argv,
			    const int *fd)
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
	if (s->new_session)
		setsid();
	if (s->child_setup)
		s->child_setup(s->child_arg);
	if (s->path)
		execv(s->path, argv);
	else
		execvp(argv[0], argv);
	child_fail(s, NULL, s->path ? s->path : argv[0]);
}

int mt_spawn_start(struct mt_spawn *s, char *const *argv)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, fd[3], e;

	s->to_child = s->from_child = -1;
	s->failed = NULL;
	if ((s->in == MT_SPAWN_PIPE && pipe2(in, O_CLOEXEC)) ||
	    (s->out == MT_SPAWN_PIPE && pipe2(out, O_CLOEXEC))) {
		s->failed = "pipe";
		goto fail;
	}
	fd[0] = s->in == MT_SPAWN_PIPE ? in[0] : s->in;
	fd[1] = s->out == MT_SPAWN_PIPE ? out[1] : s->out;
	fd[2] = s->err;
	s->pid = fork();
	if (s->pid < 0) {
		s->failed = "fork";
		goto fail;
	}
	if (!s->pid)
		child(s, argv, fd);
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

int mt_spawn_wait(struct mt_spawn *s)
{
	while (waitpid(s->pid, &s->status, 0) < 0)
		if (errno != EINTR)
			die_errno(MT_EXIT_SYSTEM, "waitpid");
	return s->status;
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

/* In fzf's child: it dies with its runner (SIGTERM: it puts the
 * terminal back as it found it); in a group of its own that has the
 * terminal, when its runner's had it; no signal blocked. */
static void fzf_child(void *arg)
{
	const struct mt_fzf *z = arg;
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != z->runner)
		_exit(127);
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
	z->s.child_arg = z;
	z->runner = getpid();
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
