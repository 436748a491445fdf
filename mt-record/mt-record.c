/*
 * mt-record: capture what a program does and write it as an mt stream or
 * perf script text: with Intel PT through perf (a snapshot of the last
 * moments), by sampling with perf, with uprobes on chosen functions, or
 * by patching the function entries of the program (exact calls, any
 * x86-64 CPU); or decode an existing perf.data. See docs/mt-record.1.
 *
 * This file is the core: the options (struct rec_opts, opts.h), their
 * validation, the choice of backend (backend.h: each one a struct
 * rec_backend in a folder of its own), the run (rec.h) and what it offers
 * every backend (the output, the snapshots' files, signals); and the
 * recording in rounds of the backends that have one (struct rec_rounds:
 * pt, sample, uprobe): started once, a snapshot at each trigger hit
 * (--repeat), until the last hit, an exit or a signal.
 *
 * The backends: perf/ (pt and sample, over perf.c, which drives perf, and
 * dlfilter-run.c, which decodes PT through mt-dlfilter.so: dlfilter.c,
 * loaded by perf script), uprobe/ (over the uprobe engine, uprobe.h:
 * uprobe*.c), patch/ (record.c its recording, patch-rec.h the shared
 * memory, inject.h ptrace, patch-load.h the runtime's loading; the runtime
 * itself is mt-patch/). Beside them: streamout.c writes the mt stream,
 * trigger.c and hwbp.c the trigger, functions.c the --functions
 * selection, target.c and target-open.c the process recorded and its
 * files, libpath.c mt's own files.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cmdline.h"
#include "die.h"
#include "xalloc.h"
#include "duration.h"
#include "err.h"
#include "functions.h"
#include "libpath.h"
#include "opts.h"
#include "backend.h"
#include "rec.h"
#include "perf.h"
#include "stream.h"
#include "spawn.h"
#include "symtab.h"
#include "target.h"
#include "trigger.h"
#include "dlfilter-run.h"
#include "streamout.h"
#include "uprobe.h"
#include "banned.h"

#define USAGE "usage: mt-record [-v] [-o output] [--backend backend] " \
	"[--functions regex] [--trigger selection] [--trigger-via via] " \
	"[--arm-after duration] " \
	"[--repeat n] [--full] [--snapshot-size size] [--timing timing] " \
	"[--multi-thread] [--kernel] [--kernel-only] [--frequency hz] [--call-graph mode] [--events list] " \
	"[--dry-run] [--keep dir] [--command-stdout fd] [-p pid] [-i perf.data] [--text] " \
	"[-- command ...]\n"

static const char *const backend_names[] = { "auto", "pt", "uprobe", "sample", "patch" };

/* By enum backend (BE_AUTO is chosen before any is used). */
static const struct rec_backend *const backends[] = {
	[BE_PT] = &rec_backend_pt,
	[BE_UPROBE] = &rec_backend_uprobe,
	[BE_SAMPLE] = &rec_backend_sample,
	[BE_PATCH] = &rec_backend_patch,
};

/* The signal handler's: the signal that came, and how many. */
static volatile sig_atomic_t got_signal, signals;

int rec_signal(void)
{
	return got_signal;
}

static void on_signal(int sig)
{
	got_signal = sig;
	if (++signals >= 3)
		_exit(128 + sig); /* the third one: the user means it */
}

void rec_out_text(const struct rec *r, const char *p, size_t n)
{
	if (r->sout)
		stream_out_lines(r->sout, p, n);
	else
		write_or_die(r->out_fd, p, n);
}

void rec_printf(const struct rec *r, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		rec_out_text(r, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- options ---- */

static uint64_t parse_size(const char *arg)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || errno || arg[0] == '-')
		die(MT_EXIT_USAGE, "--snapshot-size %s: expected a size such as 4M", arg);
	switch (toupper((unsigned char)*end)) {
	case 'K': mult = 1u << 10; end++; break;
	case 'M': mult = 1u << 20; end++; break;
	case 'G': mult = 1u << 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || !v || v > (1ull << 40) / mult)
		die(MT_EXIT_USAGE, "--snapshot-size %s: expected a size such as 4M", arg);
	return v * mult;
}

static uint64_t parse_frequency(const char *arg)
{
	char *end, buf[32];
	uint64_t v;

	if (!strcmp(arg, "max")) {
		/* what the kernel allows now (it lowers it under load) */
		if (read_small("/proc/sys/kernel/perf_event_max_sample_rate", buf,
			       sizeof(buf)) || (v = strtoull(buf, &end, 10)) == 0)
			die(MT_EXIT_SYSTEM, "--frequency max: cannot read "
			    "kernel.perf_event_max_sample_rate");
		return v;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end || errno || !v || v > 1000000)
		die(MT_EXIT_USAGE, "--frequency %s: expected hertz, "
		    "1 to 1000000, or max", arg);
	return v;
}

