/*
 * mt: the front command. run, attach and decode run the pipeline
 * mt-record | mt-script-parse | mt-stacks | mt-fxt -o OUTPUT; view serves a
 * trace once to ui.perfetto.dev (view.c). See docs/mt.1.
 */
#include <dirent.h>
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
#include <unistd.h>

#include <zlib.h>

#include "cmdline.h"
#include "die.h"
#include "fxtread.h"
#include "output.h"
#include "spawn.h"
#include "wire.h"
#include "view.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE \
	"usage: mt run [-v] [-o output] [record-option ...] -- command [argument ...]\n" \
	"       mt attach [-v] [-o output] [record-option ...] [-p pid]\n" \
	"       mt decode [-v] [-o output] [record-option ...] file\n" \
	"       mt view [--no-open] [--origin url] [--ui dir] [-p port] file\n"

/* A NULL-terminated argument vector. */
struct args {
	const char **v;
	size_t n, cap;
};

static void args_add(struct args *a, const char *s)
{
	/* grow_or_die zeroes what it adds: v[n + 1] stays NULL */
	grow_or_die(&a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = s;
}

/* Descriptors 0, 1 and 2 open, so that no pipe or socket lands there. */
static void open_std_fds(void)
{
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			die_errno(MT_EXIT_SYSTEM, "/dev/null");
	}
}

/* ---- finding the tools ---- */

static char *self_dir; /* the directory of mt's own executable, or NULL */

static void find_self_dir(const char *argv0)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash;

	if (n > 0) {
		path[n] = '\0';
		self_dir = xstrdup(path);
	} else if (strchr(argv0, '/')) {
		self_dir = xstrdup(argv0);
	} else {
		return;
	}
	slash = strrchr(self_dir, '/');
	if (slash == self_dir)
		slash[1] = '\0';
	else
		*slash = '\0';
}

/*
 * The program to run for tool name: the value of the environment variable
 * env when set (a path, or a name looked up in PATH), else name in mt's own
 * directory, else in PATH.
 */
static char *find_tool(const char *name, const char *env)
{
	const char *e = env ? getenv(env) : NULL;
	char *p;

	if (e && *e) {
		if (!(p = mt_which(e)))
			die(MT_EXIT_SYSTEM, strchr(e, '/') ? "%s=%s: not an executable file" :
			    "%s=%s: not found in PATH", env, e);
		return p;
	}
	if (self_dir) {
		char *q;

		p = xasprintf("%s/%s", self_dir, name);
		q = mt_which(p); /* holds a '/': only checks it */
		free(p);
		if (q)
			return q;
	}
	if (!(p = mt_which(name)))
		die(MT_EXIT_SYSTEM, "%s: not found in %s nor in PATH", name,
		    self_dir ? self_dir : "mt's directory");
	return p;
}

/* ---- run, attach, decode: the pipeline ---- */

/*
 * The trace goes to common/output's private temporary beside the output
 * (O_EXCL, a hidden random name: no file or link planted there beforehand
 * is ever opened), which is mt's standard output and so mt-fxt's, a
 * descriptor, never a name; it is renamed into place, the previous trace
 * kept as .old, only when the recording holds something.
 */

enum mode { MODE_RUN, MODE_ATTACH, MODE_DECODE };

struct stage {
	const char *name; /* for messages */
	char *path;
	struct args argv;
	pid_t pid;
	int status;
	const struct sigaction *on_int; /* its SIGINT disposition */
	int cmd_fd;       /* mt-record's: the traced command's standard
			   * output, passed on as descriptor CMD_FD; or -1 */
};

/* The descriptor of mt-record that mt run gives it, with --command-stdout,
 * for the command's standard output. */
#define CMD_FD 3

enum { NSTAGES = 4 };

/* In a stage's child: SIGINT as given, SIGPIPE the default; the
 * command's standard output on CMD_FD. */
