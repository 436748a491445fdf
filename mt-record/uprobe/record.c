/*
 * The uprobe backend (mt-record(1), Backends): the uprobe engine
 * (uprobe.h) probes the functions --functions chooses, or the program's
 * own, and keeps their calls and returns in rings; each snapshot is their
 * events up to the trigger's hit, as records of mt-record's stream, or
 * with --text in perf script's form, for mt-script-parse (sinks.h). It
 * records in rounds (backend.h, struct rec_rounds).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "die.h"
#include "functions.h"
#include "libpath.h"
#include "rec.h"
#include "sinks.h"
#include "stream.h"
#include "target.h"
#include "target-open.h"
#include "trigger.h"
#include "uprobe.h"
#include "banned.h"

/*
 * The uprobe backend's functions (functions.h): --functions REGEX over
 * the functions of the executable and, once its libraries are mapped
 * (mode MT_UPROBE_PROCESS: a running process, or the command held at its
 * entry point), of the shared libraries it maps; without a regex, the
 * executable's own functions up to a cap. The trigger's function among
 * them too: its own engine (trigger.h) probes it apart.
 */
static int add_functions(struct rec *r, struct mt_uprobe *u, int mode)
{
	struct fn_files files = { rec_target_symbols, rec_target_path, &r->tgt };
	struct fn_query q = { r->o.functions, r->tgt.exe, NULL, NULL, 0, &files, NULL, 0, 0 };
	char **libs = NULL;
	size_t n;

	if (r->o.functions && mode == MT_UPROBE_PROCESS)
		q.libs = libs = mapped_libraries(&r->tgt);
	n = fn_add_functions(u, &q);
	if (!n)
		rec_no_function(r, libs);
	if (libs)
		free_paths(libs);
	if (mt_uprobe_warnings(u) & MT_UPROBE_W_GO)
		warn("%s: %s", r->tgt.exe, mt_uprobe_warning_text(MT_UPROBE_W_GO));
	if (mt_uprobe_warnings(u) & MT_UPROBE_W_UNHOOKABLE)
		warn("%s", mt_uprobe_warning_text(MT_UPROBE_W_UNHOOKABLE));
	return (int)n;
}

/* The engine made, the functions chosen and probed in r->tgt. */
static void uprobe_start(struct rec *r, struct round *rd)
{
	struct mt_uprobe_opts uo = { 0 };
	int err;

	uo.background_close = 1;
	uo.symbols = target_symbols_via; /* the target's files as it sees them */
	uo.symbols_arg = &r->tgt;
	if (r->o.snapshot_bytes)
		uo.ring_bytes = r->o.snapshot_bytes;
	err = mt_uprobe_init(&rd->u, &uo);
	if (err)
		die_up(&rd->u, err);
	add_functions(r, &rd->u, rd->mode);
	err = mt_uprobe_attach(&rd->u, r->tgt.pid, rd->mode);
	if (err)
		die_up(&rd->u, err);
	if (!r->o.text) { /* one stream, or one a snapshot (-o DIR/) */
		r->sout = &rd->so;
		if (!r->dir_out)
			stream_out_init(&rd->so, r->out_fd);
		rd->so.source = "mt-record uprobe";
	}
}

/* The events after after up to until on the output. */
static int uprobe_events(struct rec *r, struct round *rd, uint64_t after, uint64_t until)
{
	struct uprobe_lines l;
	int err;

	if (r->sout)
		return mt_uprobe_snapshot(&rd->u, after, until, uprobe_sink_records, r->sout);
	uprobe_lines_init(&l, &rd->u, r->out_fd);
	err = mt_uprobe_snapshot(&rd->u, after, until, uprobe_sink_lines, &l);
	uprobe_lines_finish(&l);
	return err;
}

/* The stream's end, when there is one for the whole recording. */
static void uprobe_stream_end(struct rec *r)
{
	if (r->sout && !r->dir_out) {
		stream_out_finish(r->sout);
		stream_out_release(r->sout);
	}
	r->sout = NULL;
}

static void entry_only_mark(void *arg, const char *name)
{
	struct mt_mt_line ml = mt_mt_entry_only(name, strlen(name));

	rec_mark(arg, &ml);
}

/* The uprobe backend's snapshot up to until on the output: at a hit while
 * it records on (middle), or at its end. */