/*
 * --events: NAME[=PERIOD],... where NAME is a perf event of the hardware
 * or software kind (branch-misses, page-faults, L1-dcache-load-misses):
 * letters, digits, '-', '_' and '.'; by default every event is a sample,
 * but branch-misses every 50 (magic-trace's). Into o->events; dies
 * (usage) on anything else.
 */
static void parse_events(struct rec_opts *o, const char *list)
{
	const char *p = list;

	for (;;) {
		const char *name = p;
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789-_.");
		struct rec_event ev = { name, (int)n, 1 };

		p += n;
		if (!n || n > 256)
			die(MT_EXIT_USAGE, "--events %s: expected NAME[=PERIOD],... "
			    "(perf list names them)", list);
		if (*p == ':' || *p == '/')
			die(MT_EXIT_USAGE, "--events %s: '%.*s%c': a tracepoint or "
			    "raw event syntax; only named hardware and software "
			    "events (NAME[=PERIOD])", list, (int)n, name, *p);
		if (n == 13 && !memcmp(name, "branch-misses", 13))
			ev.period = 50;
		if (*p == '=') {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p + 1, &end, 10);
			if (end == p + 1 || errno || !v || v > UINT32_MAX)
				die(MT_EXIT_USAGE, "--events %s: '%.*s': expected a "
				    "period of 1 or more events a sample", list,
				    (int)(strcspn(name, ",")), name);
			ev.period = (unsigned long)v;
			p = end;
		}
		if (*p && *p != ',')
			die(MT_EXIT_USAGE, "--events %s: expected NAME[=PERIOD],... "
			    "(perf list names them)", list);
		o->events = xrealloc(o->events, o->nevents + 1, sizeof(*o->events));
		o->events[o->nevents++] = ev;
		if (!*p++)
			return;
	}
}

static int parse_repeat(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*end || errno || v < 0 || v > INT_MAX || end == arg)
		die(MT_EXIT_USAGE, "--repeat %s: expected a count "
		    "(0: forever)", arg);
	return (int)v;
}

/* The index of arg among the n names; dies (usage) naming them. */
static int one_of(const char *what, const char *arg, const char *const *names, int n)
{
	char list[256] = "";
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	/* "expected pt, uprobe, sample or auto": the default last */
	for (i = 1; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 names[i], i < n - 1 ? ", " : " or ");
	die(MT_EXIT_USAGE, "%s %s: expected %s%s", what, arg, list, names[0]);
}

/* --command-stdout's descriptor: an open one; dies (usage) otherwise. */
static int parse_descriptor(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v < 0 || v > INT_MAX)
		die(MT_EXIT_USAGE, "--command-stdout %s: expected a descriptor "
		    "number, as 3", arg);
	if (fcntl((int)v, F_GETFD) < 0)
		die(MT_EXIT_USAGE, "--command-stdout %s: not an open descriptor", arg);
	return (int)v;
}