static void stage_setup(void *arg)
{
	const struct stage *s = arg;

	sigaction(SIGINT, s->on_int, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (s->cmd_fd < 0)
		return;
	if (s->cmd_fd == CMD_FD ? fcntl(CMD_FD, F_SETFD, 0) :
	    dup2(s->cmd_fd, CMD_FD) < 0) {
		dprintf(STDERR_FILENO, "%s: %s: dup2: %s\n", mt_progname(), s->name,
			strerror(errno));
		_exit(MT_EXIT_SYSTEM);
	}
}

/*
 * Start stage s with in and out (-1: inherit) as its standard input and
 * output and on_int as its SIGINT disposition.
 */
static void spawn(struct stage *s, int in, int out, const struct sigaction *on_int)
{
	struct mt_spawn sp = MT_SPAWN_INIT;

	/* a child that dies before its exec removes nothing of mt's: only
	 * the process that made the temporary does (common/output); the
	 * pipes are close-on-exec: only these two copies go on */
	sp.in = in;
	sp.out = out;
	sp.path = s->path;
	sp.name = s->name;
	s->on_int = on_int;
	sp.child_setup = stage_setup;
	sp.child_arg = s;
	if (mt_spawn_start(&sp, (char *const *)s->argv.v))
		die_errno(MT_EXIT_SYSTEM, "%s", sp.failed);
	s->pid = sp.pid;
}

/* Run the n stages connected by pipes, the last one writing to mt's
 * standard output; wait for all of them. */
static void run_stages(struct stage *st, int n, int verbose)
{
	struct sigaction ign, old_int;
	int i, left = n, prev = -1;

	if (verbose) {
		fprintf(stderr, "%s: running:", mt_progname());
		for (i = 0; i < n; i++) {
			size_t j;

			if (i)
				fputs(" |", stderr);
			for (j = 0; j < st[i].argv.n; j++) {
				putc(' ', stderr);
				mt_shell_quote(stderr, st[i].argv.v[j]);
			}
		}
		if (output_tmp_name()) {
			fputs(" >", stderr);
			mt_shell_quote(stderr, output_tmp_name());
		}
		putc('\n', stderr);
	}
	/*
	 * Ctrl+C in a terminal reaches the whole process group: mt-record
	 * takes it as the moment to snapshot, and the filters, mt included,
	 * must live on to write what it sends. mt-record gets the disposition
	 * mt was started with.
	 */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGINT, &ign, &old_int))
		die_errno(MT_EXIT_SYSTEM, "sigaction");
	fflush(NULL);
	for (i = 0; i < n; i++) {
		int p[2] = { -1, -1 };

		if (i < n - 1 && pipe2(p, O_CLOEXEC))
			die_errno(MT_EXIT_SYSTEM, "pipe");
		spawn(&st[i], prev, i < n - 1 ? p[1] : -1, i ? &ign : &old_int);
		if (prev >= 0)
			close(prev);
		if (p[1] >= 0)
			close(p[1]);
		prev = p[0];
	}
	while (left) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			die_errno(MT_EXIT_SYSTEM, "waitpid");
		}
		for (i = 0; i < n; i++) {
			if (st[i].pid == pid) {
				st[i].status = status;
				left--;
			}
		}
	}
	sigaction(SIGINT, &old_int, NULL);
}

static int stage_failed(const struct stage *s)
{
	return !WIFEXITED(s->status) || WEXITSTATUS(s->status);
}

/*
 * The stage to blame: the first that failed, passing over a writer killed
 * by SIGPIPE when a later stage failed too (its reader died first). NULL
 * when all succeeded.
 */
static const struct stage *culprit(const struct stage *st, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		int later = 0;

		if (!stage_failed(&st[i]))
			continue;
		for (j = i + 1; j < n; j++)
			later |= stage_failed(&st[j]);
		if (later && WIFSIGNALED(st[i].status) && WTERMSIG(st[i].status) == SIGPIPE)
			continue;
		return &st[i];
	}
	return NULL;
}

/* Report how s failed; return the exit status that mt passes on. */
static int report_failure(const struct stage *s, const char *what)
{
	if (WIFSIGNALED(s->status)) {
		int sig = WTERMSIG(s->status);

		warn("%s was killed by signal %d (%s)%s", s->name, sig, strsignal(sig),
		     what);
		return 128 + sig;
	}
	/* mt-record's "the user cancelled" (the pick of --trigger ?), which
	 * it has said in its one line */
	if (!strcmp(s->name, "mt-record") && WEXITSTATUS(s->status) == MT_EXIT_CANCELLED)
		return MT_EXIT_CANCELLED;
	warn("%s failed with exit status %d%s", s->name, WEXITSTATUS(s->status), what);
	return WEXITSTATUS(s->status);
}

/*
 * What the FXT trace in fd holds (gzip-compressed when gz): *spans 1 when
 * it has a span (a complete or begin event), *events 1 when it has any
 * event. Read from the start, one record at a time (memory does not grow
 * with the trace), up to the first span. A truncated or corrupt tail just
 * ends the reading; dies when the file cannot be read.
 */
