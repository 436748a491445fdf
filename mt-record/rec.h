/*
 * mt-record's run: what the core (mt-record.c: signals, output,
 * the snapshots' files) hands a backend (backend.h), and what the core
 * offers every backend. One struct rec is main's for the whole run.
 */
#ifndef MT_RECORD_REC_H
#define MT_RECORD_REC_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#include "functions.h"
#include "opts.h"
#include "perf.h"
#include "streamout.h"
#include "symtab.h"
#include "target.h"
#include "trigger.h"
#include "uprobe.h"

/* Why a round of recording ended. */
enum stop { STOP_EXIT, STOP_SIGNAL, STOP_TRIGGER };

/* A snapshot of the pt or sample backend: its perf.data, decoded once the
 * recording ends. */
struct perf_snap {
	char *data;            /* malloced path */
	int no;                /* the N of "# mt: snapshot N" */
	uint64_t time;         /* the hit's, or when it was taken */
	struct mark_line mk;   /* the trigger's MARK; time MT_NONE64: none */
};

/* The recording of a backend in rounds (backend.h, struct rec_rounds):
 * its engine and the trigger. */
struct round {
	struct perf_rec pr;        /* the pt and sample backends' */
	struct mt_uprobe u;        /* the uprobe backend's */
	struct stream_out so;      /* its output as a stream (r->sout) */
	struct trigger_run tg;     /* the trigger (armed) */
	struct mt_uprobe_hit hit;  /* where it fired (STOP_TRIGGER) */
	struct mark_line mk;       /* the trigger's MARK */
	int armed, mode;           /* mode: MT_UPROBE_EXEC or MT_UPROBE_PROCESS */
	uint64_t start;            /* when it started (--arm-after) */
	enum stop why;
};

/* Everything one run works with: main's, passed down. */
struct rec {
	struct rec_opts o;
	struct target tgt;     /* what is recorded */
	struct trig tr;        /* --trigger (tr.sel NULL without one) */
	struct trig *trp;      /* &tr once resolved, NULL without --trigger */
	const char *dir_out;   /* -o DIR/: one file per snapshot, or NULL */
	int out_fd;            /* where the text goes: 1, or a snapshot file */
	/* PT decoded through the dlfilter: the output is an mt stream
	 * (sout, on out_fd), its "# mt:" lines as MARKs; NULL: text */
	struct stream_out *sout;
	char *dlf;             /* then the dlfilter's path */
	int cmd_out;           /* the command's stdout (check_options): 2,
				* --command-stdout's, -o FILE's keep_stdout_for_command(),
				* or MT_SPAWN_INHERIT with -o DIR/ */
	int snap_no;           /* snapshots taken so far */
	int next_snapshot;     /* the NNN that place_snapshot() tries first */
	uint64_t written;      /* the last time the stream's snapshots hold */
	char snap_tmp[PATH_MAX]; /* -o DIR/: the snapshot being written */
	struct perf_snap *snaps; /* the pt and sample backends': to decode */
	size_t nsnaps, capsnaps;
	int fn_at_entry;       /* --functions with a command: chosen at its
				* entry point, its libraries mapped (x86-64) */
	int late_warned;       /* said that a file was mapped after that */
	sigset_t wait_mask;    /* ours, with SIGINT, SIGTERM, SIGHUP let in */
};

/* The signal that ends the recording (SIGINT, SIGTERM, SIGHUP), once one
 * came; 0 before. They are blocked but in waits on r->wait_mask. */
int rec_signal(void);

/* A mark (mtline.h's mt_mt_trigger(), ...) on the output: a MARK record
 * when the output is a stream (r->sout), else its "# mt:" line. Dies on
 * a write error. */
void rec_mark(const struct rec *r, const struct mt_mt_line *ml);
/* A hit's marks: the trigger's, and its region's when it has one. */
void rec_mark_line(const struct rec *r, const struct mark_line *mk);

/* The wallclock mark: the monotonic and the real time now. */
void rec_wallclock(const struct rec *r);

/* The event mark of each --events. */
void rec_event_lines(const struct rec *r);

/* Snapshot no, taken at time, begins: with -o DIR/ in a file of its own
 * (r->out_fd, r->sout's stream anew); with --repeat, its snapshot
 * mark. */
void rec_snapshot_begin(struct rec *r, int no, uint64_t time);

/* The snapshot's output is whole: with -o DIR/, its file takes its place
 * as DIR/snapshot-NNN.txt or .mt, and r->out_fd is 1 again. */
void rec_snapshot_end(struct rec *r);

/* Where the command's output goes (the standard error), said before it
 * runs. */
void rec_stdout_note(void);

/* The selection's files (functions.h's fn_files): the target's symbols
 * (read_symbols()) and a file's path as the target names it. */
int rec_target_symbols(void *ctx, const struct mt_symfile **f, const char *path, int must);
char *rec_target_path(void *ctx, const char *path);

/* --functions chose nothing: dies (data) saying where it looked (the
 * executable, and libs, or why no library), a held command killed first. */
_Noreturn void rec_no_function(struct rec *r, char *const *libs);

#endif