static void uprobe_snapshot(struct rec *r, struct round *rd, uint64_t until, int middle)
{
	unsigned w;
	int err;

	if (!middle && (err = mt_uprobe_finish(&rd->u)))
		die_up(&rd->u, err);
	rec_wallclock(r);
	/* no return probes (Go, unhookable.h): mt-stacks makes each call
	 * an instant rather than a frame that never ends */
	mt_uprobe_each_entry_only(&rd->u, entry_only_mark, r);
	/* one stream: a snapshot goes on from where the last one ended,
	 * so that its times only go forward (mt-stacks) */
	err = uprobe_events(r, rd, r->dir_out ? 0 : r->written, until);
	if (err < 0)
		die_up(&rd->u, err);
	if (until > r->written)
		r->written = until;
	if (rd->mk.time != MT_NONE64)
		rec_mark_line(r, &rd->mk);
	if (middle)
		return;
	for (w = 1; w; w <<= 1)
		if ((mt_uprobe_warnings(&rd->u) & w) &&
		    !(w & (MT_UPROBE_W_GO | MT_UPROBE_W_UNHOOKABLE))) /* said */
			warn("%s", mt_uprobe_warning_text(w));
	if (r->o.functions && !r->late_warned && mt_uprobe_late_file(&rd->u)) {
		r->late_warned = 1;
		warn("%s was mapped after --functions chose the functions (dlopen, "
		     "or a program the target ran): none of its functions was probed",
		     mt_uprobe_late_file(&rd->u));
	}
	mt_uprobe_release(&rd->u);
}

static void uprobe_check_machine(const struct rec *r)
{
	if (!mt_uprobe_supported())
		die(MT_EXIT_SYSTEM, "this kernel has no uprobe PMU "
		    "(/sys/bus/event_source/devices/uprobe)");
}

/* The uprobe backend's dry run: what it would probe. */
static void uprobe_dry_run(struct rec *r)
{
	const struct rec_opts *o = &r->o;

	printf("# uprobe backend: perf_event_open(uprobe PMU) on the "
	       "functions of %s%s matching %s; no perf command\n",
	       r->tgt.exe ? r->tgt.exe : "the program",
	       o->functions ? " and of the shared libraries it maps" : "",
	       o->functions ? o->functions : "(default)");
}

/* 50 ms for the engine: 1 when it saw the target end. */
static int uprobe_wait(struct rec *r, struct round *rd)
{
	int err = mt_uprobe_wait(&rd->u, 50, &r->wait_mask);

	if (err < 0)
		die_up(&rd->u, err);
	return err == MT_UPROBE_EXITED;
}

/* A hit's snapshot while it records on. */
static int uprobe_middle(struct rec *r, struct round *rd)
{
	rec_snapshot_begin(r, r->snap_no, rd->hit.time);
	uprobe_snapshot(r, rd, rd->hit.time, 1);
	rec_snapshot_end(r);
	return 0;
}

/* The last snapshot: up to the hit, or all the rings hold. */
static void uprobe_last(struct rec *r, struct round *rd)
{
	rec_snapshot_begin(r, r->snap_no, rd->why == STOP_TRIGGER ? rd->hit.time : now_mono());
	uprobe_snapshot(r, rd, rd->why == STOP_TRIGGER ? rd->hit.time : MT_UPROBE_ALL, 0);
	rec_snapshot_end(r);
	uprobe_stream_end(r);
}

/* Closed in the background (opts.background_close): closing a probe the
 * program hits all the time can take the kernel minutes, until the
 * core's end of the target. */
static void uprobe_abandon(struct rec *r, struct round *rd)
{
	mt_uprobe_finish(&rd->u);
	mt_uprobe_release(&rd->u);
	uprobe_stream_end(r);
}

static const struct rec_rounds uprobe_rounds = {
	.functions_at_entry = 1,
	.first_process_only = 1,
	.wait_blocks = 1,
	.start = uprobe_start,
	.wait = uprobe_wait,
	.middle = uprobe_middle,
	.last = uprobe_last,
	.abandon = uprobe_abandon,
};

const struct rec_backend rec_backend_uprobe = {
	.name = "uprobe",
	.check_machine = uprobe_check_machine,
	.dry_run = uprobe_dry_run,
	.record = rec_record_rounds,
	.rounds = &uprobe_rounds,
};
