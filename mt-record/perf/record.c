/*
 * The pt and sample backends (mt-record(1), Backends): perf record, of
 * Intel PT's branches (a snapshot of the AUX area at the trigger) or of
 * sampled stacks, driven by perf.c; each snapshot a perf.data kept in the
 * work directory and decoded with perf script once the recording ends
 * (PT through mt-dlfilter.so into an mt stream, dlfilter-run.h; else
 * perf's text). They record in rounds (backend.h, struct rec_rounds).
 */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "die.h"
#include "dlfilter-run.h"
#include "perf.h"
#include "rec.h"
#include "streamout.h"
#include "target.h"
#include "xalloc.h"
#include "banned.h"

static void pt_check_machine(const struct rec *r)
{
	if (!have_pt())
		no_pt();
	check_perf(r->o.perf);
}

static void sample_check_machine(const struct rec *r)
{
	check_perf(r->o.perf);
}

static void pt_check_options(const struct rec *r)
{
	/* mt-stacks follows a thread through its user code; a trace of the
	 * kernel alone needs its own rules (a stack begun anew at each
	 * entry, as magic-trace's trace_kernel_only), not written yet */
	if (r->o.kernel == 2)
		die(MT_EXIT_USAGE, "--kernel-only: the pt backend does not decode "
		    "kernel-only traces yet; use --kernel (user and kernel code), "
		    "or --backend sample --kernel-only");
}

static void sample_check_options(const struct rec *r)
{
	const struct rec_opts *o = &r->o;

	if (!o->input && !o->full && !o->snapshot_bytes && !strcmp(o->callgraph, "dwarf"))
		warn("--call-graph dwarf copies 8 KiB of stack a sample: perf's "
		     "default ring keeps some 60 of them; --snapshot-size 64M keeps "
		     "some 8000");
}

/* The pt and sample backends' dry run: perf record's command line, what a
 * trigger hit does, perf script's. */
static void perf_dry_run(struct rec *r)
{
	const struct rec_opts *o = &r->o;
	struct argv a = { 0 };
	char *so = o->text || o->backend != BE_PT ? NULL : dlfilter_path();

	record_argv(&a, o, &r->tgt, -1, -1, o->trigger != NULL);
	print_argv(stdout, a.v, 1);
	argv_free(&a);
	if (o->trigger && o->repeat != 1)
		printf("# each trigger hit%s: kill -USR2 PERF, then ping on CTL (perf writes its ring%s "
		       "to DIR/perf.data.TIMESTAMP, moved to DIR/snapshot-NNN.data)%s; "
		       "the end of the program or Ctrl+C: stop on CTL\n",
		       o->repeat ? " but the last" : "",
		       o->backend == BE_PT ? " and the AUX area" : "",
		       !o->repeat ? "" : o->backend == BE_PT && !o->full ?
		       "; the last: snapshot and stop on CTL" : "; the last: stop on CTL");
	script_argv(&a, o->perf, o->trigger && o->repeat != 1 ? "DIR/snapshot-NNN.data" :
		    "DIR/perf.data", decode_how(o));
	if (so)
		dlfilter_args(&a, so); /* read back through a pipe */
	free(so);
	print_argv(stdout, a.v, 1);
	argv_free(&a);
}

/* A perf snapshot's file (data, now r's), decoded when the recording
 * ends, so that perf script does not hold the next hit up. */
static void keep_perf_snapshot(struct rec *r, const struct round *rd, char *data)
{
	struct perf_snap *p;

	grow_or_die(&r->snaps, &r->capsnaps, r->nsnaps + 1, sizeof(*r->snaps));
	p = &r->snaps[r->nsnaps++];
	p->data = data;
	p->no = r->snap_no;
	p->time = rd->why == STOP_TRIGGER ? rd->hit.time : now_mono();
	p->mk = rd->mk;
	/* PT times are perf's clock, not CLOCK_MONOTONIC: the trigger
	 * line goes at the end there */
	if (r->o.backend == BE_PT && p->mk.time != MT_NONE64)
		p->mk.time = UINT64_MAX - 1;
}

/* Where snapshot r->snap_no's perf.data goes (malloced). */
static char *snapshot_data_path(const struct rec *r)
{
	if (r->o.repeat == 1)
		return xasprintf("%s/perf.data", workdir_path());
	return xasprintf("%s/snapshot-%03d.data", workdir_path(), r->snap_no);
}

/*
 * A perf snapshot decoded through perf's text. With --repeat, each file
 * decodes with the memory maps perf read from /proc as it opened it
 * (docs/perf.md 1.6): one opened as the program was exiting has none,
 * and its samples no symbol: said, not silently [unknown].
 */