/* The options into o, -p into tgt; dies (usage) on a bad one. */
static void parse_options(struct rec_opts *o, struct target *tgt, int argc, char **argv)
{
	enum { OPT_BACKEND = 256, OPT_FUNCTIONS, OPT_TRIGGER, OPT_ARM, OPT_REPEAT,
	       OPT_FULL, OPT_SIZE, OPT_TIMING, OPT_MULTI, OPT_KERNEL, OPT_FREQ,
	       OPT_CG, OPT_DRY, OPT_KEEP, OPT_VIA, OPT_CMDOUT, OPT_EVENTS,
	       OPT_KERNEL_ONLY, OPT_TEXT, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "arm-after", required_argument, NULL, OPT_ARM },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "call-graph", required_argument, NULL, OPT_CG },
		{ "command-stdout", required_argument, NULL, OPT_CMDOUT },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "frequency", required_argument, NULL, OPT_FREQ },
		{ "full", no_argument, NULL, OPT_FULL },
		{ "functions", required_argument, NULL, OPT_FUNCTIONS },
		{ "input", required_argument, NULL, 'i' },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
		{ "multi-thread", no_argument, NULL, OPT_MULTI },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "snapshot-size", required_argument, NULL, OPT_SIZE },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "timing", required_argument, NULL, OPT_TIMING },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "trigger-via", required_argument, NULL, OPT_VIA },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = mt_getopt(argc, argv, "+i:o:p:v", longopts, USAGE)) != -1) {
		switch (c) {
		case 'i':
			o->input = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			target_add_pids(tgt, optarg);
			break;
		case 'v':
			o->verbose = 1;
			break;
		case OPT_ARM:
			if (mt_parse_duration(optarg, &o->arm_after_ns))
				die(MT_EXIT_USAGE, "--arm-after %s: expected a duration "
				    "such as 500ms", optarg);
			break;
		case OPT_BACKEND:
			o->backend = (enum backend)one_of("--backend", optarg,
						       backend_names, 5);
			break;
		case OPT_CG:
			if (strcmp(optarg, "fp") && strcmp(optarg, "dwarf") &&
			    strcmp(optarg, "lbr") && strcmp(optarg, "lbr-no-stitch"))
				die(MT_EXIT_USAGE, "--call-graph %s: expected fp, dwarf, "
				    "lbr or lbr-no-stitch", optarg);
			o->callgraph = optarg;
			o->given |= GIVEN_CG;
			break;
		case OPT_CMDOUT:
			o->command_fd = parse_descriptor(optarg);
			break;
		case OPT_DRY:
			o->dry_run = 1;
			break;
		case OPT_FREQ:
			o->frequency = parse_frequency(optarg);
			o->given |= GIVEN_FREQ;
			break;
		case OPT_FULL:
			o->full = 1;
			break;
		case OPT_FUNCTIONS:
			o->functions = optarg;
			break;
		case OPT_KEEP:
			o->keep_dir = optarg;
			break;
		case OPT_EVENTS:
			free(o->events);
			o->events = NULL;
			o->nevents = 0;
			parse_events(o, optarg);
			o->given |= GIVEN_EVENTS;
			break;
		case OPT_KERNEL:
		case OPT_KERNEL_ONLY:
			if (o->kernel && o->kernel != (c == OPT_KERNEL ? 1 : 2))
				die(MT_EXIT_USAGE, "--kernel and --kernel-only: "
				    "choose one");
			o->kernel = c == OPT_KERNEL ? 1 : 2;
			o->given |= GIVEN_KERNEL;
			break;
		case OPT_MULTI:
			o->multi_thread = 1;
			break;
		case OPT_REPEAT:
			o->repeat = parse_repeat(optarg);
			break;
		case OPT_SIZE:
			o->snapshot_bytes = parse_size(optarg);
			o->given |= GIVEN_SIZE;
			break;
		case OPT_TEXT:
			o->text = 1;
			break;
		case OPT_TIMING:
			o->timing = optarg;
			o->given |= GIVEN_TIMING;
			break;
		case OPT_TRIGGER:
			o->trigger = optarg;
			break;
		case OPT_VIA:
			o->trigger_via = (enum via)one_of("--trigger-via", optarg,
						       via_names, 3);
			break;
		case OPT_HELP:
			usage_ok(USAGE);
		case OPT_VERSION:
			version_ok();
		default:
			usage_fail(USAGE);
		}
	}
}

/*
 * With -o FILE, before FILE takes the standard output over: keep it aside
 * for the command (r->cmd_out), whose standard output it stays; closed, the
 * command gets /dev/null.
 */
static void keep_stdout_for_command(struct rec *r)
{
	if (!r->tgt.cmd || r->o.command_fd >= 0)
		return;
	r->cmd_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (r->cmd_out < 0 && errno != EBADF)
		die_errno(MT_EXIT_SYSTEM, "dup(standard output)");
	if (r->cmd_out < 0)
		r->cmd_out = MT_SPAWN_NULL;
}

