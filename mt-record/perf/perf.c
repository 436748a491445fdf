/*
 * mt-record's processes and perf's private directory: start perf (never
 * through a shell; common/spawn.h), print a perf command line as it
 * would run, the environment perf gets (PERF_CONFIG, HOME), and the work
 * directory, removed however mt-record ends; perf record's and perf
 * script's command lines, the control of a running perf record, the
 * decoding of a recording, and the checks of PT and perf. See perf.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
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
#include "perf.h"
#include "perfline.h"
#include "stream.h"
#include "streamout.h"
#include "xalloc.h"
#include "banned.h"

#define PT_SYSFS "/sys/bus/event_source/devices/intel_pt"

/* The work directory and what decides about it: work_init(),
 * work_set_options(), make_workdir(). */
static struct {
	char *workdir;        /* perf's private directory, absolute */
	const char *keep_dir; /* --keep: the user's, never removed */
	pid_t main_pid;       /* only this process removes the directory */
	int verbose;          /* -v: perf_spawn() says what it runs */
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


int show_stderr(const struct proc *p)
{
	char buf[4096];
	ssize_t n;
	int fd, shown = 0;

	if (!p->errfile || (fd = open(p->errfile, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		shown = 1;
		if (write(2, buf, (size_t)n) < 0)
			break;
	}
	close(fd);
	return shown;
}

void proc_failed(const struct proc *p, const char *what)
{
	int shown = show_stderr(p), st = p->sp.status;
	char how[96];

	if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st))
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(st));
	else
		snprintf(how, sizeof(how), "status %d", st);
	die(MT_EXIT_SYSTEM, "%s: %s%s", what, how,
	    shown ? " (its messages are above)" : ", with no message");
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

/* In perf's child, before its exec: the signals we catch or ignore at
 * their defaults, and perf's environment. */
static void perf_child(void *arg)
{
	(void)arg;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	setenv("PAGER", "cat", 1); /* perf would start less on bad options */
	perf_env();
}

void perf_spawn(struct proc *p, char *const *argv, int out, const int *keep,
		size_t nkeep, const char *errname)
{
	struct mt_spawn init = MT_SPAWN_INIT;
	int err = -1;

	if (pf.verbose) {
		fprintf(stderr, "%s: running: ", mt_progname());
		print_argv(stderr, argv, 1);
	}
	p->sp = init;
	p->errfile = errname ? xstrdup(errname) : NULL;
	if (errname)
		err = open(errname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	p->sp.out = out;
	p->sp.err = err >= 0 ? err : MT_SPAWN_INHERIT;
	p->sp.name = argv[0];
	p->sp.unprefixed = 1; /* into perf's messages, as a shell says it */
	p->sp.exec_status = 127;
	p->sp.new_group = 1;
	p->sp.death_signal = SIGKILL;
	p->sp.keep = keep;
	p->sp.nkeep = nkeep;
	p->sp.child_setup = perf_child;
	if (mt_spawn_start(&p->sp, argv))
		die_errno(MT_EXIT_SYSTEM, "%s", p->sp.failed);
	if (err >= 0)
		close(err);
}

/*
 * Runs the perf command argv with its standard output into buf (len
 * bytes, NUL-terminated): the bytes read, or -1 when it failed or exited
 * non-zero.
 */
static ssize_t perf_output(char *const *argv, char *buf, size_t len)
{
	struct proc p;
	ssize_t n;

	perf_spawn(&p, argv, MT_SPAWN_PIPE, NULL, 0, NULL);
	n = mt_spawn_read(&p.sp, buf, len);
	mt_spawn_wait(&p.sp);
	if (n < 0 || !WIFEXITED(p.sp.status) || WEXITSTATUS(p.sp.status))
		return -1;
	return n;
}

/* ---- the private directory ---- */

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

/* The watcher of the work directory (arg: the gate's read end, all it
 * has open): once the gate closes, we have ended, the directory goes. */
static int watch_workdir(void *arg)
{
	char b;

	while (read(*(const int *)arg, &b, 1) < 0 && errno == EINTR)
		;
	rm_rf(pf.workdir);
	return 0;
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
	struct mt_spawn w = MT_SPAWN_INIT;
	int gate[2];
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
	made = xasprintf("%s/mt-record.XXXXXX", tmp && *tmp ? tmp : "/tmp");
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
	w.new_group = 1;
	w.keep = &gate[0]; /* nothing else of ours: not the output pipe */
	w.nkeep = 1;
	w.child_main = watch_workdir;
	w.child_arg = &gate[0];
	if (mt_spawn_start(&w, NULL))
		die_errno(MT_EXIT_SYSTEM, "%s", w.failed);
	close(gate[0]); /* gate[1] stays open until we end */
}

uint64_t now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (!pf.verbose)
		return;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

/* ---- Intel PT ---- */

int have_pt(void)
{
	struct stat st;

	return stat(PT_SYSFS, &st) == 0;
}

void no_pt(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL, vendor[64] = "unknown";
	size_t cap = 0;
	int flag_pt = 0, hv = 0, seen_flags = 0;

	while (f && getline(&line, &cap, f) >= 0) {
		if (!strncmp(line, "vendor_id", 9) && strchr(line, ':'))
			sscanf(strchr(line, ':') + 1, " %63s", vendor);
		if (!seen_flags && !strncmp(line, "flags", 5)) {
			seen_flags = 1;
			flag_pt = strstr(line, " intel_pt") != NULL;
			hv = strstr(line, " hypervisor") != NULL;
		}
	}
	free(line);
	if (f)
		fclose(f);
	die(MT_EXIT_SYSTEM, "no Intel PT here: %s does not exist (CPU vendor %s, "
	    "%s intel_pt flag in /proc/cpuinfo%s); use --backend uprobe "
	    "--functions REGEX for the exact calls of chosen functions, or "
	    "--backend sample for sampled stacks", PT_SYSFS, vendor,
	    flag_pt ? "an" : "no",
	    hv ? ", in a virtual machine, which rarely passes PT through" : "");
}

/* The intel_pt event's config terms for --timing. */
static const char *pt_terms(const struct rec_opts *o)
{
	char caps[16];

	if (!strcmp(o->timing, "low"))
		return "";
	if (!strcmp(o->timing, "normal") || !strcmp(o->timing, "high")) {
		if (!o->dry_run && (read_small(PT_SYSFS "/caps/psb_cyc", caps, sizeof(caps)) ||
				 caps[0] != '1')) {
			warn("this CPU has no cycle-accurate PT timing (caps/psb_cyc): "
			     "timing will be ~1us instead of ~10ns");
			return "";
		}
		return !strcmp(o->timing, "normal") ? "cyc=1,cyc_thresh=1,mtc_period=0" :
			"cyc=1,cyc_thresh=1,mtc_period=0,noretcomp=1";
	}
	return o->timing; /* raw terms, checked below */
}

void check_raw_terms(const char *t, int dry_run)
{
	static const struct { const char *name, *caps; } known[] = {
		{ "cyc", NULL }, { "cyc_thresh", "cycle_thresholds" },
		{ "mtc", NULL }, { "mtc_period", "mtc_periods" },
		{ "noretcomp", NULL }, { "psb_period", "psb_periods" },
	};
	char *copy = xstrdup(t), *save = NULL, *term;

	for (term = strtok_r(copy, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '='), *end, path[256], caps[64];
		unsigned long v = 1;
		size_t i;

		if (eq) {
			*eq = '\0';
			errno = 0;
			v = strtoul(eq + 1, &end, 0);
			if (!eq[1] || *end || errno || v > 15)
				die(MT_EXIT_USAGE, "--timing %s: %s=%s: expected a small number",
				    t, term, eq + 1);
		}
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strcmp(term, known[i].name))
				break;
		if (i == sizeof(known) / sizeof(known[0]))
			die(MT_EXIT_USAGE, "--timing %s: unknown term '%s' (low, normal, "
			    "high, or terms cyc, cyc_thresh, mtc, mtc_period, noretcomp, "
			    "psb_period)", t, term);
		if (dry_run || !known[i].caps)
			continue;
		snprintf(path, sizeof(path), PT_SYSFS "/caps/%s", known[i].caps);
		if (read_small(path, caps, sizeof(caps)) == 0 &&
		    !((strtoul(caps, NULL, 16) >> v) & 1))
			die(MT_EXIT_USAGE, "--timing: %s=%lu is not supported by this CPU "
			    "(caps/%s = %s)", term, v, known[i].caps, caps);
	}
	free(copy);
}

/* The -m,PAGES of --snapshot-size: a power of two of pages, warned. */
static uint64_t aux_pages(uint64_t snapshot_bytes)
{
	uint64_t pages, p2 = 1;

	if (!snapshot_bytes)
		return 0;
	pages = (snapshot_bytes + 4095) / 4096;
	while (p2 < pages)
		p2 <<= 1;
	if (p2 * 4096 != snapshot_bytes)
		warn("--snapshot-size: %" PRIu64 " bytes rounded up to %" PRIu64
		     " KiB (a power of two of 4 KiB pages)", snapshot_bytes, p2 * 4);
	return p2;
}

/* ---- perf command lines ---- */

void argv_add(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	grow_or_die(&a->v, &a->cap, a->n + 1, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void argv_free(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void target_args(struct argv *a, const struct target *tgt, int multi_thread,
			int per_thread_ok)
{
	size_t i;
	char buf[4096] = "";

	for (i = 0; i < tgt->npids || (!i && tgt->pid); i++) {
		size_t l = strlen(buf);

		snprintf(buf + l, sizeof(buf) - l, "%s%d", i ? "," : "",
			 (int)(tgt->npids ? tgt->pids[i] : tgt->pid));
	}
	if (!multi_thread && per_thread_ok) {
		argv_add(a, "--per-thread");
		argv_add(a, "-t");
	} else {
		argv_add(a, "-p");
	}
	argv_add(a, "%s", buf[0] ? buf : "PID");
}

/* perf's modifier for the code o records: u, uk, or k (--kernel-only) */
static const char *scope(const struct rec_opts *o)
{
	return o->kernel == 2 ? "k" : o->kernel ? "uk" : "u";
}

/* --events: each one more sampled event; in the sample backend's
 * snapshot they share the ring's overwriting. */
static void event_args(struct argv *a, const struct rec_opts *o)
{
	size_t i;

	for (i = 0; i < o->nevents; i++) {
		argv_add(a, "-e");
		argv_add(a, "%.*s/period=%lu%s/%s", o->events[i].name_len, o->events[i].name,
			 o->events[i].period,
			 o->backend == BE_SAMPLE && !o->full ? ",overwrite" : "", scope(o));
	}
}

void record_argv(struct argv *a, const struct rec_opts *o, const struct target *tgt,
		 int ctl, int ack, int with_trigger)
{
	argv_add(a, "%s", o->perf);
	argv_add(a, "record");
	argv_add(a, "-o");
	argv_add(a, "%s/perf.data", workdir_path() ? workdir_path() : "DIR");
	if (o->backend == BE_PT) {
		const char *terms = pt_terms(o);
		uint64_t pages = aux_pages(o->snapshot_bytes);

		argv_add(a, "--timestamp");
		argv_add(a, "-e");
		argv_add(a, "intel_pt/%s/%s", terms, scope(o));
		event_args(a, o);
		/* as magic-trace: with more events, perf's per-thread mode
		 * is left out */
		target_args(a, tgt, o->multi_thread, !o->nevents);
		if (!o->full)
			argv_add(a, with_trigger ? "--snapshot" : "--snapshot=e");
		if (pages)
			argv_add(a, "-m,%" PRIu64, pages);
		if (o->kernel)
			argv_add(a, "--kcore");
	} else {
		/* A snapshot overwrites only the samples: the side-band (COMM,
		 * MMAP of an exec) rides on a first, tracking dummy event whose
		 * ring is written out as it fills, so a wrapped ring keeps its
		 * symbols and comm (docs/perf.md 1.5). */
		if (!o->full) {
			argv_add(a, "-e");
			argv_add(a, "%s", o->kernel ? "dummy" : "dummy:u");
		}
		argv_add(a, "-e");
		argv_add(a, "cpu-clock/freq=%" PRIu64 "%s/%s", o->frequency,
			 o->full ? "" : ",overwrite", o->kernel == 1 ? "" : scope(o));
		event_args(a, o);
		argv_add(a, "-k");
		argv_add(a, "mono");
		argv_add(a, "--call-graph");
		/* stitched or not is perf script's business */
		argv_add(a, "%s", strncmp(o->callgraph, "lbr", 3) ? o->callgraph : "lbr");
		if (o->kernel == 2)
			argv_add(a, "--kernel-callchains"); /* not the user frames below */
		/* the samples' ring (and the side-band's): --snapshot-size */
		if (o->snapshot_bytes)
			argv_add(a, "-m%" PRIu64, aux_pages(o->snapshot_bytes));
		target_args(a, tgt, o->multi_thread, 0);
	}
	/* --repeat: each snapshot is a file of its own (docs/perf.md 1.6) */
	if (with_trigger && o->repeat != 1)
		argv_add(a, "--switch-output=signal");
	argv_add(a, "-D");
	argv_add(a, "-1");
	if (ctl >= 0)
		argv_add(a, "--control=fd:%d,%d", ctl, ack);
	else
		argv_add(a, "--control=fd:CTL,ACK");
}

int decode_how(const struct rec_opts *o)
{
	return (o->backend == BE_PT ? DECODE_PT : 0) |
	       (!strcmp(o->callgraph, "lbr") ? DECODE_STITCH_LBR : 0);
}

void script_argv(struct argv *a, const char *perf, const char *data, int how)
{
	argv_add(a, "%s", perf);
	argv_add(a, "script");
	argv_add(a, "-i");
	argv_add(a, "%s", data);
	argv_add(a, "--ns");
	if (how & DECODE_STITCH_LBR)
		argv_add(a, "--stitch-lbr");
	if (how & DECODE_PT) {
		argv_add(a, "--itrace=bep");
		argv_add(a, "-F");
		argv_add(a, "comm,pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period");
	} else {
		argv_add(a, "-F");
		argv_add(a, "comm,pid,tid,time,event,period,ip,sym,symoff,dso");
	}
}

/* HEADER_AUXTRACE is feature bit 18 of the header's feature bitmap at
 * byte 72. */
int is_auxtrace(const char *path)
{
	unsigned char h[104];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	if (n < (ssize_t)sizeof(h) || memcmp(h, "PERFILE2", 8))
		die(MT_EXIT_DATA, "%s: not a perf.data file", path);
	return (h[72 + 18 / 8] >> (18 % 8)) & 1;
}

/* ---- control of a running perf record ---- */

/* 8 s at most, as magic-trace */
int perf_ctl(struct perf_rec *r, const char *cmd_text)
{
	char buf[16];
	size_t got = 0;
	struct pollfd pfd = { r->ack, POLLIN, 0 };
	uint64_t deadline = now_mono() + 8000000000ull;

	say("perf control: %s", cmd_text);
	if (write(r->ctl, cmd_text, strlen(cmd_text)) < 0)
		return -1;
	while (got < 4) {
		int wait_ms = (int)((deadline - now_mono()) / 1000000);
		ssize_t n;

		if (now_mono() >= deadline || poll(&pfd, 1, wait_ms > 0 ? wait_ms : 0) == 0)
			return -1;
		n = read(r->ack, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return memcmp(buf, "ack\n", 4) ? -1 : 0;
}

void perf_failed(struct perf_rec *r, const char *doing)
{
	if (!mt_spawn_poll(&r->proc.sp)) {
		kill(r->proc.sp.pid, SIGKILL);
		mt_spawn_wait(&r->proc.sp);
	}
	if (r->tgt->child)
		kill(r->tgt->child, SIGKILL);
	{
		char what[128];

		snprintf(what, sizeof(what), "perf record failed %s", doing);
		proc_failed(&r->proc, what);
	}
}

void perf_start(struct perf_rec *r, const struct rec_opts *o, const struct target *tgt,
		int with_trigger)
{
	struct argv a = { 0 };
	int c[2], k[2], keep[2];
	char *errname;

	if (pipe2(c, O_CLOEXEC) || pipe2(k, O_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "pipe");
	r->tgt = tgt;
	record_argv(&a, o, tgt, c[0], k[1], with_trigger);
	keep[0] = c[0];
	keep[1] = k[1];
	errname = xasprintf("%s/perf-record.err", workdir_path());
	perf_spawn(&r->proc, a.v, MT_SPAWN_NULL, keep, 2, errname);
	free(errname);
	argv_free(&a);
	close(c[0]);
	close(k[1]);
	r->ctl = c[1];
	r->ack = k[0];
	/* perf starts with its events disabled (-D -1): the ack of
	 * "enable" says it is recording, no fixed sleep */
	if (perf_ctl(r, "enable\n"))
		perf_failed(r, "to start");
}

void perf_stop(struct perf_rec *r)
{
	int tries;

	if (perf_ctl(r, "stop\n") && !mt_spawn_poll(&r->proc.sp))
		kill(r->proc.sp.pid, SIGTERM);
	for (tries = 0; tries < 300 && !mt_spawn_poll(&r->proc.sp); tries++)
		usleep(20000);
	if (!mt_spawn_poll(&r->proc.sp)) {
		kill(r->proc.sp.pid, SIGKILL);
		mt_spawn_wait(&r->proc.sp);
	}
	close(r->ctl);
	close(r->ack);
	if (!WIFEXITED(r->proc.sp.status) || WEXITSTATUS(r->proc.sp.status))
		proc_failed(&r->proc, "perf record failed");
	free(r->proc.errfile);
	r->proc.errfile = NULL;
}

/* ---- --repeat: one perf.data per snapshot ---- */

/* The oldest perf.data.TIMESTAMP that --switch-output wrote in the work
 * directory (malloced), or NULL. */
static char *switched_file(void)
{
	DIR *d = opendir(pf.workdir);
	struct dirent *e;
	char *best = NULL;

	if (!d)
		die_errno(MT_EXIT_SYSTEM, "%s", pf.workdir);
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "perf.data.", 10) || !e->d_name[10] ||
		    (best && strcmp(e->d_name, best) >= 0))
			continue;
		free(best);
		best = xstrdup(e->d_name);
	}
	closedir(d);
	return best;
}

/* Renames the work directory's file name to path to: 0, or -1. */
static int move_file(const char *name, const char *to)
{
	char *from;
	int r;

	from = xasprintf("%s/%s", pf.workdir, name);
	r = rename(from, to);
	if (r && errno != ENOENT)
		die_errno(MT_EXIT_SYSTEM, "rename %s", from);
	free(from);
	return r ? -1 : 0;
}

int perf_switch(struct perf_rec *r, const char *to)
{
	uint64_t deadline = now_mono() + 8000000000ull;
	char *name;

	say("perf: SIGUSR2 (a snapshot into a file of its own)");
	if (mt_spawn_poll(&r->proc.sp) || kill(r->proc.sp.pid, SIGUSR2))
		return -1;
	/* a signal that lands just before perf sleeps in poll(2) waits
	 * for the next event, and an overwrite ring wakes nobody: a
	 * command on the control channel wakes it (docs/perf.md 1.6) */
	if (perf_ctl(r, "ping\n"))
		return -1;
	/* perf renames the file once it is whole, then opens the next */
	while (!(name = switched_file())) {
		if (now_mono() >= deadline || mt_spawn_poll(&r->proc.sp))
			return -1;
		usleep(5000);
	}
	if (move_file(name, to)) {
		free(name);
		return -1;
	}
	free(name);
	return 0;
}

int perf_last_output(const char *to)
{
	char *name = switched_file();
	int r = move_file(name ? name : "perf.data", to);

	free(name);
	return r;
}

/* ---- decoding: perf script, with a mark put in time order ---- */

/* A call-chain frame line of perf's that names no symbol nor file. */
static int unknown_frame(const char *p, size_t n)
{
	static const char u[] = " [unknown] ([unknown])";
	size_t ul = sizeof(u) - 1;

	while (n && (p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	return n > ul && !memcmp(p + n - ul, u, ul);
}

void perf_decode(const char *perf, const char *data, int how, const struct mark_line *mk,
		 int out_fd, uint64_t *after, struct decode_seen *seen)
{
	uint64_t skip = after ? *after : 0, last = skip;
	int dropping = 0;
	struct argv a = { 0 };
	struct proc p;
	int pending = mk && mk->time != MT_NONE64;
	char *errname, *buf = NULL;
	size_t cap = 0, len = 0;
	unsigned long long lines = 0;
	int show = mt_progress_enabled();
	ssize_t n;
	FILE *in;

	script_argv(&a, perf, data, how);
	errname = xasprintf("%s/perf-script.err", workdir_path());
	perf_spawn(&p, a.v, MT_SPAWN_PIPE, NULL, 0, errname);
	free(errname);
	argv_free(&a);
	in = fdopen(p.sp.from_child, "r");
	if (!in)
		die_errno(MT_EXIT_SYSTEM, "fdopen");
	while ((n = getline(&buf, &cap, in)) > 0) {
		if (show && !(++lines & 0xffff))
			fprintf(stderr, "\r%s: decoding: %llu lines", mt_progname(),
				lines);
		if (pending || skip) {
			struct mt_perf_line l;
			const char *why;

			len = (size_t)n;
			if (!mt_perf_parse_line(buf, len - (buf[len - 1] == '\n'), &l, &why) &&
			    l.time != MT_NONE64) {
				dropping = skip && l.time <= skip;
				if (!dropping && l.time > last)
					last = l.time;
				if (pending && l.time > mk->time) {
					mark_line_text_write(out_fd, mk);
					pending = 0;
				}
			}
		}
		if (dropping)
			continue;
		write_or_die(out_fd, buf, (size_t)n);
		if (seen && buf[0] == '\t') {
			seen->frames++;
			seen->unknown += unknown_frame(buf, (size_t)n);
		}
	}
	free(buf);
	fclose(in);
	if (show && lines > 0xffff)
		fprintf(stderr, "\r\033[K%s: decoded %llu lines\n", mt_progname(),
			lines); /* cleared: shorter than "decoding: N lines" */
	mt_spawn_wait(&p.sp);
	if (pending)
		mark_line_text_write(out_fd, mk);
	if (after)
		*after = last;
	if (!WIFEXITED(p.sp.status) || WEXITSTATUS(p.sp.status))
		script_failed(&p, data);
	free(p.errfile);
}

void script_failed(const struct proc *p, const char *data)
{
	proc_failed(p, xasprintf("perf script failed on %s", data));
}

/* ---- what perf needs here ---- */

/* perf's answer, asked once a run: check_perf() and the dlfilter's
 * choice both need it */
static struct {
	char *perf;
	char text[256];
	int ran;
} version_seen;

int perf_version(const char *perf, int *major, int *minor, char *buf, size_t len)
{
	char *argv[] = { (char *)perf, "version", NULL };

	if (!version_seen.perf || strcmp(version_seen.perf, perf)) {
		free(version_seen.perf);
		version_seen.perf = xstrdup(perf);
		version_seen.ran = perf_output(argv, version_seen.text,
					       sizeof(version_seen.text)) > 0;
	}
	if (!version_seen.ran)
		return -1;
	snprintf(buf, len, "%s", version_seen.text);
	return sscanf(buf, "perf version %d.%d", major, minor) == 2 ? 1 : 0;
}

void check_perf(const char *perf)
{
	char buf[256];
	int major = 0, minor = 0;
	int v = perf_version(perf, &major, &minor, buf, sizeof(buf));

	if (v < 0)
		die(MT_EXIT_SYSTEM, "%s: cannot run perf (Debian: apt install linux-perf; "
		    "or set MT_PERF to its path)", perf);
	if (!v)
		warn("%s: cannot read its version from \"%.40s\"; going on", perf, buf);
	else if (major < 5 || (major == 5 && minor < 11))
		die(MT_EXIT_SYSTEM, "perf %d.%d is too old: mt-record needs perf 5.11 "
		    "or later (--control with -D -1)", major, minor);
}

void check_kernel(int kernel)
{
	char buf[32];
	int paranoid = 2;

	if (!kernel || geteuid() == 0)
		return;
	if (read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) == 0)
		paranoid = atoi(buf);
	if (paranoid > 1)
		die(MT_EXIT_SYSTEM, "%s needs root, or CAP_PERFMON on perf, or "
		    "kernel.perf_event_paranoid <= 1 (it is %d)",
		    kernel == 2 ? "--kernel-only" : "--kernel", paranoid);
	if (read_small("/proc/sys/kernel/kptr_restrict", buf, sizeof(buf)) == 0 &&
	    atoi(buf) > 0)
		warn("kernel.kptr_restrict is %d: kernel symbols will not resolve",
		     atoi(buf));
}
