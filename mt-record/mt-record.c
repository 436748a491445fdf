/*
 * mt-record: capture what a program does and print it as perf script
 * text: with Intel PT through perf (snapshot of the last moments), with
 * uprobes on chosen functions (exact calls, any CPU), or by sampling;
 * or decode an existing perf.data. See docs/mt-record.1.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cmdline.h"
#include "die.h"
#include "duration.h"
#include "dwline.h"
#include "err.h"
#include "functions.h"
#include "hwbp.h"
#include "perfline.h"
#include "proc.h"
#include "stream.h"
#include "opts.h"
#include "perf.h"
#include "symtab.h"
#include "target.h"
#include "trigger.h"
#include "uprobe.h"
#include "banned.h"

#define USAGE "usage: mt-record [-v] [-o output] [--backend backend] " \
	"[--functions regex] [--trigger selection] [--trigger-via via] " \
	"[--arm-after duration] " \
	"[--repeat n] [--full] [--snapshot-size size] [--timing timing] " \
	"[--multi-thread] [--kernel] [--frequency hz] [--call-graph mode] " \
	"[--dry-run] [--keep dir] [-p pid] [-i perf.data] [-- command ...]\n"

static const char *const backend_names[] = { "auto", "pt", "uprobe", "sample" };


/* ---- options ---- */

static struct rec_opts opt = {
	.repeat = 1, .backend = BE_AUTO, .trigger_via = VIA_AUTO, .timing = "normal",
	.callgraph = "fp", .perf = "perf", .frequency = 1000,
};

/* How the trigger stops the program: --trigger-via. */

/* ---- state ---- */

static volatile sig_atomic_t got_signal, signals;
static int out_fd = 1;
static struct target tgt;      /* what is recorded: target.h */

static void on_signal(int sig)
{
	got_signal = sig;
	if (++signals >= 3)
		_exit(128 + sig); /* the third one: the user means it */
}

static void out_text(const char *p, size_t n)
{
	write_or_die(out_fd, p, n);
}

