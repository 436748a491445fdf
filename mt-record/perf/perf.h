/*
 * Driving perf for mt-record: its child processes and perf's private
 * directory, the perf record and perf script command lines, the control
 * of a running perf record, the decoding of a recording, and what this
 * machine must have for them (Intel PT, a recent perf, the kernel's
 * permission). A struct proc, struct argv and struct perf_rec are owned
 * by their caller; the work directory (and -v) is this file's own state,
 * set up through work_init(), work_set_options() and make_workdir(), and
 * read through workdir_path(). Options come in as a read-only struct
 * rec_opts (opts.h), the target as a struct target (target.h). Failures
 * die through die.h with mt-record's messages and exit codes.
 */
#ifndef MT_RECORD_PERF_H
#define MT_RECORD_PERF_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "opts.h"
#include "spawn.h"
#include "target.h"

/* A perf process started by perf_spawn(): reaped through sp
 * (mt_spawn_wait(), mt_spawn_poll()), which then holds its wait status. */
struct proc {
	struct mt_spawn sp;
	char *errfile; /* its stderr, shown when it fails; the caller frees it */
};

/* Once, at the start of main: this process is the one that removes the
 * work directory (not a child that forked from it). */
void work_init(void);

/* After the options, before anything is started: -v (perf_spawn() prints
 * what it runs) and --keep dir (the work directory, never removed), or NULL. */
void work_set_options(int verbose, const char *keep_dir);

/*
 * Makes the private directory for perf's files, removed when mt-record
 * ends, however it ends (atexit, and a watcher process for kills); with
 * --keep it is that directory, made if need be. Dies when it cannot.
 */
void make_workdir(void);

/* The work directory, absolute, or NULL before make_workdir(). */
const char *workdir_path(void);

/* Removes the work directory (not a --keep one, and only from the
 * process that called work_init()); it stays known to workdir_path(). */
void remove_workdir(void);

/* remove_workdir(), then forgets it: workdir_path() is NULL again. */
void workdir_done(void);

/* Copies p's saved stderr to ours, if it has one: 1 when it said
 * anything. */
int show_stderr(const struct proc *p);

/* Dies (system) because p, reaped, failed: its messages, then "WHAT:
 * exit status N" or "killed by signal N (NAME)", and whether perf said
 * anything ("its messages are above", or "with no message"). */
_Noreturn void proc_failed(const struct proc *p, const char *what);

/* proc_failed() for perf script on data. */
_Noreturn void script_failed(const struct proc *p, const char *data);

/* Prints argv shell-quoted, then a newline (for --dry-run and -v); for a
 * perf command (is_perf) first the environment that perf gets. */
void print_argv(FILE *f, char *const *argv, int is_perf);

/*
 * Starts the perf command argv (never through a shell; when it cannot be
 * run: "ARGV0: ERROR" on its stderr, exit 127) in its own process group,
 * so that a terminal's Ctrl+C reaches us and not it; it dies with us
 * (SIGKILL, PR_SET_PDEATHSIG). SIGINT, SIGTERM and SIGPIPE are at their
 * defaults in it, PAGER is cat, PERF_CONFIG MT_PERF_CONFIG's file (or
 * /dev/null) and HOME the work directory. keep[] (nkeep) are descriptors
 * it inherits (others are close-on-exec); stdout is out (a descriptor,
 * MT_SPAWN_NULL, or MT_SPAWN_PIPE: p->sp.from_child), stderr the file
 * errname (NULL, or when it cannot be opened: ours). -v prints it first.
 * Dies (system: "pipe", "fork") when it cannot be started.
 */
void perf_spawn(struct proc *p, char *const *argv, int out, const int *keep,
		size_t nkeep, const char *errname);

/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t now_mono(void);

/* ---- Intel PT ---- */

/* Whether this machine has Intel PT (its perf event source in sysfs). */
int have_pt(void);

/* Dies (system) saying why there is no PT, from /proc/cpuinfo: vendor,
 * flags, hypervisor; and what to use instead. */
void no_pt(void) __attribute__((noreturn));

/*
 * Checks raw --timing terms t ("cyc=1,mtc_period=0"): only the ones
 * magic-trace exposes, values checked against the PMU's caps bitmaps
 * where there is one (not with dry_run). Dies (usage) on a bad one.
 */
void check_raw_terms(const char *t, int dry_run);

/* ---- perf command lines ---- */

/* A NULL-terminated argument vector of malloced strings; { 0 } is empty
 * (v NULL until the first argv_add()). */
struct argv {
	char **v;
	size_t n, cap;
};

