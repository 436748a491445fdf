/*
 * A backend of mt-record: one way of recording a program (pt, sample,
 * uprobe, patch: mt-record(1), Backends). The core (mt-record.c,
 * options.c, rounds.c) parses and checks the options, chooses the backend
 * (--backend, or auto: the first of pt, patch, sample whose cannot() says
 * nothing) and hands it the run through record(); it never asks which
 * backend it has.
 *
 * A new backend is a folder under mt-record/ (perf/, uprobe/, patch/)
 * with one struct rec_backend, named in the core's table of backends
 * (mt-record.c) and in opts.h's enum backend.
 */
#ifndef MT_RECORD_BACKEND_H
#define MT_RECORD_BACKEND_H

#include <stddef.h>

#include "opts.h"

struct rec;
struct round;

/*
 * A backend that records in rounds (pt and sample: perf's; uprobe: the
 * uprobe engine's), its record() rec_record_rounds(): the core starts
 * the target, arms the trigger, waits, and at each trigger hit
 * (--repeat) asks it for a snapshot; at the end, for the last one. Its
 * engine's state is in struct round (rec.h).
 */
struct rec_rounds {
	/* --functions with a command: chosen once the command is held at
	 * its entry point (its libraries mapped); start() is called then */
	int functions_at_entry;
	/* its probes, as the trigger's, go on the first of -p's processes
	 * only (said in the "recording" line) */
	int first_process_only;
	/* wait() itself waits (50 ms): the trigger is polled, not waited for */
	int wait_blocks;
	/* the engine ends with the target and its last data holds the
	 * trigger hits seen after that (they are no snapshot of their own) */
	int hits_after_end;
	/* The engine started on r->tgt in rd->mode (MT_UPROBE_EXEC: a
	 * command held before its execve; MT_UPROBE_PROCESS). */
	void (*start)(struct rec *r, struct round *rd);
	/* A while (50 ms; or none when the trigger waited, rd->armed without
	 * wait_blocks): 1 when the engine saw the target end. */
	int (*wait)(struct rec *r, struct round *rd);
	/* After each wait, the target alive: dies saying so when the engine
	 * failed. NULL: nothing to check. */
	void (*check)(struct rec *r, struct round *rd);
	/* A hit's snapshot (rd->hit, rd->mk) while the recording goes on: 0,
	 * or -1 when the engine has ended with the target (the hit's is the
	 * last snapshot then). */
	int (*middle)(struct rec *r, struct round *rd);
	/* The last snapshot (rd->why: a hit, the target's end, Ctrl+C
	 * without a trigger); the engine stopped. */
	void (*last)(struct rec *r, struct round *rd);
	/* The engine stopped without a snapshot (Ctrl+C before a hit, or
	 * after the snapshots --repeat took). */
	void (*abandon)(struct rec *r, struct round *rd);
	/* The snapshots kept, written out once the recording ended; NULL:
	 * each was written as it was taken. */
	void (*output)(struct rec *r);
};

struct rec_backend {
	const char *name; /* --backend's word for it */
	/*
	 * Why it cannot record what r names (r->tgt: the one process of
	 * -p, or the command), into why (len bytes): 1; 0 when it can. For
	 * --backend auto; NULL: it can whenever the machine can.
	 */
	int (*cannot)(const struct rec *r, char *why, size_t len);
	/* The options as it takes them, once it is chosen: dies (usage) on
	 * what it cannot do, warns of what it does poorly. NULL: none. (The
	 * options it ignores are the core's table, warn_unused().) */
	void (*check_options)(const struct rec *r);
	/* What this machine must have for it (a PMU, perf, an instruction
	 * set): dies (system) naming what it lacks. */
	void (*check_machine)(const struct rec *r);
	/* --dry-run: what it would run, on stdout, after the trigger's line
	 * (the core's); it records nothing. */
	void (*dry_run)(struct rec *r);
	/*
	 * The whole recording: the target started (a command) or looked at
	 * (-p), recorded until the trigger, its end or a signal, the
	 * snapshot or the stream written to r->out_fd (r->dir_out: one file
	 * a snapshot). Dies (die(), the exit codes of mt-record(1)) on what
	 * it cannot do; the core ends the target and the output after it.
	 */
	void (*record)(struct rec *r);
	/* Once the output is closed (the trace is its reader's), what is
	 * kept for the next run (the patch backend's cache). NULL: none. */
	void (*after)(struct rec *r);
	/* A backend in rounds: record is rec_record_rounds; else NULL. */
	const struct rec_rounds *rounds;
};

/* The backend of enum backend b (opts.h; not BE_AUTO). */
const struct rec_backend *rec_backend(enum backend b);

/* The recording in rounds of r's backend (its rounds): rounds.c. */
void rec_record_rounds(struct rec *r);

extern const struct rec_backend rec_backend_pt, rec_backend_sample;
extern const struct rec_backend rec_backend_uprobe;
extern const struct rec_backend rec_backend_patch;

#endif
