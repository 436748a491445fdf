/*
 * mt-record: capture what a program does and write it as an mt stream or
 * perf script text: with Intel PT through perf (a snapshot of the last
 * moments), by sampling with perf, with uprobes on chosen functions, or
 * by patching the function entries of the program (exact calls, any
 * x86-64 CPU); or decode an existing perf.data. See docs/mt-record.1.
 *
 * This file is the core: the choice of backend, the run and what it
 * offers every backend (the output, the snapshots' files, signals), main.
 * The files of mt-record/, the core's first:
 *   mt-record.c    the core (this file)
 *   rec.h          the run (struct rec) and what the core offers a backend
 *   backend.h      a backend: struct rec_backend, and struct rec_rounds
 *                  for those that record in rounds
 *   options.c      the command line parsed and checked (options.h; the
 *                  options themselves, opts.h)
 *   rounds.c       the recording in rounds (pt, sample, uprobe): started
 *                  once, a snapshot at each trigger hit (--repeat), until
 *                  the last hit, an exit or a signal
 *   streamout.c    the mt stream written (streamout.h)
 *   target.c       the process recorded: -p PIDs or the command (target.h)
 *   target-open.c  its files, opened as it sees them, with its rights
 *   trigger.c      --trigger resolved and armed (trigger.h): hardware
 *                  breakpoints where they fire, else a uprobe
 *   hwbp.c         the hardware execute breakpoints (hwbp.h)
 *   functions.c    the --functions selection (uprobe and patch backends)
 *   libpath.c      mt's own libraries found beside this program
 * The backends, each a folder with its record.c (its struct rec_backend):
 *   perf/          pt and sample: perf.c drives perf; dlfilter-run.c
 *                  decodes PT through mt-dlfilter.so (plugins/perf-dlfilter/)
 *   uprobe/        the uprobe engine (uprobe.h; uprobe*.c), which the
 *                  trigger and the --functions selection use too;
 *                  sinks.c its events as the stream's records or text
 *   patch/         patch-rec.c the memory shared with the runtime,
 *                  patch-table.c and patch-rings.c what is read back of it,
 *                  inject.c the process held with ptrace, patch-load.c and
 *                  boot.S the runtime loaded into a running process; the
 *                  runtime itself is plugins/patch-runtime/
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "buf.h"
#include "cmdline.h"
#include "die.h"
#include "dlfilter-run.h"
#include "err.h"
#include "libpath.h"
#include "options.h"
#include "output.h"
#include "perf.h"
#include "rec.h"
#include "stream.h"
#include "streamout.h"
#include "target.h"
#include "trigger.h"
#include "uprobe.h"
#include "xalloc.h"
#include "banned.h"

/* By enum backend (BE_AUTO is chosen before any is used). */
static const struct rec_backend *const backends[] = {
	[BE_PT] = &rec_backend_pt,
	[BE_UPROBE] = &rec_backend_uprobe,
	[BE_SAMPLE] = &rec_backend_sample,
	[BE_PATCH] = &rec_backend_patch,
};

const struct rec_backend *rec_backend(enum backend b)
{
	return backends[b];
}

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

void rec_mark(const struct rec *r, const struct mt_mt_line *ml)
{
	if (r->sout)
		stream_out_mark(r->sout, ml);
	else
		mark_text_write(r->out_fd, ml);
}

void rec_mark_line(const struct rec *r, const struct mark_line *mk)
{
	if (r->sout)
		stream_out_mark_line(r->sout, mk);
	else
		mark_line_text_write(r->out_fd, mk);
}

/* ---- the backend, its checks and its dry run ---- */

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
int rec_target_symbols(void *ctx, const struct mt_symfile **f, const char *path, int must)
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
	struct mt_mt_line ml = mt_mt_wallclock(
		(uint64_t)m.tv_sec * 1000000000u + (uint64_t)m.tv_nsec,
		(uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec);

	rec_mark(r, &ml);
}

/* "# mt: event NAME" for each --events: their samples are instants, not
 * stacks (mt-stacks(1)). */
void rec_event_lines(const struct rec *r)
{
	size_t i;

	for (i = 0; i < r->o.nevents; i++) {
		struct mt_mt_line ml = mt_mt_event(r->o.events[i].name,
						   (size_t)r->o.events[i].name_len);

		rec_mark(r, &ml);
	}
}

/* Where the command's output goes, said before it runs. */
void rec_stdout_note(void)
{
	fprintf(stderr, "%s: the command's standard output goes to the "
		"standard error (the trace text is on the standard output; "
		"use -o FILE)\n", mt_progname());
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
	if (r->o.repeat != 1) {
		struct mt_mt_line ml = mt_mt_snapshot((uint64_t)no, time);

		rec_mark(r, &ml);
	}
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

/* ---- main ---- */

/* Frees what r holds; the work directory goes with it. */
static void rec_release(struct rec *r)
{
	trigger_resolved_release(&r->tr, &r->tgt);
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
	r->o.max_overhead = MT_OVERHEAD_DEFAULT;
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
	rec_parse_options(&r->o, &r->tgt, argc, argv);
	r->tr.sel = r->o.trigger;
	work_set_options(r->o.verbose, r->o.keep_dir);
	rec_check_options(r, argc, argv);
	choose_backend(r);
	check_backend_options(r);
	rec_warn_unused(&r->o);
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
			perf_decode(r->o.perf, r->o.input, how, NULL, r->out_fd, NULL, NULL);
		free(r->dlf);
		close_stdout_or_die();
		rec_release(r);
		return 0;
	}
	check_machine(r);
	backends[r->o.backend]->record(r);
	end_target(r);
	close_stdout_or_die();
	if (backends[r->o.backend]->after)
		backends[r->o.backend]->after(r);
	rec_release(r);
	return 0;
}