static void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out_printf(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_text(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

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

static int round_no;

/* The functions the uprobe backend probes, for the entry-only lines. */
static struct fn_names probed;

/* read_symbols() and inode_path() of the target, for the selection. */
static int target_symbols(void *ctx, struct mt_symtab *t, const char *path, int must)
{
	return read_symbols(ctx, t, path, must);
}

static char *target_path(void *ctx, const char *path)
{
	return inode_path(ctx, path);
}

/*
 * The uprobe backend's functions (functions.h): --functions REGEX over
 * the functions of the executable and, when attached to a running
 * process, of the shared libraries it maps; without a regex, the
 * executable's own functions up to a cap. The names go to probed in the
 * first round.
 */
static int add_functions(struct mt_uprobe *u, const struct trig *tr)
{
	struct fn_files files = { target_symbols, target_path, &tgt };
	struct fn_query q = { opt.functions, tgt.exe, NULL, NULL, 0, &files, NULL };
	char **libs = NULL;
	size_t n;

	if (tr) {
		q.skip_path = tr->path;
		q.skip_addr = tr->addr;
	}
	if (round_no == 0)
		q.names = &probed;
	if (opt.functions && !tgt.child)
		q.libs = libs = mapped_libraries(&tgt);
	n = fn_add_functions(u, &q);
	if (libs)
		free_paths(libs);
	if (!n)
		die(MT_EXIT_DATA, "%s: no function matches %s", tgt.exe,
		    opt.functions ? opt.functions : "(the program's own functions)");
	if (mt_uprobe_warnings(u) & MT_UPROBE_W_GO)
		warn("%s: %s", tgt.exe, mt_uprobe_warning_text(MT_UPROBE_W_GO));
	return (int)n;
}

static int emit(void *argp, const char *text, size_t len)
{
	(void)argp;
	out_text(text, len);
	return 0;
}

/* ---- one round: record until the trigger, an exit or a signal ---- */

enum stop { STOP_EXIT, STOP_SIGNAL, STOP_TRIGGER };

static sigset_t wait_mask;

static void wallclock_line(void)
{
	struct timespec m, r;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	out_printf("# mt: wallclock %lld.%09ld %lld%09ld\n", (long long)m.tv_sec,
		   m.tv_nsec, (long long)r.tv_sec, r.tv_nsec);
}

static enum stop run_round(struct trig *tr)
{
	struct perf_rec pr;
	struct mt_uprobe u;
	struct trigger_run tg;
	struct mt_uprobe_hit hit = { 0 };
	struct mark_line mk = { MT_NONE64, "" };
	int armed = 0, have_u = 0, r, mode;
	enum stop why = STOP_EXIT;
	uint64_t start;

	memset(&u, 0, sizeof(u));
	memset(&tg, 0, sizeof(tg));
	mode = tgt.child && round_no == 0 ? MT_UPROBE_EXEC : MT_UPROBE_PROCESS;
	if (opt.backend == BE_UPROBE) {
		struct mt_uprobe_opts o = { 0 };

		o.background_close = 1;
		if (opt.snapshot_bytes)
			o.ring_bytes = opt.snapshot_bytes;
		r = mt_uprobe_init(&u, &o);
		if (r)
			die_up(&u, r);
		add_functions(&u, tr);
		r = mt_uprobe_attach(&u, tgt.pid, mode);
		if (r)
			die_up(&u, r);
		have_u = 1;
	} else {
		perf_start(&pr, &opt, &tgt, tr != NULL);
	}
	if (tr && !opt.arm_after_ns && !(tgt.trace_start && mode == MT_UPROBE_EXEC)) {
		arm_trigger(&tg, tr, &tgt, mode);
		armed = 1;
	}
	target_release_child(&tgt);
	if (tr && tr->in_lib && tgt.child_stopped) {
		target_run_to_entry(&tgt);
		resolve_in_libraries(tr, &tgt);
	}
	if (tr && !opt.arm_after_ns && !armed && tgt.child) {
		/* the command is stopped after its execve, or at its entry */
		arm_trigger(&tg, tr, &tgt, MT_UPROBE_PROCESS);
		armed = 1;
	}
	target_resume_child(&tgt);
	start = now_mono();
	fprintf(stderr, "%s: recording %d with %s%s; Ctrl+C %s\n", mt_progname(),
		(int)tgt.pid, backend_names[opt.backend],
		opt.full ? " (full)" : "",
		tr ? "ends without a snapshot" : "takes the snapshot");

	for (;;) {
		if (got_signal) {
			why = STOP_SIGNAL;
			break;
		}
		if (tr && !armed && now_mono() - start >= opt.arm_after_ns) {
			arm_trigger(&tg, tr, &tgt, MT_UPROBE_PROCESS);
			armed = 1;
		}
		if (armed && trigger_wait(&tg, have_u ? 0 : 50, &wait_mask, &hit)) {
			why = STOP_TRIGGER;
			break;
		}
		if (have_u) {
			r = mt_uprobe_wait(&u, 50, &wait_mask);
			if (r < 0)
				die_up(&u, r);
			if (r == MT_UPROBE_EXITED)
				break;
		} else if (!armed) {
			struct timespec ts = { 0, 50000000 };

			ppoll(NULL, 0, &ts, &wait_mask);
		}
		if (!target_alive(&tgt))
			break;
		if (!have_u && reap(&pr.proc, 0))
			perf_failed(&pr, "while recording");
	}
	if (armed) {
		/* the trigger may have fired just before the exit was seen */
		struct mt_uprobe_hit late;

		if (trigger_finish(&tg, &wait_mask, &late) && why == STOP_EXIT) {
			hit = late;
			why = STOP_TRIGGER;
		}
	}

	if (why == STOP_SIGNAL && tr) {
		fprintf(stderr, "%s: interrupted before the trigger fired: no snapshot\n",
			mt_progname());
		if (have_u)
			mt_uprobe_release(&u);
		else
			perf_stop(&pr);
		if (armed)
			trigger_release(&tg);
		return why;
	}
	if (why == STOP_TRIGGER) {
		warn("trigger %s hit by %u/%u at %" PRIu64 ".%09" PRIu64, tr->name,
		     hit.pid, hit.tid, hit.time / 1000000000u,
		     hit.time % 1000000000u);
		mk.time = hit.time;
		snprintf(mk.text, sizeof(mk.text), "# mt: trigger %" PRIu64 ".%09" PRIu64
			 " %u/%u 0x%" PRIx64 " %s\n", hit.time / 1000000000u,
			 hit.time % 1000000000u, hit.pid, hit.tid, tr->addr, tr->name);
	}
	if (opt.repeat != 1 || round_no)
		out_printf("# mt: snapshot %d %" PRIu64 ".%09" PRIu64 "\n", round_no,
			   (why == STOP_TRIGGER ? hit.time : now_mono()) / 1000000000u,
			   (why == STOP_TRIGGER ? hit.time : now_mono()) % 1000000000u);
	if (have_u) {
		r = mt_uprobe_finish(&u);
		if (r)
			die_up(&u, r);
		if (opt.backend == BE_UPROBE)
			wallclock_line();
		if (mt_uprobe_warnings(&u) & MT_UPROBE_W_GO) {
			/* no return probes (Go): mt-stacks makes each call an
			 * instant rather than a frame that never ends */
			size_t k;

			for (k = 0; k < probed.n; k++)
				out_printf("# mt: entry-only %s\n", probed.v[k]);
		}
		r = mt_uprobe_dump(&u, why == STOP_TRIGGER ? hit.time : MT_UPROBE_ALL,
				   emit, NULL);
		if (r < 0)
			die_up(&u, r);
		if (mk.time != MT_NONE64)
			out_text(mk.text, strlen(mk.text));
		{
			unsigned w;

			for (w = 1; w; w <<= 1)
				if ((mt_uprobe_warnings(&u) & w) && w != MT_UPROBE_W_GO)
					warn("%s", mt_uprobe_warning_text(w));
		}
		mt_uprobe_release(&u);
	} else {
		char *data;

		/* a trigger: the snapshot of what led to it; otherwise the
		 * at-exit snapshot that stop takes (--snapshot=e) */
		if (why == STOP_TRIGGER && opt.backend == BE_PT && !opt.full &&
		    perf_ctl(&pr, "snapshot\n"))
			perf_failed(&pr, "to take the snapshot");
		perf_stop(&pr);
		if (opt.backend == BE_SAMPLE)
			wallclock_line();
		if (asprintf(&data, "%s/perf.data", workdir_path()) < 0)
			die(MT_EXIT_SYSTEM, "out of memory");
		/* PT times are perf's clock, not CLOCK_MONOTONIC: the trigger
		 * line goes at the end there */
		if (opt.backend == BE_PT && mk.time != MT_NONE64)
			mk.time = UINT64_MAX - 1;
		decode(opt.perf, data, opt.backend == BE_PT, &mk, out_fd);
		free(data);
	}
	if (armed)
		trigger_release(&tg);
	return why;
}

/* ---- main ---- */

/*
 * A snapshot of -o DIR/, written to tmp (a temporary in DIR), becomes the
 * first DIR/snapshot-NNN.txt not yet there: link(2) never replaces a file,
 * so snapshots of earlier runs stay.
 */
static void place_snapshot(const char *dir_out, const char *tmp)
{
	static int next;
	char *name;

	for (;; next++) {
		if (asprintf(&name, "%s/snapshot-%03d.txt", dir_out, next) < 0)
			die(MT_EXIT_SYSTEM, "out of memory");
		if (!link(tmp, name))
			break;
		if (errno != EEXIST)
			die_errno(MT_EXIT_SYSTEM, "%s", name);
		free(name);
	}
	next++;
	unlink(tmp);
	warn("wrote %s", name);
	free(name);
}

static void dry_run_print(struct trig *tr)
{
	struct argv a = { 0 };

	if (opt.input) {
		script_argv(&a, opt.perf, opt.input, 1);
		print_argv(stdout, a.v, 1);
		argv_free(&a);
		return;
	}
	if (opt.trigger) {
		choose_trigger_via(tr, opt.trigger_via);
		if (tr->use_bp)
			printf("# trigger %s: a hardware breakpoint on every thread "
			       "(perf_event_open, breakpoint PMU)\n", opt.trigger);
		else
			printf("# trigger %s: a uprobe (perf_event_open, uprobe PMU)%s%s\n",
			       opt.trigger, tr->via_note ? ": " : "",
			       tr->via_note ? tr->via_note : "");
	}
	if (opt.backend == BE_UPROBE) {
		printf("# uprobe backend: perf_event_open(uprobe PMU) on the "
		       "functions of %s matching %s; no perf command\n",
		       tgt.exe ? tgt.exe : "the program", opt.functions ? opt.functions : "(default)");
		return;
	}
	record_argv(&a, &opt, &tgt, -1, -1, opt.trigger != NULL);
	print_argv(stdout, a.v, 1);
	argv_free(&a);
	script_argv(&a, opt.perf, "DIR/perf.data", opt.backend == BE_PT);
	print_argv(stdout, a.v, 1);
	argv_free(&a);
}

static void choose_backend(void)
{
	if (opt.backend != BE_AUTO)
		return;
	if (have_pt()) {
		opt.backend = BE_PT;
		return;
	}
	opt.backend = BE_SAMPLE;
	if (!opt.dry_run && !opt.input)
		fprintf(stderr, "%s: no Intel PT here: sampling stacks with perf "
			"instead; for the exact calls of chosen functions use "
			"--backend uprobe --functions REGEX\n", mt_progname());
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

/* The options, into the option statics; dies (usage) on a bad one. */
static void parse_options(int argc, char **argv)
{
	enum { OPT_BACKEND = 256, OPT_FUNCTIONS, OPT_TRIGGER, OPT_ARM, OPT_REPEAT,
	       OPT_FULL, OPT_SIZE, OPT_TIMING, OPT_MULTI, OPT_KERNEL, OPT_FREQ,
	       OPT_CG, OPT_DRY, OPT_KEEP, OPT_VIA, OPT_HELP, OPT_VERSION };
	static const struct option longopts[] = {
		{ "arm-after", required_argument, NULL, OPT_ARM },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "call-graph", required_argument, NULL, OPT_CG },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "frequency", required_argument, NULL, OPT_FREQ },
		{ "full", no_argument, NULL, OPT_FULL },
		{ "functions", required_argument, NULL, OPT_FUNCTIONS },
		{ "input", required_argument, NULL, 'i' },
		{ "keep", required_argument, NULL, OPT_KEEP },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "multi-thread", no_argument, NULL, OPT_MULTI },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "snapshot-size", required_argument, NULL, OPT_SIZE },
		{ "timing", required_argument, NULL, OPT_TIMING },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "trigger-via", required_argument, NULL, OPT_VIA },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+i:o:p:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			opt.input = optarg;
			break;
		case 'o':
			opt.output = optarg;
			break;
		case 'p':
			target_add_pids(&tgt, optarg);
			break;
		case 'v':
			opt.verbose = 1;
			break;
		case OPT_ARM:
			if (mt_parse_duration(optarg, &opt.arm_after_ns))
				die(MT_EXIT_USAGE, "--arm-after %s: expected a duration "
				    "such as 500ms", optarg);
			break;
		case OPT_BACKEND:
			opt.backend = (enum backend)one_of("--backend", optarg,
						       backend_names, 4);
			break;
		case OPT_CG:
			if (strcmp(optarg, "fp") && strcmp(optarg, "dwarf") &&
			    strcmp(optarg, "lbr"))
				die(MT_EXIT_USAGE, "--call-graph %s: expected fp, dwarf "
				    "or lbr", optarg);
			opt.callgraph = optarg;
			break;
		case OPT_DRY:
			opt.dry_run = 1;
			break;
		case OPT_FREQ: {
			char *end;

			errno = 0;
			opt.frequency = strtoull(optarg, &end, 10);
			if (*end || errno || !opt.frequency || opt.frequency > 1000000)
				die(MT_EXIT_USAGE, "--frequency %s: expected hertz, "
				    "1 to 1000000", optarg);
			break;
		}
		case OPT_FULL:
			opt.full = 1;
			break;
		case OPT_FUNCTIONS:
			opt.functions = optarg;
			break;
		case OPT_KEEP:
			opt.keep_dir = optarg;
			break;
		case OPT_KERNEL:
			opt.kernel = 1;
			break;
		case OPT_MULTI:
			opt.multi_thread = 1;
			break;
		case OPT_REPEAT: {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (*end || errno || v < 0 || v > INT_MAX || end == optarg)
				die(MT_EXIT_USAGE, "--repeat %s: expected a count "
				    "(0: forever)", optarg);
			opt.repeat = (int)v;
			break;
		}
		case OPT_SIZE:
			opt.snapshot_bytes = parse_size(optarg);
			break;
		case OPT_TIMING:
			opt.timing = optarg;
			break;
		case OPT_TRIGGER:
			opt.trigger = optarg;
			break;
		case OPT_VIA:
			opt.trigger_via = (enum via)one_of("--trigger-via", optarg,
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

int main(int argc, char **argv)
{
	struct trig tr = { 0 }, *trp = NULL;
	struct sigaction sa;
	sigset_t block;
	const char *dir_out = NULL;
	int n;

	mt_set_progname(argv[0]);
	work_init();
	target_init(&tgt);
	if (getenv("MT_PERF") && *getenv("MT_PERF"))
		opt.perf = getenv("MT_PERF");
	parse_options(argc, argv);
	tr.sel = opt.trigger;
	work_set_options(opt.verbose, opt.keep_dir);
	if (optind < argc)
		tgt.cmd = argv + optind;
	n = !!tgt.npids + !!opt.input + !!tgt.cmd;
	if (n != 1)
		die(MT_EXIT_USAGE, "name one target: -p PID, -i perf.data, or -- COMMAND");
	if (strcmp(opt.timing, "low") && strcmp(opt.timing, "normal") && strcmp(opt.timing, "high"))
		check_raw_terms(opt.timing, opt.dry_run);
	if (opt.repeat != 1 && !opt.trigger)
		die(MT_EXIT_USAGE, "--repeat needs --trigger");
	if (opt.arm_after_ns && !opt.trigger)
		die(MT_EXIT_USAGE, "--arm-after needs --trigger");
	if (opt.trigger_via != VIA_AUTO && !opt.trigger)
		die(MT_EXIT_USAGE, "--trigger-via needs --trigger");
	if (opt.input && (opt.trigger || opt.functions))
		die(MT_EXIT_USAGE, "-i decodes a recording: --trigger and --functions "
		    "do not apply");
	if (opt.backend == BE_UPROBE && opt.full)
		die(MT_EXIT_USAGE, "--full does not apply to the uprobe backend "
		    "(use a large --snapshot-size)");
	if (opt.output) {
		size_t l = strlen(opt.output);

		if (l && opt.output[l - 1] == '/') {
			if (!opt.trigger || opt.repeat == 1)
				die(MT_EXIT_USAGE, "-o DIR/ (one file per snapshot) needs "
				    "--trigger and --repeat");
			dir_out = opt.output;
			if (mkdir(dir_out, 0777) && errno != EEXIST)
				die_errno(MT_EXIT_SYSTEM, "%s", dir_out);
		} else if (!opt.dry_run) {
			output_to_or_die(opt.output);
		}
	}
	choose_backend();

	if (opt.dry_run) {
		char msg[256];
		size_t i;

		/* the processes are not looked at, but what would fail is said */
		for (i = 0; i < tgt.npids; i++)
			if (target_unrecordable(tgt.pids[i], msg, sizeof(msg)))
				warn("%s (recording would fail)", msg);
		if (tgt.npids)
			tgt.pid = tgt.pids[0];
		dry_run_print(&tr);
		close_stdout_or_die();
		return 0;
	}

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
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigdelset(&wait_mask, SIGHUP);
	signal(SIGPIPE, SIG_IGN); /* write_or_die reports a closed pipe */

	if (getenv("MT_PERF_CONFIG") && *getenv("MT_PERF_CONFIG") &&
	    access(getenv("MT_PERF_CONFIG"), R_OK))
		die_errno(MT_EXIT_SYSTEM, "MT_PERF_CONFIG %s", getenv("MT_PERF_CONFIG"));
	if (opt.input) {
		check_perf(opt.perf);
		make_workdir();
		decode(opt.perf, opt.input, is_auxtrace(opt.input), NULL, out_fd);
		close_stdout_or_die();
		return 0;
	}
	target_check_pids(&tgt); /* bad input first: before what this machine lacks */
	if (opt.backend == BE_PT && !have_pt())
		no_pt();
	if (opt.backend != BE_UPROBE)
		check_perf(opt.perf);
	if (opt.backend == BE_UPROBE && !mt_uprobe_supported())
		die(MT_EXIT_SYSTEM, "this kernel has no uprobe PMU "
		    "(/sys/bus/event_source/devices/uprobe)");
	check_kernel(opt.kernel);
	if (opt.trigger)
		choose_trigger_via(&tr, opt.trigger_via);
	make_workdir();
	if (tgt.cmd)
		target_start_child(&tgt, out_fd);
	else
		target_check_target(&tgt);
	if (opt.trigger) {
		resolve_trigger(&tr, &tgt);
		trp = &tr;
		tgt.trace_start = tgt.child && (tr.use_bp || tr.in_lib);
	}
	for (round_no = 0; opt.repeat == 0 || round_no < opt.repeat; round_no++) {
		char tmp[PATH_MAX];
		enum stop why;
		int fd = -1;

		if (dir_out) {
			char *in;
			mode_t mask = umask(0);

			umask(mask);
			if (asprintf(&in, "%s/snapshot", dir_out) < 0)
				die(MT_EXIT_SYSTEM, "out of memory");
			fd = output_tmp_beside(in, tmp, sizeof(tmp));
			free(in);
			if (fd < 0 || fchmod(fd, 0666 & ~mask))
				die_errno(MT_EXIT_SYSTEM, "%s", dir_out);
			out_fd = fd;
		}
		why = run_round(trp);
		if (fd >= 0) {
			if (fsync(fd) || close(fd))
				die_errno(MT_EXIT_SYSTEM, "%s: write error", dir_out);
			out_fd = 1;
			if (why == STOP_SIGNAL && trp)
				unlink(tmp);
			else
				place_snapshot(dir_out, tmp);
		}
		if (why == STOP_SIGNAL && trp && !round_no && opt.output &&
		    output_discard())
			warn("nothing recorded: %s left as it was", opt.output);
		if (why != STOP_TRIGGER || !target_alive(&tgt))
			break;
	}
	if (tgt.child && target_alive(&tgt)) {
		/* a command we ran that goes on after its snapshot ends with us */
		int tries;

		kill(tgt.child, SIGTERM);
		for (tries = 0; tries < 50 && target_alive(&tgt); tries++)
			usleep(20000);
		if (tgt.child && target_alive(&tgt)) {
			kill(tgt.child, SIGKILL);
			waitpid(tgt.child, NULL, 0);
		}
	}
	close_stdout_or_die();
	trig_release(&tr, &tgt);
	fn_names_release(&probed);
	free(tgt.exe);
	free(tgt.pids);
	workdir_done();
	return 0;
}