static void decode_snapshot(struct rec *r, const struct perf_snap *p)
{
	struct decode_seen seen = { 0, 0 };

	perf_decode(r->o.perf, p->data, decode_how(&r->o), &p->mk, r->out_fd,
		    r->dir_out ? NULL : &r->written, &seen);
	if (r->o.repeat != 1 && seen.frames && seen.unknown == seen.frames)
		warn("snapshot %d: perf found none of the program's memory maps "
		     "for it (it was exiting as perf opened the snapshot's file): "
		     "its %" PRIu64 " stack frames have no symbol", p->no, seen.frames);
}

/* The perf snapshots kept, decoded in order. */
static void decode_snapshots(struct rec *r)
{
	struct stream_out so;
	size_t i;

	/* Intel PT: through the dlfilter, one mt stream on stdout or -o
	 * FILE (with -o DIR/, one a file: snapshot_begin) */
	if (r->nsnaps && r->o.backend == BE_PT && !r->o.text &&
	    (r->dlf = dlfilter_choose(r->o.perf))) {
		r->sout = &so;
		if (!r->dir_out)
			stream_out_init(&so, r->out_fd);
	}
	for (i = 0; i < r->nsnaps; i++) {
		struct perf_snap *p = &r->snaps[i];

		rec_snapshot_begin(r, p->no, p->time);
		if (r->o.backend == BE_SAMPLE)
			rec_wallclock(r);
		rec_event_lines(r);
		if (r->sout)
			decode_dlfilter_into(r->o.perf, p->data, decode_how(&r->o), r->dlf,
					     r->sout, &p->mk, r->dir_out ? NULL : &r->written);
		else
			decode_snapshot(r, p);
		rec_snapshot_end(r);
		free(p->data);
	}
	if (r->sout && !r->dir_out) {
		stream_out_finish(&so);
		stream_out_release(&so);
	}
	r->sout = NULL;
	free(r->dlf);
	r->dlf = NULL;
	free(r->snaps);
	r->snaps = NULL;
	r->nsnaps = 0;
}

static void perf_round_start(struct rec *r, struct round *rd)
{
	perf_start(&rd->pr, &r->o, &r->tgt, r->trp != NULL);
}

/* 50 ms, unless the trigger waited them. */
static int perf_wait(struct rec *r, struct round *rd)
{
	if (!rd->armed) {
		struct timespec ts = { 0, 50000000 };

		ppoll(NULL, 0, &ts, &r->wait_mask);
	}
	return 0;
}

static void perf_check(struct rec *r, struct round *rd)
{
	(void)r;
	if (mt_spawn_poll(&rd->pr.proc.sp))
		perf_failed(&rd->pr, "while recording");
}

/* A hit's snapshot while the recording goes on: 0, or -1 when perf has
 * ended with the target (the hit's is then the last snapshot). */
static int perf_middle(struct rec *r, struct round *rd)
{
	char *data = snapshot_data_path(r);

	if (perf_switch(&rd->pr, data)) {
		free(data);
		if (target_alive(&r->tgt) && !mt_spawn_poll(&rd->pr.proc.sp))
			perf_failed(&rd->pr, "to write a snapshot (SIGUSR2)");
		return -1;
	}
	keep_perf_snapshot(r, rd, data);
	return 0;
}

/* The last snapshot, as the recording ends (rd->why: a hit, the end of
 * the target, or Ctrl+C without a trigger). */
static void perf_last(struct rec *r, struct round *rd)
{
	char *data;

	/* a trigger: the snapshot of what led to it; otherwise the
	 * at-exit snapshot that stop takes (--snapshot=e) */
	if (rd->why == STOP_TRIGGER && r->o.backend == BE_PT && !r->o.full &&
	    !mt_spawn_poll(&rd->pr.proc.sp) && perf_ctl(&rd->pr, "snapshot\n"))
		perf_failed(&rd->pr, "to take the snapshot");
	perf_stop(&rd->pr);
	data = snapshot_data_path(r);
	if (r->o.repeat != 1 && perf_last_output(data))
		die(MT_EXIT_SYSTEM, "perf record wrote no last snapshot in %s",
		    workdir_path());
	keep_perf_snapshot(r, rd, data);
}

static void perf_abandon(struct rec *r, struct round *rd)
{
	(void)r;
	perf_stop(&rd->pr);
}

static const struct rec_rounds perf_rounds = {
	.hits_after_end = 1,
	.start = perf_round_start,
	.wait = perf_wait,
	.check = perf_check,
	.middle = perf_middle,
	.last = perf_last,
	.abandon = perf_abandon,
	.output = decode_snapshots,
};

const struct rec_backend rec_backend_pt = {
	.name = "pt",
	.check_options = pt_check_options,
	.check_machine = pt_check_machine,
	.dry_run = perf_dry_run,
	.record = rec_record_rounds,
	.rounds = &perf_rounds,
};

const struct rec_backend rec_backend_sample = {
	.name = "sample",
	.check_options = sample_check_options,
	.check_machine = sample_check_machine,
	.dry_run = perf_dry_run,
	.record = rec_record_rounds,
	.rounds = &perf_rounds,
};