/* The options that cannot go together, and -o; dies (usage) on those. */
static void check_options(struct rec *r, int argc, char **argv)
{
	const struct rec_opts *o = &r->o;

	if (optind < argc)
		r->tgt.cmd = argv + optind;
	if (!!r->tgt.npids + !!o->input + !!r->tgt.cmd != 1)
		die(MT_EXIT_USAGE, "name one target: -p PID, -i perf.data, or -- COMMAND");
	if (strcmp(o->timing, "low") && strcmp(o->timing, "normal") && strcmp(o->timing, "high"))
		check_raw_terms(o->timing, o->dry_run);
	if (o->repeat != 1 && !o->trigger)
		die(MT_EXIT_USAGE, "--repeat needs --trigger");
	if (o->arm_after_ns && !o->trigger)
		die(MT_EXIT_USAGE, "--arm-after needs --trigger");
	if (o->trigger_via != VIA_AUTO && !o->trigger)
		die(MT_EXIT_USAGE, "--trigger-via needs --trigger");
	if (o->input && (o->trigger || o->functions))
		die(MT_EXIT_USAGE, "-i decodes a recording: --trigger and --functions "
		    "do not apply");
	if (o->backend == BE_UPROBE && o->full)
		die(MT_EXIT_USAGE, "--full does not apply to the uprobe backend "
		    "(use a large --snapshot-size)");
	if (o->command_fd >= 0 && !r->tgt.cmd)
		die(MT_EXIT_USAGE, "--command-stdout needs -- COMMAND");
	/* the command's standard output: not the trace text's */
	if (o->command_fd > 2 && fcntl(o->command_fd, F_SETFD, FD_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "--command-stdout %d", o->command_fd);
	if (o->command_fd >= 0)
		r->cmd_out = o->command_fd;
	if (o->output) {
		size_t l = strlen(o->output);

		if (l && o->output[l - 1] == '/') {
			if (!o->trigger || o->repeat == 1)
				die(MT_EXIT_USAGE, "-o DIR/ (one file per snapshot) needs "
				    "--trigger and --repeat");
			r->dir_out = o->output;
			if (o->command_fd < 0)
				r->cmd_out = MT_SPAWN_INHERIT; /* stdout carries nothing */
			if (mkdir(r->dir_out, 0777) && errno != EEXIST)
				die_errno(MT_EXIT_SYSTEM, "%s", r->dir_out);
		} else if (!o->dry_run) {
			keep_stdout_for_command(r);
			output_unnamed(); /* a SIGKILL leaves no temporary */
			output_to_or_die(o->output);
		}
	}
}

/* One line for each option given that the chosen backend does not use. */
static void warn_unused(const struct rec_opts *o)
{
	static const struct {
		unsigned given;
		const char *name;
		unsigned backends; /* 1 << BE_*: where it does not apply */
		const char *why;
	} rules[] = {
		{ GIVEN_TIMING, "--timing", 1u << BE_UPROBE | 1u << BE_SAMPLE | 1u << BE_PATCH,
		  "it sets Intel PT's timing packets" },
		{ GIVEN_FREQ, "--frequency", 1u << BE_PT | 1u << BE_UPROBE | 1u << BE_PATCH,
		  "it sets the sample backend's rate" },
		{ GIVEN_CG, "--call-graph", 1u << BE_PT | 1u << BE_UPROBE | 1u << BE_PATCH,
		  "it sets how the sample backend unwinds" },
		{ GIVEN_KERNEL, "--kernel", 1u << BE_UPROBE,
		  "uprobes see user space only" },
		{ GIVEN_KERNEL, "--kernel", 1u << BE_PATCH,
		  "it patches user code only" },
		{ GIVEN_EVENTS, "--events", 1u << BE_UPROBE | 1u << BE_PATCH,
		  "it adds events to perf's recording" },
	};
	size_t i;

	if (o->input)
		return;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if ((o->given & rules[i].given) && (rules[i].backends & 1u << o->backend))
			warn("%s does not apply to the %s backend (%s): ignored",
			     rules[i].given == GIVEN_KERNEL && o->kernel == 2 ?
			     "--kernel-only" : rules[i].name,
			     backends[o->backend]->name, rules[i].why);
}

/* The options the chosen backend cannot do; dies (usage) on those. */
static void check_backend_options(const struct rec *r)
{
	if (backends[r->o.backend]->check_options)
		backends[r->o.backend]->check_options(r);
}

/*
 * --backend auto: pt where the PMU exists; else patch where it applies
 * (the exact calls, every function of the program's own); else sample,
 * with one line that says which and why.
 */
static void choose_backend(struct rec *r)
{
	struct rec_opts *o = &r->o;
	char why[512];
	int say = !o->dry_run && !o->input;

	if (o->backend != BE_AUTO)
		return;
	if (have_pt()) {
		o->backend = BE_PT;
		return;
	}
	if ((r->tgt.npids || r->tgt.cmd) && !backends[BE_PATCH]->cannot(r, why, sizeof(why))) {
		o->backend = BE_PATCH;
		if (say)
			fprintf(stderr, "%s: no Intel PT here: the patch backend, the exact "
				"calls of %s (--backend sample for sampled stacks)\n",
				mt_progname(), o->functions ? "the functions --functions "
				"chooses" : "the program's own functions");
		return;
	}
	o->backend = BE_SAMPLE;
	if (say)
		fprintf(stderr, "%s: no Intel PT here, and %s: sampling stacks with perf "
			"instead\n", mt_progname(), (r->tgt.npids || r->tgt.cmd) ? why :
			"no process named");
}

/* --dry-run: what would run, on stdout. */
static void dry_run_print(struct rec *r)
{
	const struct rec_opts *o = &r->o;

	if (o->input) {
		struct argv a = { 0 };
		char *so = o->text ? NULL : dlfilter_path();

		script_argv(&a, o->perf, o->input, DECODE_PT | (decode_how(o) & DECODE_STITCH_LBR));
		if (so)
			dlfilter_args(&a, so);
		free(so);
		print_argv(stdout, a.v, 1);
		argv_free(&a);
		return;
	}
	if (o->trigger) {
		choose_trigger_via(&r->tr, o->trigger_via);
		if (r->tr.use_bp)
			printf("# trigger %s: a hardware breakpoint on every thread "
			       "(perf_event_open, breakpoint PMU)\n", o->trigger);
		else
			printf("# trigger %s: a uprobe (perf_event_open, uprobe PMU)%s%s\n",
			       o->trigger, r->tr.via_note ? ": " : "",
			       r->tr.via_note ? r->tr.via_note : "");
	}
	backends[o->backend]->dry_run(r);
}

static void dry_run(struct rec *r)
{
	char msg[256];
	size_t i;

	/* the processes are not looked at, but what would fail is said */
	for (i = 0; i < r->tgt.npids; i++)
		if (target_unrecordable(r->tgt.pids[i], msg, sizeof(msg)))
			warn("%s (recording would fail)", msg);
	if (r->tgt.npids)
		r->tgt.pid = r->tgt.pids[0];
	dry_run_print(r);
}

/* SIGINT, SIGTERM and SIGHUP blocked but while waiting (r->wait_mask),
 * where they end the recording; SIGPIPE ignored. */
static void catch_signals(struct rec *r)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &r->wait_mask);
	sigdelset(&r->wait_mask, SIGINT);
	sigdelset(&r->wait_mask, SIGTERM);
	sigdelset(&r->wait_mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN); /* write_or_die reports a closed pipe */
}

