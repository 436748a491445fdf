/*
 * The process mt-record records: the -p PIDs, or the command after --,
 * which it forks held on a pipe (the gate) until target_release_child();
 * and the files it maps (target-open.h: as it sees them, with its
 * rights), with their symbols. struct target is owned by its caller (one
 * per mt-record run); the functions here read and write only its fields
 * (and its view's, target-open.c). Every failure dies through die.h with
 * mt-record's messages and exit codes.
 */
#ifndef MT_RECORD_TARGET_H
#define MT_RECORD_TARGET_H

#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "procsyms.h"
#include "target-open.h" /* the files the target maps */

struct target_view;

struct target {
	pid_t *pids;        /* -p, in the order given, no duplicates */
	size_t npids, pids_cap;
	char **cmd;         /* the command after --, or NULL */
	pid_t pid;          /* the traced process (pids[0] or child) */
	pid_t child;        /* our child, if we ran it; 0 once it ended */
	char *exe;          /* the target's executable, absolute */
	int gate_w;         /* write end of the child's gate, -1 when none */
	int child_stopped;  /* at its execve, traced: target_resume_child() */
	int trace_start;    /* target_release_child() holds the command again */
	/* what mt-record was started with, for the command: its signal mask
	 * and the signals it ignored among those mt-record then handles
	 * (SIGINT, SIGTERM, SIGHUP, SIGPIPE) */
	sigset_t start_mask, start_ignored;
	int gate_r;         /* the child's end of its gate, in the child */
	char **env;         /* NAME=VALUE strings added to the command's
			     * environment (NULL-terminated), or NULL */
	int status;         /* the child's wait status, once target_alive()
			     * reaped it (status_known) */
	int status_known;
	struct target_view *view; /* how its files are opened (target-open.c) */
	int end_fd;         /* target_end_fd()'s, -1 until it is opened */
};

/* No pids, no command, no child, no gate; notes the signal state the
 * command is to start with: call it before mt-record changes its own. */
void target_init(struct target *t);

/* Adds the PIDs of -p arg ("12" or "12,34") to t->pids; dies (usage) on
 * a malformed list or a PID given twice. */
void target_add_pids(struct target *t, const char *arg);

/* Dies (bad input) unless each of t->pids can be recorded: not a kernel
 * thread, not a zombie, existing. */
void target_check_pids(const struct target *t);

/* Sets t->pid to t->pids[0] and t->exe to its executable, and takes
 * its view (target_view_take()). */
void target_check_target(struct target *t);

/*
 * Forks t->cmd (resolved as execvp would into t->exe), held until
 * target_release_child(), with cmd_out as its standard output (a
 * descriptor, or MT_SPAWN_INHERIT: ours; mt-record.c chooses it so that
 * it does not mix with the trace text). Sets t->child, t->pid.
 */
void target_start_child(struct target *t, int cmd_out);

/* Lets the held command run (nothing without a gate); with t->trace_start
 * it stops again right after execve (t->child_stopped), or has ended
 * (t->child becomes 0). */
void target_release_child(struct target *t);

/* The stopped command, from its execve to its entry point, where the
 * dynamic loader has mapped its libraries. x86-64 only; elsewhere it stays
 * at its execve. Dies if it ends on the way, and (the command killed) when
 * its entry point already holds a breakpoint instruction (another
 * recording's uprobe), which would take the stop. */
void target_run_to_entry(struct target *t);

/* Detaches from the stopped command (nothing if not stopped). */
void target_resume_child(struct target *t);

/*
 * Why process pid cannot be recorded, into msg (len bytes): 1, or 0 when
 * it can (or when only the later reads would tell).
 */
int target_unrecordable(pid_t pid, char *msg, size_t len);

/* Reads at most len - 1 bytes of the file path into buf, NUL-terminated:
 * 0, or -1 (errno) when it cannot be opened or read. */
int read_small(const char *path, char *buf, size_t len);

/* Whether the target runs on: our child not reaped yet (reaping it sets
 * t->child to 0 and t->status), or t->pid still there and, once
 * target_end_fd() is open, not ended (a zombie has). */
int target_alive(struct target *t);

/* A descriptor that polls readable (POLLIN) once t->pid has ended (a
 * pidfd: the child, or -p's first process), opened at the first call and
 * owned by t (target_release() closes it); -1 on a kernel without pidfds
 * (before 5.3): a wait then polls target_alive() as it wakes. A wait on
 * it ends as the target does, where a tick of 10 ms would add up to 10
 * ms to a short command's run. */
int target_end_fd(struct target *t);

/* Frees what t holds (its exe, pids, view). */
void target_release(struct target *t);

#endif
