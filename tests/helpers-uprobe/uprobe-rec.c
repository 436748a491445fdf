/*
 * uprobe-rec: the test driver of the uprobe engine (mt-record/uprobe/uprobe.h).
 * Probes the functions of the main executable whose names match REGEX
 * (default: all), on process PID or on CMD (started here, held until the
 * probes are in place), records until the target exits, the trigger
 * function is called, or SIGINT/SIGTERM, then prints the snapshot as perf
 * script lines on stdout. CMD's own standard output goes to the standard
 * error. Messages and a summary go to the standard error; the line
 * "uprobe-rec: recording" says the probes are in place;
 * "uprobe-rec: mapped after attach: FILE" names mt_uprobe_late_file().
 *
 * usage: uprobe-rec [--ring bytes] [--mmap bytes] [--functions regex]
 *                   [--trigger sym] [--stall ms] [--background-close] [--list]
 *                   [--stream file] (-p pid | -- cmd [arg ...])
 *
 * --stall MS (for tests) leaves the rings unread for MS milliseconds after
 * attaching, so that the kernel loses events. --background-close: the
 * probes are removed in the background (mt_uprobe_opts.background_close).
 * --list prints the names of the functions it would probe, one a line, and
 * exits without starting CMD or recording (t0912 compares them with
 * mt-record's). --stream FILE writes the same snapshot to FILE as the mt
 * stream mt-record's uprobe backend makes of it (mt-record/uprobe/sinks.h),
 * which t0917 compares with the text read by mt-script-parse.
 *
 * The choice of functions is mt-record's own (mt-record/functions.c),
 * over the executable's .symtab only (no debug file, no libraries), with
 * the regex "." by default (every function: no exclusions, no cap), the
 * trigger in the same engine. The t09xx tests exercise the engine and
 * that selection; mt-record's use of it (libraries, debug files, the
 * default) is tested by t11xx (mt-record --backend uprobe).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "functions.h"
#include "procsyms.h"
#include "sinks.h"
#include "uprobe.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE "usage: uprobe-rec [--ring bytes] [--mmap bytes] " \
	"[--functions regex] [--trigger sym] [--stall ms] [--background-close] " \
	"[--list] [--stream file] (-p pid | -- cmd [arg ...])\n"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static size_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die(MT_EXIT_USAGE, "%s: not a number: %s", what, s);
	return (size_t)v;
}

/* The executable's symbols as it has them (no debug file) and its
 * functions only an FDE shows (named as mt-record names them), for the
 * selection: lent, as mt-record's read_symbols() lends them (the last
 * file read is kept until the next is asked for). */