/* What this machine must have for the backend; dies (system) naming
 * what it lacks. */
static void check_machine(const struct rec *r)
{
	target_check_pids(&r->tgt); /* bad input first: before what this machine lacks */
	backends[r->o.backend]->check_machine(r);
	check_kernel(r->o.kernel);
}

/* The target started (held) or looked at, the trigger resolved in it. */
static void start_target(struct rec *r)
{
	if (r->o.trigger)
		choose_trigger_via(&r->tr, r->o.trigger_via);
	make_workdir();
	if (r->tgt.cmd)
		target_start_child(&r->tgt, r->cmd_out);
	else
		target_check_target(&r->tgt);
	if (r->o.trigger) {
		resolve_trigger(&r->tr, &r->tgt);
		r->trp = &r->tr;
		r->tgt.trace_start = r->tgt.child && (r->tr.use_bp || r->tr.in_lib);
	}
#if defined(__x86_64__)
	/* --functions reaches the command's libraries once they are mapped:
	 * it is held at its entry point to choose them (target_run_to_entry) */
	r->fn_at_entry = r->tgt.child && backends[r->o.backend]->rounds->functions_at_entry &&
			 r->o.functions;
	r->tgt.trace_start |= r->fn_at_entry;
#endif
}

/* A command we ran that goes on after its snapshot ends with us. */
static void end_target(struct rec *r)
{
	struct target *tgt = &r->tgt;
	int tries;

	if (!tgt->child || !target_alive(tgt))
		return;
	kill(tgt->child, SIGTERM);
	for (tries = 0; tries < 50 && target_alive(tgt); tries++)
		usleep(20000);
	if (tgt->child && target_alive(tgt)) {
		kill(tgt->child, SIGKILL);
		waitpid(tgt->child, NULL, 0);
	}
}

/* ---- what the core offers every backend (rec.h) ---- */

/* read_symbols() and inode_path() of the target, for the selection. */
int rec_target_symbols(void *ctx, struct mt_symfile *f, const char *path, int must)
{
	return read_symbols(ctx, f, path, must);
}

char *rec_target_path(void *ctx, const char *path)
{
	return inode_path(ctx, path);
}

/*
 * Where the selection looked, for its "no function matches": the
 * executable, and the libraries searched (libs) or why none were. A
 * command held at its entry point is killed first: it never runs.
 */
void rec_no_function(struct rec *r, char *const *libs)
{
	struct mt_buf b = MT_BUF_INIT;
	size_t k;

	if (r->tgt.child_stopped) {
		kill(r->tgt.child, SIGKILL);
		waitpid(r->tgt.child, NULL, 0);
		r->tgt.child = 0;
		r->tgt.child_stopped = 0;
	}
	if (!r->o.functions)
		die(MT_EXIT_DATA, "%s: no function matches (the program's own "
		    "functions): --functions REGEX chooses others", r->tgt.exe);
	for (k = 0; libs && libs[k]; k++)
		if ((k && mt_buf_add(&b, ", ", 2)) || mt_buf_add(&b, libs[k], strlen(libs[k])))
			die(MT_EXIT_SYSTEM, "out of memory");
	if (libs)
		die(MT_EXIT_DATA, "--functions '%s': no function matches in %s nor in "
		    "the %zu shared librar%s it maps%s%s (mt-symbols --match REGEX "
		    "FILE lists what matches in a file)", r->o.functions, r->tgt.exe, k,
		    k == 1 ? "y" : "ies", k ? ": " : "", k ? b.p : "");
	die(MT_EXIT_DATA, "--functions '%s': no function matches in %s (its shared "
	    "libraries are searched with -p only here)", r->o.functions, r->tgt.exe);
}

void rec_wallclock(const struct rec *r)
{
	struct timespec m, t;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &t);
	rec_printf(r, "# mt: wallclock %lld.%09ld %lld%09ld\n", (long long)m.tv_sec,
		   m.tv_nsec, (long long)t.tv_sec, t.tv_nsec);
}

/* "# mt: event NAME" for each --events: their samples are instants, not
 * stacks (mt-stacks(1)). */
