/*
 * mt-record's command line (options.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cmdline.h"
#include "die.h"
#include "duration.h"
#include "err.h"
#include "options.h"
#include "output.h"
#include "perf.h"
#include "rec.h"
#include "spawn.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE "usage: mt-record [-v] [-o output] [--backend backend] " \
	"[--functions regex] [--trigger selection] [--trigger-via via] " \
	"[--arm-after duration] [--slower-than duration] [--max-overhead pct] " \
	"[--repeat n] [--full] [--snapshot-size size] [--timing timing] " \
	"[--multi-thread] [--kernel] [--kernel-only] [--frequency hz] [--call-graph mode] [--events list] " \
	"[--dry-run] [--keep dir] [--command-stdout fd] [-p pid] [-i perf.data] [--text] " \
	"[-- command ...]\n"

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

/* --max-overhead: "none" (0), or a percentage from 0.1 to 100 (a "%"
 * after it or not), in hundredths of a percent. */
static uint32_t parse_overhead(const char *arg)
{
	char *end;
	double v;

	if (!strcmp(arg, "none"))
		return 0;
	errno = 0;
	v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (end == arg || *end || errno || !(v >= 0.1 && v <= 100))
		die(MT_EXIT_USAGE, "--max-overhead %s: expected a percentage from 0.1 to 100, "
		    "as 10%%, or none", arg);
	return (uint32_t)(v * 100 + 0.5);
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

/* --backend's words, by enum backend: the backends' own names */
static enum backend parse_backend(const char *arg)
{
	const char *names[BE_PATCH + 1];
	int b;

	names[BE_AUTO] = "auto";
	for (b = BE_AUTO + 1; b <= BE_PATCH; b++)
		names[b] = rec_backend((enum backend)b)->name;
	return (enum backend)one_of("--backend", arg, names, BE_PATCH + 1);
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
enum { OPT_BACKEND = 256, OPT_FUNCTIONS, OPT_TRIGGER, OPT_ARM, OPT_REPEAT,
       OPT_FULL, OPT_SIZE, OPT_TIMING, OPT_MULTI, OPT_KERNEL, OPT_FREQ,
       OPT_CG, OPT_DRY, OPT_KEEP, OPT_VIA, OPT_CMDOUT, OPT_EVENTS,
       OPT_KERNEL_ONLY, OPT_TEXT, OPT_SLOWER, OPT_OVERHEAD, OPT_HELP, OPT_VERSION };

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
	{ "max-overhead", required_argument, NULL, OPT_OVERHEAD },
	{ "multi-thread", no_argument, NULL, OPT_MULTI },
	{ "output", required_argument, NULL, 'o' },
	{ "pid", required_argument, NULL, 'p' },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "slower-than", required_argument, NULL, OPT_SLOWER },
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

/* An option without a value: 1, or 0 when c is none of them. */
static int flag_option(struct rec_opts *o, int c)
{
	switch (c) {
	case 'v':
		o->verbose = 1;
		return 1;
	case OPT_DRY:
		o->dry_run = 1;
		return 1;
	case OPT_FULL:
		o->full = 1;
		return 1;
	case OPT_KERNEL:
	case OPT_KERNEL_ONLY:
		if (o->kernel && o->kernel != (c == OPT_KERNEL ? 1 : 2))
			die(MT_EXIT_USAGE, "--kernel and --kernel-only: choose one");
		o->kernel = c == OPT_KERNEL ? 1 : 2;
		o->given |= GIVEN_KERNEL;
		return 1;
	case OPT_MULTI:
		o->multi_thread = 1;
		return 1;
	case OPT_TEXT:
		o->text = 1;
		o->given |= GIVEN_TEXT;
		return 1;
	case OPT_HELP:
		usage_ok(USAGE);
	case OPT_VERSION:
		version_ok();
	default:
		return 0;
	}
}

/* An option with a value, arg: 1, or 0 when c is none of them. Dies
 * (usage) on a bad value. */
static int value_option(struct rec_opts *o, struct target *tgt, int c, char *arg)
{
	switch (c) {
	case 'i':
		o->input = arg;
		return 1;
	case 'o':
		o->output = arg;
		return 1;
	case 'p':
		target_add_pids(tgt, arg);
		return 1;
	case OPT_ARM:
		if (mt_parse_duration(arg, &o->arm_after_ns))
			die(MT_EXIT_USAGE, "--arm-after %s: expected a duration "
			    "such as 500ms", arg);
		return 1;
	case OPT_SLOWER:
		if (mt_parse_duration(arg, &o->slower_than_ns) || !o->slower_than_ns)
			die(MT_EXIT_USAGE, "--slower-than %s: expected a duration "
			    "such as 2ms", arg);
		return 1;
	case OPT_OVERHEAD:
		o->max_overhead = parse_overhead(arg);
		o->given |= GIVEN_OVERHEAD;
		return 1;
	case OPT_BACKEND:
		o->backend = parse_backend(arg);
		return 1;
	case OPT_CG:
		if (strcmp(arg, "fp") && strcmp(arg, "dwarf") &&
		    strcmp(arg, "lbr") && strcmp(arg, "lbr-no-stitch"))
			die(MT_EXIT_USAGE, "--call-graph %s: expected fp, dwarf, "
			    "lbr or lbr-no-stitch", arg);
		o->callgraph = arg;
		o->given |= GIVEN_CG;
		return 1;
	case OPT_CMDOUT:
		o->command_fd = parse_descriptor(arg);
		return 1;
	case OPT_FREQ:
		o->frequency = parse_frequency(arg);
		o->given |= GIVEN_FREQ;
		return 1;
	case OPT_FUNCTIONS:
		o->functions = arg;
		return 1;
	case OPT_KEEP:
		o->keep_dir = arg;
		return 1;
	case OPT_EVENTS:
		free(o->events);
		o->events = NULL;
		o->nevents = 0;
		parse_events(o, arg);
		o->given |= GIVEN_EVENTS;
		return 1;
	case OPT_REPEAT:
		o->repeat = parse_repeat(arg);
		return 1;
	case OPT_SIZE:
		o->snapshot_bytes = parse_size(arg);
		o->given |= GIVEN_SIZE;
		return 1;
	case OPT_TIMING:
		o->timing = arg;
		o->given |= GIVEN_TIMING;
		return 1;
	case OPT_TRIGGER:
		o->trigger = arg;
		return 1;
	case OPT_VIA:
		o->trigger_via = (enum via)one_of("--trigger-via", arg, via_names, 3);
		return 1;
	default:
		return 0;
	}
}

void rec_parse_options(struct rec_opts *o, struct target *tgt, int argc, char **argv)
{
	int c;

	while ((c = mt_getopt(argc, argv, "+i:o:p:v", longopts, USAGE)) != -1)
		if (!flag_option(o, c) && !value_option(o, tgt, c, optarg))
			usage_fail(USAGE);
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
void rec_check_options(struct rec *r, int argc, char **argv)
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
	if (o->slower_than_ns && !o->trigger)
		die(MT_EXIT_USAGE, "--slower-than needs --trigger");
	if (o->trigger_via != VIA_AUTO && !o->trigger)
		die(MT_EXIT_USAGE, "--trigger-via needs --trigger");
	/* a stop indicator's region is timed at its call (trigger_timed()) */
	if (o->slower_than_ns && o->trigger_via == VIA_BREAKPOINT && o->backend != BE_PATCH &&
	    strcmp(o->trigger, ".") && !strstr(o->trigger, "magic_trace_stop_indicator"))
		die(MT_EXIT_USAGE, "--trigger %s --slower-than: a breakpoint cannot time a call "
		    "(its return): --trigger-via uprobe", o->trigger);
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
void rec_warn_unused(const struct rec_opts *o)
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
		{ GIVEN_TEXT, "--text", 1u << BE_PATCH,
		  "it writes records, never perf's text" },
		{ GIVEN_OVERHEAD, "--max-overhead", 1u << BE_PT | 1u << BE_SAMPLE | 1u << BE_UPROBE,
		  "only the patch backend's cost grows with the calls it records" },
	};
	size_t i;

	if (o->input)
		return;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if ((o->given & rules[i].given) && (rules[i].backends & 1u << o->backend))
			warn("%s does not apply to the %s backend (%s): ignored",
			     rules[i].given == GIVEN_KERNEL && o->kernel == 2 ?
			     "--kernel-only" : rules[i].name,
			     rec_backend(o->backend)->name, rules[i].why);
}