static void trace_contents(int fd, int gz, const char *name, int *spans, int *events)
{
	static unsigned char rec_buf[MT_FXT_MAX_WORDS * 8];
	static struct mt_fxt_record rec;
	struct mt_fxt_reader r;
	gzFile z = NULL;
	off_t off = 0;

	*spans = *events = 0;
	if (gz) {
		int dfd = dup(fd);

		if (dfd < 0 || lseek(dfd, 0, SEEK_SET) < 0 || !(z = gzdopen(dfd, "rb")))
			die_errno(MT_EXIT_SYSTEM, "reading back %s", name);
	}
	mt_fxt_reader_init_mem(&r, NULL, 0);
	for (;;) {
		size_t want = 8, got = 0, size = 0;

		while (got < want) {
			ssize_t n = z ? gzread(z, rec_buf + got, (unsigned)(want - got)) :
				pread(fd, rec_buf + got, want - got, off + (off_t)got);

			if (n < 0 && !z && errno == EINTR)
				continue;
			if (n < 0)
				die_errno(MT_EXIT_SYSTEM, "reading back %s", name);
			if (n == 0)
				break;
			got += (size_t)n;
			if (got == 8 && want == 8) {
				size = ((mt_get64(rec_buf) >> 4) & 0xfff) * 8;
				want = size ? size : 8;
			}
		}
		if (!size || got < want)
			break; /* the end, or a tail Perfetto would not read */
		off += (off_t)size;
		mt_fxt_reader_feed(&r, rec_buf, size);
		if (mt_fxt_next(&r, &rec) != 1)
			break;
		if (rec.type != MT_FXT_EVENT || rec.bad)
			continue;
		*events = 1;
		if (rec.u.event.type == MT_FXT_EV_COMPLETE ||
		    rec.u.event.type == MT_FXT_EV_BEGIN) {
			*spans = 1;
			break;
		}
	}
	mt_fxt_reader_release(&r);
	if (z)
		gzclose(z);
}

/* Whether word, an argument of mt-record, is --trigger in any form. */
static int is_trigger_option(const char *w)
{
	return !strcmp(w, "--trigger") || !strncmp(w, "--trigger=", 10);
}

/* Whether word, an argument of mt-record, is -p or --pid in any form. */
static int is_pid_option(const char *w)
{
	return !strncmp(w, "-p", 2) || !strcmp(w, "--pid") || !strncmp(w, "--pid=", 6);
}

/*
 * attach without -p: the user picks a process with fzf among every
 * process with a command line (not kernel threads), as magic-trace does.
 * Returns the malloced pid text; dies (usage) when fzf is missing or
 * nothing is picked.
 */
static char *pick_process(void)
{
	char *argv[] = { "fzf", "--no-multi", "--prompt=process> ", NULL };
	char line[8192], *pid;
	struct mt_fzf fzf;
	DIR *d;
	struct dirent *e;
	FILE *f = mt_fzf_start(&fzf, argv);
	ssize_t n;

	if (!f)
		die(MT_EXIT_USAGE, "attach: give the process with -p pid (with fzf "
		    "installed, mt attach lets you pick one)");
	d = opendir("/proc");
	while (d && (e = readdir(d)) != NULL) {
		char path[300], cmd[4096];
		ssize_t k, i;
		int fd;

		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    atoi(e->d_name) == (int)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		k = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		if (k <= 0)
			continue; /* a kernel thread, or gone */
		for (i = 0; i < k; i++)
			if (cmd[i] == '\0' || cmd[i] == '\n')
				cmd[i] = ' ';
		while (k > 0 && cmd[k - 1] == ' ')
			k--; /* the NUL after the last argument */
		cmd[k] = '\0';
		fprintf(f, "%s %s\n", e->d_name, cmd);
	}
	if (d)
		closedir(d);
	mt_fzf_finish(&fzf, line, sizeof(line)); /* what it printed */
	if (WIFSIGNALED(fzf.s.status) ||
	    (WIFEXITED(fzf.s.status) && WEXITSTATUS(fzf.s.status) == MT_EXIT_CANCELLED))
		die(MT_EXIT_CANCELLED, "attach: no process picked");
	n = (ssize_t)strspn(line, "0123456789");
	if (!n || line[n] != ' ')
		die(MT_EXIT_USAGE, "attach: give the process with -p pid (nothing "
		    "was picked)");
	/* say which (magic-trace #256): the picked line, pid and command */
	line[strcspn(line, "\n")] = '\0';
	fprintf(stderr, "%s: attaching to %s\n", mt_progname(), line);
	pid = xstrdup(line);
	pid[n] = '\0';
	return pid;
}