void rec_event_lines(const struct rec *r)
{
	size_t i;

	for (i = 0; i < r->o.nevents; i++)
		rec_printf(r, "# mt: event %.*s\n", r->o.events[i].name_len,
			   r->o.events[i].name);
}

/* Where the command's output goes, said before it runs. */
void rec_stdout_note(void)
{
	fprintf(stderr, "%s: the command's standard output goes to the "
		"standard error (the trace text is on the standard output; "
		"use -o FILE)\n", mt_progname());
}

/* ---- the recording: until the trigger, an exit or a signal ---- */

static void arm(struct rec *r, struct round *rd, int mode)
{
	arm_trigger(&rd->tg, r->trp, &r->tgt, mode, r->o.repeat != 1);
	rd->armed = 1;
}

/* The backend recording, the trigger armed (unless --arm-after), the
 * command let go. */
static void round_start(struct rec *r, struct round *rd)
{
	const struct rec_rounds *ops = backends[r->o.backend]->rounds;
	struct trig *tr = r->trp;
	uint64_t arm_after = r->o.arm_after_ns;
	int at_entry, note;

	rd->mode = r->tgt.child ? MT_UPROBE_EXEC : MT_UPROBE_PROCESS;
	/* the command's functions: chosen at its entry point, below */
	at_entry = r->fn_at_entry && rd->mode == MT_UPROBE_EXEC;
	if (!at_entry)
		ops->start(r, rd);
	if (tr && !arm_after && !(r->tgt.trace_start && rd->mode == MT_UPROBE_EXEC))
		arm(r, rd, rd->mode);
	note = r->tgt.gate_w >= 0 && r->cmd_out == STDERR_FILENO && r->o.command_fd != 2;
	if (note && !at_entry)
		rec_stdout_note();
	target_release_child(&r->tgt);
	if (at_entry && !r->tgt.child_stopped)
		die(MT_EXIT_DATA, "%s ended before its entry point", r->tgt.cmd[0]);
	if (r->tgt.child_stopped && (at_entry || (tr && tr->in_lib)))
		target_run_to_entry(&r->tgt);
	if (tr && tr->in_lib && r->tgt.child_stopped)
		resolve_in_libraries(tr, &r->tgt);
	if (at_entry) {
		/* stopped at its entry point: a running process now */
		rd->mode = MT_UPROBE_PROCESS;
		ops->start(r, rd);
		if (note)
			rec_stdout_note(); /* after what may refuse (one line then) */
	}
	if (tr && !arm_after && !rd->armed && r->tgt.child)
		arm(r, rd, MT_UPROBE_PROCESS); /* stopped after its execve, or at its entry */
	target_resume_child(&r->tgt);
	rd->start = now_mono();
	fprintf(stderr, "%s: recording %d", mt_progname(), (int)r->tgt.pid);
	for (size_t i = 1; i < r->tgt.npids; i++)
		fprintf(stderr, ", %d", (int)r->tgt.pids[i]);
	fprintf(stderr, " with %s%s%s; Ctrl+C %s\n", backends[r->o.backend]->name,
		r->o.full ? " (full)" : "",
		r->tgt.npids > 1 && (ops->first_process_only || r->trp) ?
		" (uprobes and the trigger: the first)" : "",
		!r->trp ? "takes the snapshot" : r->o.repeat != 1 ?
		"ends, keeping the snapshots taken" : "ends without a snapshot");
}

/* Until a signal, a trigger hit or the end of the target: rd->why (a
 * hit in rd->hit). Called again after each hit: the trigger stays armed. */
static void round_wait(struct rec *r, struct round *rd)
{
	const struct rec_rounds *ops = backends[r->o.backend]->rounds;
	struct mt_uprobe_hit late;

	rd->why = STOP_EXIT;
	for (;;) {
		if (got_signal) {
			rd->why = STOP_SIGNAL;
			break;
		}
		if (r->trp && !rd->armed && now_mono() - rd->start >= r->o.arm_after_ns)
			arm(r, rd, MT_UPROBE_PROCESS);
		if (rd->armed && trigger_wait(&rd->tg, ops->wait_blocks ? 0 : 50, &r->wait_mask,
					      &rd->hit)) {
			rd->why = STOP_TRIGGER;
			break;
		}
		if (ops->wait(r, rd))
			break; /* the engine saw the target end */
		if (!target_alive(&r->tgt))
			break;
		if (ops->check)
			ops->check(r, rd);
	}
	/*
	 * A Ctrl+C reaches the command's process group too (it starts with
	 * the signals as we found them): when it ended the command, the
	 * signal (pending while blocked) is why the recording ends, not the
	 * exit. Unblocked for a moment, it is taken now.
	 */
	if (rd->why == STOP_EXIT) {
		sigset_t held;

		sigprocmask(SIG_SETMASK, &r->wait_mask, &held);
		sigprocmask(SIG_SETMASK, &held, NULL);
		if (got_signal) /* now, or during the wait that saw the exit */
			rd->why = STOP_SIGNAL;
	}
	/* the trigger may have fired just before the exit was seen */
	if (rd->armed && rd->why == STOP_EXIT &&
	    trigger_finish(&rd->tg, &r->wait_mask, &late)) {
		rd->hit = late;
		rd->why = STOP_TRIGGER;
	}
}