static int plain_symbols(void *ctx, const struct mt_symfile **f, const char *path, int must)
{
	static struct mt_symfile kept = MT_SYMFILE_INIT;
	static char *kept_path;
	const char *base = strrchr(path, '/');
	int fd, n;

	(void)ctx;
	(void)must;
	*f = &kept;
	if (kept_path && !strcmp(kept_path, path))
		return 0;
	mt_symfile_release(&kept);
	free(kept_path);
	kept_path = xstrdup(path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	n = mt_symtab_read(&kept.t, fd);
	if (n >= 0)
		n = mt_symtab_add_fdes(&kept.t, base ? base + 1 : path);
	close(fd);
	if (n < 0)
		die_mt(n, "%s", path);
	return 0;
}

static char *same_path(void *ctx, const char *path)
{
	(void)ctx;
	return xstrdup(path);
}

/* The address of the function named trigger in exe (the first symbol of
 * that name that the selection could probe). */
static uint64_t trigger_addr(const char *exe, const char *trigger)
{
	const struct mt_symfile *f;
	const struct mt_symtab *t;
	uint64_t addr = 0;
	size_t i;

	plain_symbols(NULL, &f, exe, 1);
	t = &f->t;
	for (i = 0; i < t->n && !addr; i++)
		if (t->v[i].bind != MT_SYM_PLT && t->v[i].bind != MT_SYM_JIT &&
		    t->v[i].addr && !strcmp(t->v[i].name, trigger))
			addr = t->v[i].addr;
	if (!addr)
		die(MT_EXIT_DATA, "%s: no function '%s'", exe, trigger);
	return addr;
}

/*
 * Probe the functions of exe that mt-record's selection (functions.h)
 * takes for re_text, and trigger (outside the selection: it is probed
 * whether re_text matches it or not); with list, print their names
 * instead of recording (the trigger last).
 */
static int add_probes(struct mt_uprobe *u, const char *exe, const char *re_text,
		      const char *trigger, int list)
{
	static const struct fn_files files = { plain_symbols, same_path, NULL };
	struct fn_names names = { 0 };
	struct fn_query q = { re_text, exe, NULL, NULL, 0, &files, &names, 0, 0 };
	size_t added, i;
	int err;

	if (trigger) {
		q.skip_path = exe;
		q.skip_addr = trigger_addr(exe, trigger);
	}
	added = fn_add_functions(u, &q);
	if (trigger) {
		err = mt_uprobe_add(u, exe, trigger, q.skip_addr, MT_UPROBE_ENTRY |
				    MT_UPROBE_RETURN | MT_UPROBE_TRIGGER);
		if (err < 0)
			die_up(u, err);
		added++;
	}
	if (!added)
		die(MT_EXIT_DATA, "%s: no function matches '%s'", exe, re_text);
	for (i = 0; list && i < names.n; i++)
		printf("%s\n", names.v[i]);
	if (list && trigger)
		printf("%s\n", trigger);
	fn_names_release(&names);
	return (int)added;
}

/* The snapshot as text on stdout and, with --stream, as records in a
 * file: the number of events, or an MT_E* code. */
static int dump(struct mt_uprobe *u, uint64_t until, const char *stream)
{
	struct uprobe_lines l;
	struct stream_out so;
	int r, fd;

	uprobe_lines_init(&l, u, 1);
	r = mt_uprobe_dump(u, until, uprobe_sink_lines, &l);
	uprobe_lines_finish(&l);
	if (r < 0 || !stream)
		return r;
	fd = open(stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", stream);
	stream_out_init(&so, fd);
	so.source = "mt-record uprobe";
	r = mt_uprobe_dump(u, until, uprobe_sink_records, &so);
	stream_out_finish(&so);
	stream_out_release(&so);
	if (close(fd))
		die_errno(MT_EXIT_SYSTEM, "%s", stream);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "functions", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "mmap", required_argument, NULL, 'm' },
		{ "ring", required_argument, NULL, 'r' },
		{ "stall", required_argument, NULL, 's' },
		{ "background-close", no_argument, NULL, 'B' },
		{ "trigger", required_argument, NULL, 't' },
		{ "stream", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct mt_uprobe_opts opts = { 0 };
	const char *re = ".", *trigger = NULL, *stream = NULL;
	struct mt_uprobe u;
	struct mt_uprobe_stats st;
	struct mt_uprobe_hit hit;
	struct sigaction sa;
	sigset_t block, old;
	char *exe;
	pid_t pid = 0, child = 0;
	size_t stall = 0;
	uint64_t until = MT_UPROBE_ALL;
	int c, err, r, nprobes, list = 0, gate[2] = { -1, -1 };
	unsigned w;

	mt_set_progname(argv[0]);
	while ((c = getopt_long(argc, argv, "+p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			re = optarg;
			break;
		case 'h':
			usage_ok(USAGE);
		case 'l':
			list = 1;
			break;
		case 'm':
			opts.mmap_bytes = number(optarg, "--mmap");
			break;
		case 'p':
			pid = (pid_t)number(optarg, "-p");
			break;
		case 'r':
			opts.ring_bytes = number(optarg, "--ring");
			break;
		case 's':
			stall = number(optarg, "--stall");
			break;
		case 'B':
			opts.background_close = 1;
			break;
		case 't':
			trigger = optarg;
			break;
		case 'S':
			stream = optarg;
			break;
		default:
			usage_fail(USAGE);
		}
	}
	if ((pid > 0) == (optind < argc))
		usage_fail(USAGE);
	if (!mt_uprobe_supported())
		die(MT_EXIT_SYSTEM, "this kernel has no uprobe PMU "
		    "(/sys/bus/event_source/devices/uprobe)");

	if (pid > 0) {
		char real[PATH_MAX];
		struct stat a, b;
		ssize_t n;

		/* the link opens the executable even once it was deleted;
		 * the file it names, while it is that file: the symbols are
		 * read again at the end, once the process may have ended
		 * and its link with it */
		exe = xasprintf("/proc/%d/exe", (int)pid);
		n = readlink(exe, real, sizeof(real) - 1);
		if (n > 0) {
			real[n] = '\0';
			if (real[0] == '/' && !stat(real, &a) && !stat(exe, &b) &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
				free(exe);
				exe = xstrdup(real);
			}
		}
	} else {
		exe = mt_which(argv[optind]);
		if (!exe)
			die(MT_EXIT_SYSTEM, "%s: command not found", argv[optind]);
	}

	err = mt_uprobe_init(&u, &opts);
	if (err)
		die_up(&u, err);
	nprobes = add_probes(&u, exe, re, trigger, list);
	if (list) {
		mt_uprobe_release(&u);
		free(exe);
		close_stdout_or_die();
		return 0;
	}

	if (!pid) {
		/* the child waits on the gate until the probes are in place */
		if (pipe2(gate, O_CLOEXEC))
			die_errno(MT_EXIT_SYSTEM, "pipe");
		child = fork();
		if (child < 0)
			die_errno(MT_EXIT_SYSTEM, "fork");
		if (!child) {
			char b;

			close(gate[1]);
			if (read(gate[0], &b, 1) != 1)
				_exit(127);
			dup2(2, 1);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "uprobe-rec: %s: %s\n", argv[optind],
				strerror(errno));
			_exit(127);
		}
		close(gate[0]);
		pid = child;
	}
	err = mt_uprobe_attach(&u, pid, child ? MT_UPROBE_EXEC : MT_UPROBE_PROCESS);
	if (err) {
		if (child)
			kill(child, SIGKILL);
		die_up(&u, err);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigdelset(&old, SIGINT);
	sigdelset(&old, SIGTERM);

	if (child) {
		if (write(gate[1], "x", 1) != 1)
			die_errno(MT_EXIT_SYSTEM, "starting %s", argv[optind]);
		close(gate[1]);
	}
	for (w = 1; w; w <<= 1)
		if (mt_uprobe_warnings(&u) & w)
			warn("%s: %s", exe, mt_uprobe_warning_text(w));
	fprintf(stderr, "uprobe-rec: recording %d functions of %s in %d\n",
		nprobes, exe, (int)pid);
	if (stall) {
		struct timespec ts = { (time_t)(stall / 1000),
				       (long)(stall % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	for (;;) {
		r = mt_uprobe_wait(&u, -1, &old);
		if (r < 0)
			die_up(&u, r);
		if (r == MT_UPROBE_TRIGGERED || r == MT_UPROBE_EXITED ||
		    (r == MT_UPROBE_SIGNAL && got_signal))
			break;
	}
	err = mt_uprobe_finish(&u);
	if (err)
		die_up(&u, err);
	if (mt_uprobe_trigger(&u, &hit)) {
		until = hit.time;
		fprintf(stderr, "uprobe-rec: trigger %s hit by %d/%d at %llu.%09llu\n",
			trigger, (int)hit.pid, (int)hit.tid,
			(unsigned long long)(hit.time / 1000000000u),
			(unsigned long long)(hit.time % 1000000000u));
	}
	r = dump(&u, until, stream);
	if (r < 0)
		die_up(&u, r);
	mt_uprobe_stats(&u, &st);
	for (w = 1; w; w <<= 1)
		if ((mt_uprobe_warnings(&u) & w) && w != MT_UPROBE_W_GO)
			warn("%s", mt_uprobe_warning_text(w));
	if (mt_uprobe_late_file(&u))
		fprintf(stderr, "uprobe-rec: mapped after attach: %s\n",
			mt_uprobe_late_file(&u));
	fprintf(stderr, "uprobe-rec: %llu events, %d lines, %llu overwritten, "
		"%llu lost, %llu too deep, %llu late, %llu after the trigger, "
		"%llu of other processes, %llu threads, %zu perf events, %zu rings\n",
		(unsigned long long)st.events, r,
		(unsigned long long)st.overwritten, (unsigned long long)st.lost,
		(unsigned long long)st.deep, (unsigned long long)st.late,
		(unsigned long long)st.after_trigger,
		(unsigned long long)st.foreign, (unsigned long long)st.threads,
		st.perf_events, st.rings);
	mt_uprobe_release(&u);
	if (child && !got_signal && r >= 0 && until == MT_UPROBE_ALL)
		waitpid(child, NULL, 0);
	free(exe);
	close_stdout_or_die();
	return 0;
}