/* Global, so that what they own stays reachable until exit. */
static struct stage stages[NSTAGES];
static struct args rec;  /* mt-record's options */

/* What mt's own options and the words around "--" say. */
struct pipeline_opts {
	const char *out;     /* -o: the trace's file, "-" for stdout */
	int verbose, dry_run, have_pid, have_trigger;
	int dashdash;        /* the index of the word after "--", or -1 */
};

/*
 * mt's own options are taken out wherever they stand before "--";
 * every other word goes to mt-record (rec) in its order.
 */
static void split_options(int argc, char **argv, struct pipeline_opts *o)
{
	int i;

	o->out = "trace.fxt";
	o->dashdash = -1;
	for (i = 1; i < argc && o->dashdash < 0; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			o->dashdash = i + 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i == argc) {
				warn("option '%s' needs a value", a);
				usage_fail(USAGE);
			}
			o->out = argv[i];
		} else if (!strncmp(a, "--output=", 9)) {
			o->out = a + 9;
		} else if (!strncmp(a, "-o", 2)) {
			o->out = a + 2;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = 1;
		} else if (!strcmp(a, "--help")) {
			usage_ok(USAGE);
		} else if (!strcmp(a, "--version")) {
			version_ok();
		} else {
			if (!strcmp(a, "--dry-run"))
				o->dry_run = 1;
			o->have_pid |= is_pid_option(a);
			o->have_trigger |= is_trigger_option(a);
			args_add(&rec, a);
		}
	}
	if (!*o->out)
		die(MT_EXIT_USAGE, "-o: an empty file name");
}

/*
 * mt-record's stage, s: its options (rec) and its target as mode says,
 * from the words after "--" (run: the command; attach: mt-record's;
 * decode: the file, else the last word).
 */
static void record_stage(struct stage *s, enum mode mode, int argc, char **argv,
			 const struct pipeline_opts *o)
{
	const char *file = NULL;
	int i;

	switch (mode) {
	case MODE_RUN:
		if (o->dashdash < 0)
			die(MT_EXIT_USAGE, "run: give the command after --");
		if (o->dashdash == argc)
			die(MT_EXIT_USAGE, "run: no command after --");
		break;
	case MODE_ATTACH:
		if (!o->have_pid) {
			args_add(&rec, "-p");
			args_add(&rec, pick_process());
		}
		if (o->dashdash >= 0) { /* "--" and what follows: mt-record's */
			args_add(&rec, "--");
			for (i = o->dashdash; i < argc; i++)
				args_add(&rec, argv[i]);
		}
		break;
	case MODE_DECODE:
		if (o->dashdash >= 0) {
			if (argc - o->dashdash != 1)
				die(MT_EXIT_USAGE, "decode: give one file after --");
			file = argv[o->dashdash];
		} else if (rec.n && rec.v[rec.n - 1] == argv[argc - 1] &&
			   argv[argc - 1][0] != '-') {
			file = rec.v[--rec.n];
			rec.v[rec.n] = NULL;
		} else {
			die(MT_EXIT_USAGE, "decode: give the perf.data file last");
		}
		break;
	}

	s->name = "mt-record";
	s->cmd_fd = -1;
	s->path = find_tool("mt-record", "MT_RECORD");
	args_add(&s->argv, s->path);
	for (i = 0; i < (int)rec.n; i++)
		args_add(&s->argv, rec.v[i]);
	if (mode == MODE_RUN) {
		if (!o->dry_run) {
			args_add(&s->argv, "--command-stdout");
			args_add(&s->argv, xasprintf("%d", CMD_FD));
		}
		args_add(&s->argv, "--");
		for (i = o->dashdash; i < argc; i++)
			args_add(&s->argv, argv[i]);
	} else if (mode == MODE_DECODE) {
		args_add(&s->argv, "-i");
		args_add(&s->argv, file);
	}
}

/* The stages after mt-record: mt-script-parse, mt-stacks, mt-fxt. */
static void filter_stages(struct stage *st, int verbose)
{
	int i;

	st[1].name = "mt-script-parse";
	st[2].name = "mt-stacks";
	st[3].name = "mt-fxt";
	for (i = 1; i < NSTAGES; i++) {
		st[i].path = find_tool(st[i].name, NULL);
		st[i].cmd_fd = -1;
		args_add(&st[i].argv, st[i].path);
		if (verbose)
			args_add(&st[i].argv, "-v");
	}
}

/*
 * After the stages ran into the temporary: keep the trace when it holds
 * a span, else discard it and say why. The exit status mt passes on.
 */