/* The trigger's hit, said on stderr and as the mark line of the text. */
static void trigger_mark(const struct rec *r, struct round *rd)
{
	const struct trig *tr = r->trp;
	const struct mt_uprobe_hit *hit = &rd->hit;

	warn("trigger %s hit by %u/%u at %" PRIu64 ".%09" PRIu64, tr->name,
	     hit->pid, hit->tid, hit->time / 1000000000u,
	     hit->time % 1000000000u);
	rd->mk.time = hit->time;
	snprintf(rd->mk.text, sizeof(rd->mk.text), "# mt: trigger %" PRIu64 ".%09" PRIu64
		 " %u/%u 0x%" PRIx64 " %s\n", hit->time / 1000000000u,
		 hit->time % 1000000000u, hit->pid, hit->tid, tr->addr, tr->name);
}

/* ---- the snapshots ---- */

/*
 * A snapshot of -o DIR/, written to tmp (a temporary in DIR), becomes the
 * first DIR/snapshot-NNN.txt (perf's text) or .mt (an mt stream) whose
 * number no file there has yet: link(2) never replaces a file, so
 * snapshots of earlier runs stay.
 */
static void place_snapshot(struct rec *r, const char *tmp)
{
	static const char *const ext[] = { "txt", "mt" };
	int is_stream = r->sout != NULL;
	char *name, *other;

	for (;; r->next_snapshot++) {
		name = xasprintf("%s/snapshot-%03d.%s", r->dir_out, r->next_snapshot,
				 ext[is_stream]);
		other = xasprintf("%s/snapshot-%03d.%s", r->dir_out, r->next_snapshot,
				  ext[!is_stream]);
		if (access(other, F_OK)) { /* the number is free but for name */
			if (!link(tmp, name)) {
				free(other);
				break;
			}
			if (errno != EEXIST)
				die_errno(MT_EXIT_SYSTEM, "%s", name);
		}
		free(other);
		free(name);
	}
	r->next_snapshot++;
	unlink(tmp);
	warn("wrote %s", name);
	free(name);
}

/* A snapshot's text begins: with -o DIR/, into a temporary in DIR
 * (r->snap_tmp); then the "# mt: snapshot N TIME" line (--repeat). */
void rec_snapshot_begin(struct rec *r, int no, uint64_t time)
{
	if (r->dir_out) {
		char *in;
		mode_t mask = umask(0);
		int fd;

		umask(mask);
		in = xasprintf("%s/snapshot", r->dir_out);
		fd = output_tmp_beside(in, r->snap_tmp, sizeof(r->snap_tmp));
		free(in);
		if (fd < 0 || fchmod(fd, 0666 & ~mask))
			die_errno(MT_EXIT_SYSTEM, "%s", r->dir_out);
		r->out_fd = fd;
		if (r->sout)
			stream_out_init(r->sout, fd); /* a stream of its own */
	}
	if (r->o.repeat != 1)
		rec_printf(r, "# mt: snapshot %d %" PRIu64 ".%09" PRIu64 "\n", no,
			   time / 1000000000u, time % 1000000000u);
}

/* The snapshot's text is whole: with -o DIR/, it takes its place. */
void rec_snapshot_end(struct rec *r)
{
	if (!r->dir_out)
		return;
	if (r->sout) {
		stream_out_finish(r->sout);
		stream_out_release(r->sout);
	}
	if (fsync(r->out_fd) || close(r->out_fd))
		die_errno(MT_EXIT_SYSTEM, "%s: write error", r->dir_out);
	r->out_fd = 1;
	place_snapshot(r, r->snap_tmp);
}

/*
 * The recording, started once; each trigger hit takes a snapshot of what
 * the ring holds then, and the trigger stays armed (--repeat: every hit
 * until the n-th); the end of the target, Ctrl+C or the n-th hit ends it,
 * every snapshot taken kept. Without a hit, the end of the target (or
 * Ctrl+C without a trigger) takes the one snapshot.
 */
