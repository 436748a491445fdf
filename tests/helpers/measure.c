/*
 * measure: run a command a few times and report its best wall-clock time
 * and its peak resident set size, for benchmarks.
 *
 * Usage: measure [-n REPEAT] [-t SECONDS] [-i INPUT] [-o OUTPUT] -- CMD [ARG...]
 *
 * CMD runs REPEAT times (default 3) with stdin from INPUT (default
 * /dev/null) and stdout to OUTPUT (default /dev/null, truncated before each
 * run); its stderr is ours. With -t, no new run starts once SECONDS of wall
 * time have been spent (at least one run always happens), so that a slow
 * command does not make a benchmark take minutes.
 *
 * Prints one line on stdout:
 *
 *   wall=0.123456 user=0.100000 sys=0.020000 maxrss_kb=1234 runs=3 status=0
 *
 * wall is the best (smallest) run's wall time in seconds, user and sys are
 * that run's CPU times, maxrss_kb is the largest ru_maxrss (KiB) that wait4()
 * reported over all runs, runs how many runs were made. status is 0 when
 * every run exited 0; otherwise the first failing run's exit status, or
 * 128+N when it was killed by signal N, and no further run is made.
 *
 * Exit status: 0 when every run exited 0, 1 when one did not (the line is
 * still printed), 2 on a usage error, 3 when CMD could not be started or
 * INPUT or OUTPUT could not be opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "banned.h"

struct run {
	double wall, user, sys;
	long maxrss_kb;
	int status;		/* exit code, or 128 + signal */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	return fd;
}

/* In the child: exec cmd on those fds, or report errno on the pipe. */
static _Noreturn void child(char **cmd, int in, int out, int report)
{
	int err;

	if (dup2(in, STDIN_FILENO) >= 0 && dup2(out, STDOUT_FILENO) >= 0)
		execvp(cmd[0], cmd);
	err = errno;
	if (write(report, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static struct run run_once(char **cmd, const char *inpath, const char *outpath)
{
	struct run r = { 0, 0, 0, 0, 0 };
	struct rusage ru;
	int ws, err = 0, pfd[2], in, out;
	double t0;
	ssize_t n;
	pid_t pid;

	in = open_or_die(inpath, O_RDONLY);
	out = open_or_die(outpath, O_WRONLY | O_CREAT | O_TRUNC);
	/* a failed exec comes back through a close-on-exec pipe */
	if (pipe2(pfd, O_CLOEXEC) < 0)
		die_errno(MT_EXIT_SYSTEM, "pipe");
	fflush(stdout);
	t0 = now_s();
	pid = fork();
	if (pid < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (pid == 0)
		child(cmd, in, out, pfd[1]);
	close(pfd[1]);
	close(in);
	close(out);
	while ((n = read(pfd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	while (wait4(pid, &ws, 0, &ru) < 0) {
		if (errno != EINTR)
			die_errno(MT_EXIT_SYSTEM, "wait4");
	}
	r.wall = now_s() - t0;
	if (n == (ssize_t)sizeof(err)) {
		errno = err;
		die_errno(MT_EXIT_SYSTEM, "cannot run %s", cmd[0]);
	}
	r.user = tv_s(ru.ru_utime);
	r.sys = tv_s(ru.ru_stime);
	r.maxrss_kb = ru.ru_maxrss;
	if (WIFEXITED(ws))
		r.status = WEXITSTATUS(ws);
	else if (WIFSIGNALED(ws))
		r.status = 128 + WTERMSIG(ws);
	else
		r.status = 255;
	return r;
}

static long parse_long(const char *opt, const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		die(MT_EXIT_USAGE, "bad %s: '%s'", opt, s);
	return v;
}

static double parse_seconds(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0))
		die(MT_EXIT_USAGE, "bad -t: '%s'", s);
	return v;
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: measure [-n REPEAT] [-t SECONDS] [-i INPUT] [-o OUTPUT]"
		" -- CMD [ARG...]\n");
	exit(MT_EXIT_USAGE);
}

int main(int argc, char **argv)
{
	const char *in = "/dev/null", *out = "/dev/null";
	long repeat = 3;
	double budget = -1, spent = 0;
	struct run best = { 0, 0, 0, 0, 0 };
	long maxrss = 0;
	int runs = 0, status = 0, c;

	mt_set_progname(argv[0]);
	while ((c = getopt(argc, argv, "+i:n:o:t:")) != -1) {
		switch (c) {
		case 'i':
			in = optarg;
			break;
		case 'n':
			repeat = parse_long("-n", optarg, 1);
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			budget = parse_seconds(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();

	while (runs < repeat && (runs == 0 || budget < 0 || spent < budget)) {
		struct run r = run_once(argv + optind, in, out);

		runs++;
		spent += r.wall;
		if (r.maxrss_kb > maxrss)
			maxrss = r.maxrss_kb;
		if (runs == 1 || r.wall < best.wall)
			best = r;
		if (r.status) {
			status = r.status;
			best = r;
			break;
		}
	}
	printf("wall=%.6f user=%.6f sys=%.6f maxrss_kb=%ld runs=%d status=%d\n",
	       best.wall, best.user, best.sys, maxrss, runs, status);
	close_stdout_or_die();
	return status ? 1 : 0;
}
