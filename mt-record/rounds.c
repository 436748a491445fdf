/*
 * The recording in rounds of the pt, sample and uprobe backends
 * (backend.h, struct rec_rounds): the target started (held) or looked
 * at, the backend's engine started, the trigger armed (unless
 * --arm-after), the command let go; a snapshot at each trigger hit, the
 * trigger armed still (--repeat), until the last hit, the target's end
 * or a signal; the last snapshot, what the backend keeps written out.
 */
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "die.h"
#include "output.h"
#include "perf.h"
#include "rec.h"
#include "stream.h"
#include "target.h"
#include "trigger.h"
#include "uprobe.h"
#include "banned.h"

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
		trigger_timed(&r->tr, r->o.trigger_via, r->o.slower_than_ns);
		r->trp = &r->tr;
		r->tgt.trace_start = r->tgt.child && (r->tr.use_bp || r->tr.in_lib);
	}
#if defined(__x86_64__)
	/* --functions reaches the command's libraries once they are mapped:
	 * it is held at its entry point to choose them (target_run_to_entry) */
	r->fn_at_entry = r->tgt.child && rec_backend(r->o.backend)->rounds->functions_at_entry &&
			 r->o.functions;
	r->tgt.trace_start |= r->fn_at_entry;
#endif
}

static void arm(struct rec *r, struct round *rd, int mode)
{
	arm_trigger(&rd->tg, r->trp, &r->tgt, mode, r->o.repeat != 1, r->o.slower_than_ns);
	rd->armed = 1;
}

/* The backend recording, the trigger armed (unless --arm-after), the
 * command let go. */
static void round_start(struct rec *r, struct round *rd)
{
	const struct rec_rounds *ops = rec_backend(r->o.backend)->rounds;
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
	fprintf(stderr, " with %s%s%s; Ctrl+C %s\n", rec_backend(r->o.backend)->name,
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
	const struct rec_rounds *ops = rec_backend(r->o.backend)->rounds;
	struct mt_uprobe_hit late;

	rd->why = STOP_EXIT;
	for (;;) {
		if (rec_signal()) {
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
		if (rec_signal()) /* now, or during the wait that saw the exit */
			rd->why = STOP_SIGNAL;
	}
	/* the trigger may have fired just before the exit was seen */
	if (rd->armed && rd->why == STOP_EXIT &&
	    trigger_finish(&rd->tg, &r->wait_mask, &late)) {
		rd->hit = late;
		rd->why = STOP_TRIGGER;
	}
}

/* The trigger's hit, said on stderr and as the snapshot's mark. */
static void trigger_mark(const struct rec *r, struct round *rd)
{
	const struct trig *tr = r->trp;
	const struct mt_uprobe_hit *hit = &rd->hit;

	trigger_say_hit(tr, hit->pid, hit->tid, hit->time, r->o.slower_than_ns, hit->dur);
	rd->mk.time = hit->time;
	rd->mk.ml = mt_mt_trigger(hit->time, hit->pid, hit->tid, tr->addr, tr->name);
	rd->mk.ml.mark.value = hit->dur; /* --slower-than: the call's length */
	rd->mk.has_region = 0;
	trigger_hit_region(tr, &rd->tg, hit, &rd->mk);
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
	const struct rec_rounds *ops = rec_backend(r->o.backend)->rounds;
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
		trigger_run_release(&rd.tg);
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