static void record(struct rec *r)
{
	const struct rec_rounds *ops = backends[r->o.backend]->rounds;
	const struct rec_opts *o = &r->o;
	struct round rd;
	struct mt_uprobe_hit more;
	unsigned after_end = 0;

	memset(&rd, 0, sizeof(rd));
	rd.mk.time = MT_NONE64;
	round_start(r, &rd);
	for (;;) {
		round_wait(r, &rd);
		if (rd.why != STOP_TRIGGER)
			break;
		trigger_mark(r, &rd);
		if (o->repeat && r->snap_no + 1 >= o->repeat)
			break;
		if (ops->middle(r, &rd))
			break; /* perf ended with the target: this hit's is the last */
		r->snap_no++;
		rd.mk.time = MT_NONE64;
	}
	/* a hit that came as the program ended, its exit seen first: perf's
	 * last data (written as it ended with the program) is its snapshot */
	if (rd.why == STOP_EXIT && r->snap_no && rd.armed && ops->hits_after_end && o->repeat != 1 &&
	    (!o->repeat || r->snap_no < o->repeat) &&
	    trigger_finish(&rd.tg, &r->wait_mask, &rd.hit)) {
		rd.why = STOP_TRIGGER;
		trigger_mark(r, &rd);
	}
	if (rd.why == STOP_TRIGGER || !r->trp || (rd.why == STOP_EXIT && !r->snap_no)) {
		ops->last(r, &rd);
		r->snap_no++;
	} else {
		if (rd.why == STOP_SIGNAL)
			fprintf(stderr, r->snap_no ? "%s: interrupted: the %d snapshots "
				"taken are kept\n" : "%s: interrupted before the trigger "
				"fired: no snapshot\n", mt_progname(), r->snap_no);
		ops->abandon(r, &rd);
	}
	/* hits seen after perf had ended with the target: its last
	 * snapshot holds them */
	while (rd.armed && ops->hits_after_end && rd.why == STOP_TRIGGER && o->repeat != 1 &&
	       trigger_finish(&rd.tg, &r->wait_mask, &more))
		after_end++;
	if (after_end && (!o->repeat || r->snap_no < o->repeat))
		warn("%u more trigger hits as the program ended: the last snapshot "
		     "holds them", after_end);
	if (rd.armed && trigger_dropped(&rd.tg))
		warn("%u trigger hits came faster than snapshots were taken: "
		     "dropped", trigger_dropped(&rd.tg));
	if (rd.armed)
		trigger_release(&rd.tg);
	if (ops->output)
		ops->output(r);
	if (rd.why == STOP_SIGNAL && r->trp && !r->snap_no && o->output && output_discard())
		warn("nothing recorded: %s left as it was", o->output);
}

/* The pt, sample and uprobe backends: perf's or the uprobe engine's
 * recording, in rounds (a snapshot at each trigger hit). */
void rec_record_rounds(struct rec *r)
{
	start_target(r);
	record(r);
}

/* ---- main ---- */

/* Frees what r holds; the work directory goes with it. */
static void rec_release(struct rec *r)
{
	trig_release(&r->tr, &r->tgt);
	fn_names_release(&r->probed);
	target_release(&r->tgt);
	free(r->o.events);
	workdir_done();
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->o.repeat = 1;
	r->o.backend = BE_AUTO;
	r->o.trigger_via = VIA_AUTO;
	r->o.timing = "normal";
	r->o.callgraph = "fp";
	r->o.perf = "perf";
	r->o.frequency = 1000;
	r->out_fd = 1;
	r->o.command_fd = -1;
	r->cmd_out = STDERR_FILENO; /* the trace text has the standard output */
	target_init(&r->tgt);
}

int main(int argc, char **argv)
{
	struct rec rec, *r = &rec;

	mt_set_progname(argv[0]);
	mt_set_manual();
	work_init();
	rec_init(r);
	if (getenv("MT_PERF") && *getenv("MT_PERF"))
		r->o.perf = getenv("MT_PERF");
	parse_options(&r->o, &r->tgt, argc, argv);
	r->tr.sel = r->o.trigger;
	work_set_options(r->o.verbose, r->o.keep_dir);
	check_options(r, argc, argv);
	choose_backend(r);
	check_backend_options(r);
	warn_unused(&r->o);
	if (r->o.dry_run) {
		dry_run(r);
		close_stdout_or_die();
		rec_release(r);
		return 0;
	}
	catch_signals(r);
	if (getenv("MT_PERF_CONFIG") && *getenv("MT_PERF_CONFIG") &&
	    access(getenv("MT_PERF_CONFIG"), R_OK))
		die_errno(MT_EXIT_SYSTEM, "MT_PERF_CONFIG %s", getenv("MT_PERF_CONFIG"));
	if (r->o.input) {
		int how;

		check_perf(r->o.perf);
		make_workdir();
		how = (is_auxtrace(r->o.input) ? DECODE_PT : 0) |
		      (decode_how(&r->o) & DECODE_STITCH_LBR);
		if ((how & DECODE_PT) && !r->o.text && (r->dlf = dlfilter_choose(r->o.perf)))
			decode_dlfilter(r->o.perf, r->o.input, how, r->dlf, r->out_fd);
		else
			decode(r->o.perf, r->o.input, how, NULL, r->out_fd, NULL, NULL);
		free(r->dlf);
		close_stdout_or_die();
		rec_release(r);
		return 0;
	}
	check_machine(r);
	backends[r->o.backend]->record(r);
	end_target(r);
	close_stdout_or_die();
	rec_release(r);
	return 0;
}