/* Appends the printf-formatted argument; dies when out of memory. */
void argv_add(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frees a's strings and vector; a is empty again. */
void argv_free(struct argv *a);

/*
 * Appends perf record's command line for the pt and sample backends of o
 * (o->backend BE_PT or BE_SAMPLE) on tgt's processes (tgt->pids, else
 * tgt->pid; "PID" when neither is known yet); with_trigger: a snapshot
 * is taken on demand rather than at exit. ctl/ack: perf's ends of the
 * control descriptors, or -1 for --dry-run. With PT, --timing's terms may
 * warn that this CPU has no cycle-accurate timing, and --snapshot-size
 * that it was rounded up.
 */
void record_argv(struct argv *a, const struct rec_opts *o, const struct target *tgt,
		 int ctl, int ack, int with_trigger);

/* How a recording is decoded: bits of script_argv()'s and perf_decode()'s how. */
enum { DECODE_PT = 1,         /* Intel PT: branches; else samples */
       DECODE_STITCH_LBR = 2  /* --call-graph lbr: perf script --stitch-lbr */
};

/* Appends perf script's command line (perf: the program) on the
 * recording data: the field set mt-script-parse reads, for PT or for
 * samples (how: DECODE_* bits). */
void script_argv(struct argv *a, const char *perf, const char *data, int how);

/* The DECODE_* bits for what o records. */
int decode_how(const struct rec_opts *o);

/* Whether the perf.data at path holds AUX area tracing (PT); dies when
 * it cannot be read (system) or is no perf.data (data). */
int is_auxtrace(const char *path);

/* ---- a running perf record ---- */

struct perf_rec {
	struct proc proc;
	int ctl, ack;              /* our ends of perf's control descriptors */
	const struct target *tgt;  /* whose command perf_failed() kills */
};

/*
 * Starts perf record (record_argv()) with its events disabled, its
 * stderr into the work directory, then enables them: when this returns
 * it records. Dies through perf_failed() when perf does not ack.
 */
void perf_start(struct perf_rec *r, const struct rec_opts *o, const struct target *tgt,
		int with_trigger);

/* Sends the control command cmd_text ("snapshot\n") and waits for perf's
 * ack (8 s at most): 0, or -1 when perf is gone or did not ack (the
 * caller reports it, as a rule through perf_failed()). -v prints it. */
int perf_ctl(struct perf_rec *r, const char *cmd_text);

/*
 * --repeat (perf record --switch-output=signal): asks perf for a snapshot
 * (SIGUSR2: the samples' ring, and with PT the AUX area, written out) and
 * waits (8 s at most) for the file perf then closes, which becomes to:
 * 0, or -1 when perf is gone or wrote nothing in time (the target ended:
 * the rest is perf_last_output()'s). -v says it.
 */
int perf_switch(struct perf_rec *r, const char *to);

/* After perf_stop(): perf's last file (the last --switch-output one, or
 * perf.data) becomes to: 0, or -1 when there is none. */
int perf_last_output(const char *to);

/* Kills perf record and the command we ran, shows perf's messages and
 * dies (system): "perf record failed DOING". */
void perf_failed(struct perf_rec *r, const char *doing) __attribute__((noreturn));

/* Stops perf record (stop, then SIGTERM, then SIGKILL) and reaps it; dies
 * (system) with its messages when it failed. */
void perf_stop(struct perf_rec *r);

/* ---- decoding ---- */

/*
 * Runs perf script (script_argv()) on data and copies its text to out_fd,
 * mk (or NULL) put in time order; shows progress on a terminal. after (or
 * NULL): the events of time *after or earlier are left out (a timed line
 * and the untimed lines after it, as a sample's call chain), and *after
 * becomes the last time written, so that snapshots decoded one after the
 * other into one stream repeat nothing. seen (or NULL): how many
 * call-chain frames were written, and how many of them perf could place
 * in no file ("[unknown] ([unknown])"). Dies (system) with perf's
 * messages when perf script fails.
 */
struct mark_line;
struct decode_seen {
	uint64_t frames, unknown;
};
void perf_decode(const char *perf, const char *data, int how, const struct mark_line *mk,
		 int out_fd, uint64_t *after, struct decode_seen *seen);

/* ---- what perf needs here ---- */

/* Runs `perf version`: 1 with *major, *minor set, 0 when its output
 * (in buf, len bytes) gives no version, -1 when perf does not run. */
int perf_version(const char *perf, int *major, int *minor, char *buf, size_t len);

/* Dies (system) unless perf (the program) runs and is 5.11 or later;
 * warns when its version cannot be read. */
void check_perf(const char *perf);

/* With kernel (1: --kernel, 2: --kernel-only): dies (system) unless perf
 * may record the kernel; warns when its symbols will not resolve. */
void check_kernel(int kernel);

#endif
