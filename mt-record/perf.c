/*
 * mt-record's processes and perf's private directory: start a command
 * (never through a shell) and reap it, print a perf command line as it
 * would run, the environment perf gets (PERF_CONFIG, HOME), and the work
 * directory, removed however mt-record ends. See perf.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "perf.h"
#include "banned.h"

/* The work directory and what decides about it: work_init(),
 * work_set_options(), make_workdir(). */
static struct {
	char *workdir;        /* perf's private directory, absolute */
	const char *keep_dir; /* --keep: the user's, never removed */
	pid_t main_pid;       /* only this process removes the directory */
	int verbose;          /* -v: spawn() says what it runs */
} pf;

void work_init(void)
{
	pf.main_pid = getpid();
}

void work_set_options(int verbose, const char *keep_dir)
{
	pf.verbose = verbose;
	pf.keep_dir = keep_dir;
}

const char *workdir_path(void)
{
	return pf.workdir;
}

void workdir_done(void)
{
	remove_workdir();
	free(pf.workdir);
	pf.workdir = NULL; /* for the atexit handler */
}


int reap(struct proc *p, int block)
{
	int st;
	pid_t r;

	if (p->done || !p->pid)
		return 1;
	do
		r = waitpid(p->pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == p->pid) {
		p->done = 1;
		p->status = st;
		return 1;
	}
	return 0;
}

void show_stderr(const struct proc *p)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (!p->errfile || (fd = open(p->errfile, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(2, buf, (size_t)n) < 0)
			break;
	close(fd);
}

/*
 * perf's configuration: none (its PERF_CONFIG, /dev/null, keeps it from
 * reading /etc/perfconfig and ~/.perfconfig, whose [script], [call-graph],
 * [intel-pt], [record] keys change the text mt-script-parse reads or what
 * is recorded), or MT_PERF_CONFIG's file.
 */
static const char *perf_config(void)
{
	const char *c = getenv("MT_PERF_CONFIG");

	return c && *c ? c : "/dev/null";
}

/*
 * The environment perf runs in: perf_config(), and HOME the private
 * directory, so that its build-id cache (~/.debug) is written there, not
 * into the user's home (as root), and goes with the directory.
 */
static void perf_env(void)
{
	setenv("PERF_CONFIG", perf_config(), 1);
	if (pf.workdir)
		setenv("HOME", pf.workdir, 1);
}

/* Print argv shell-quoted (for --dry-run and -v), a perf command with
 * the environment perf_env() gives it. */
void print_argv(FILE *f, char *const *argv, int is_perf)
{
	size_t i;

	if (is_perf) {
		fputs("PERF_CONFIG=", f);
		mt_shell_quote(f, perf_config());
		fputs(" HOME=", f);
		mt_shell_quote(f, pf.workdir ? pf.workdir : "DIR");
		fputc(' ', f);
	}
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		mt_shell_quote(f, argv[i]);
	}
	fputc('\n', f);
}

/*
 * Start argv (never through a shell) in its own process group, so that a
 * terminal's Ctrl+C reaches us and not it; it dies with us
 * (PR_SET_PDEATHSIG). keep[] are descriptors it inherits (others are
 * close-on-exec); stdout goes to out (-1: /dev/null), stderr to errname;
 * is_perf: argv is a perf command, run in perf_env().
 */
void spawn(struct proc *p, char *const *argv, int out, const int *keep,
		  size_t nkeep, const char *errname, int is_perf)
{
	pid_t parent = getpid();
	size_t i;

	memset(p, 0, sizeof(*p));
	if (errname && !(p->errfile = strdup(errname)))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (pf.verbose) {
		fprintf(stderr, "%s: running: ", mt_progname());
		print_argv(stderr, argv, is_perf);
	}
	p->pid = fork();
	if (p->pid < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (p->pid)
		return;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	for (i = 0; i < nkeep; i++) {
		int fl = fcntl(keep[i], F_GETFD);

		if (fl >= 0)
			fcntl(keep[i], F_SETFD, fl & ~FD_CLOEXEC);
	}
	if (out < 0)
		out = open("/dev/null", O_WRONLY);
	if (out >= 0 && out != 1)
		dup2(out, 1);
	if (errname) {
		int e = open(errname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (e >= 0)
			dup2(e, 2);
	}
	setenv("PAGER", "cat", 1); /* perf would start less on bad options */
	if (is_perf)
		perf_env();
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* ---- the private directory ---- */

/*
 * Runs argv with its standard output into buf (len bytes, NUL-terminated;
 * what fits of its first read): the bytes read, or -1 when it failed or
 * exited non-zero.
 */
ssize_t run_output(char *const *argv, char *buf, size_t len, int is_perf)
{
	int fds[2];
	struct proc p;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "pipe");
	spawn(&p, argv, fds[1], NULL, 0, NULL, is_perf);
	close(fds[1]);
	n = read(fds[0], buf, len - 1);
	close(fds[0]);
	reap(&p, 1);
	free(p.errfile);
	if (n < 0 || !WIFEXITED(p.status) || WEXITSTATUS(p.status))
		return -1;
	buf[n] = '\0';
	return n;
}

/* Removes path and what it holds; a symbolic link (perf's build-id cache
 * is made of them) is removed, never followed. */
static void rm_rf(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (d) {
		while ((e = readdir(d)) != NULL) {
			char *sub;

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (asprintf(&sub, "%s/%s", path, e->d_name) < 0)
				continue;
			rm_rf(sub);
			free(sub);
		}
		closedir(d);
		rmdir(path);
	} else {
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
}


void remove_workdir(void)
{
	if (pf.workdir && !pf.keep_dir && getpid() == pf.main_pid)
		rm_rf(pf.workdir);
}

/*
 * A private directory for perf's files, removed when mt-record ends,
 * however it ends: a watcher process removes it once our end of a pipe
 * closes, which SIGKILL does too. With --keep the directory is the
 * user's and stays.
 */
void make_workdir(void)
{
	const char *tmp = getenv("TMPDIR");
	int gate[2];
	pid_t w;

	char *made;

	/* absolute: it is perf's HOME too */
	if (pf.keep_dir) {
		if (mkdir(pf.keep_dir, 0700) && errno != EEXIST)
			die_errno(MT_EXIT_SYSTEM, "--keep %s", pf.keep_dir);
		pf.workdir = realpath(pf.keep_dir, NULL);
		if (!pf.workdir)
			die_errno(MT_EXIT_SYSTEM, "--keep %s", pf.keep_dir);
		return;
	}
	if (asprintf(&made, "%s/mt-record.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (!mkdtemp(made))
		die_errno(MT_EXIT_SYSTEM, "%s", made);
	pf.workdir = realpath(made, NULL);
	if (!pf.workdir) {
		rmdir(made);
		die_errno(MT_EXIT_SYSTEM, "%s", made);
	}
	free(made);
	atexit(remove_workdir); /* at once; the watcher is for kills */
	if (pipe2(gate, O_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "pipe");
	w = fork();
	if (w < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (!w) {
		char b;
		int fd;

		/* keep nothing of ours open: not the output pipe */
		setpgid(0, 0);
		for (fd = 0; fd < 1024; fd++)
			if (fd != gate[0])
				close(fd);
		while (read(gate[0], &b, 1) < 0 && errno == EINTR)
			;
		rm_rf(pf.workdir);
		_exit(0);
	}
	close(gate[0]); /* gate[1] stays open until we end */
}