static int keep_trace(const struct stage *st, const struct pipeline_opts *o, int gz)
{
	const struct stage *bad = culprit(st, NSTAGES);
	int spans, events;
	struct stat sb;

	/*
	 * A recording that holds nothing replaces nothing. mt-fxt writes the
	 * header of an empty trace and exits 0 (--allow-empty; 1, bad input,
	 * without it): with the stages before it content, that is this case.
	 */
	if (!bad || (bad == &st[3] && WIFEXITED(bad->status) &&
		     WEXITSTATUS(bad->status) == MT_EXIT_DATA))
		trace_contents(STDOUT_FILENO, gz, output_tmp_name(), &spans, &events);
	else
		spans = 1;
	if (bad && spans)
		return report_failure(bad, "; no trace written");
	if (!spans) {
		char *kept = lstat(o->out, &sb) ? xstrdup("no trace written") :
			xasprintf("%s left as it was", o->out);

		output_discard();
		if (!events && o->have_trigger)
			warn("no snapshot was taken (the trigger never fired); %s", kept);
		else if (!events)
			warn("no snapshot was taken (the recording holds nothing); %s", kept);
		else
			warn("the recording holds no spans; %s", kept);
		free(kept);
		return MT_EXIT_DATA;
	}
	close_stdout_or_die();
	fprintf(stderr, "%s: wrote %s; to view it: mt view ", mt_progname(), o->out);
	mt_shell_quote(stderr, o->out);
	fputs(" (or open https://ui.perfetto.dev and choose \"Open trace file\")\n",
	      stderr);
	close_stdout_or_die();
	return MT_EXIT_OK;
}

/*
 * The traced command's standard output, before the trace takes mt's over:
 * mt's own, kept aside (close-on-exec: only mt-record gets it, as CMD_FD),
 * or the standard error when the trace goes to the standard output.
 */
static int command_stdout(const char *out)
{
	int fd;

	if (!strcmp(out, "-"))
		return STDERR_FILENO;
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, CMD_FD);
	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "dup(standard output)");
	return fd;
}

/* Run the stages (or mt-record alone for --dry-run): mt's exit status. */
static int pipeline(enum mode mode, int argc, char **argv)
{
	struct pipeline_opts o = { 0 };
	const struct stage *bad;
	struct stage *st = stages;
	int gz = 0;

	split_options(argc, argv, &o);
	record_stage(&st[0], mode, argc, argv, &o);
	if (o.dry_run) {
		/* mt-record only shows what it would do */
		run_stages(st, 1, o.verbose);
		if ((bad = culprit(st, 1)))
			return report_failure(bad, "");
		close_stdout_or_die();
		return MT_EXIT_OK;
	}
	filter_stages(st, o.verbose);
	if (mode == MODE_RUN)
		st[0].cmd_fd = command_stdout(o.out);
	if (strcmp(o.out, "-")) {
		/* fail now rather than after the recording */
		output_to_or_die(o.out);
		output_keep_old();
		/* keep_trace tells an empty trace: mt-fxt need not say it too */
		if (output_tmp_name())
			args_add(&st[3].argv, "--allow-empty");
		if (output_name_is_gz(o.out)) {
			gz = 1;
			args_add(&st[3].argv, "--gzip");
		}
	}

	run_stages(st, NSTAGES, o.verbose);

	if (output_tmp_name())
		return keep_trace(st, &o, gz);
	/* the standard output, or a device or FIFO written as it is */
	if ((bad = culprit(st, NSTAGES)))
		return report_failure(bad, "");
	close_stdout_or_die();
	return MT_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *cmd;

	mt_set_progname(argv[0]);
	mt_set_manual();
	open_std_fds();
	if (argc < 2)
		usage_fail(USAGE);
	cmd = argv[1];
	if (!strcmp(cmd, "--help"))
		usage_ok(USAGE);
	if (!strcmp(cmd, "--version"))
		version_ok();
	if (!strcmp(cmd, "view"))
		return mt_view(argc - 1, argv + 1, USAGE);
	find_self_dir(argv[0]);
	if (!strcmp(cmd, "run"))
		return pipeline(MODE_RUN, argc - 1, argv + 1);
	if (!strcmp(cmd, "attach"))
		return pipeline(MODE_ATTACH, argc - 1, argv + 1);
	if (!strcmp(cmd, "decode"))
		return pipeline(MODE_DECODE, argc - 1, argv + 1);
	warn("%s: not a command: run, attach, decode or view", cmd);
	usage_fail(USAGE);
}
