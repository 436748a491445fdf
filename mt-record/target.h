/*
 * The process mt-record records: the -p PIDs, or the command after --,
 * which it forks held on a pipe (the gate) until target_release_child();
 * and the files it maps (a deleted one through the kernel's link to it),
 * with their symbols. struct target is owned by its caller (one per
 * mt-record run); the functions here read and write only its fields. Every failure dies
 * through die.h with mt-record's messages and exit codes.
 */
#ifndef MT_RECORD_TARGET_H
#define MT_RECORD_TARGET_H

#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

#include "procsyms.h"

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

/* Sets t->pid to t->pids[0] and t->exe to its executable. */
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
 * t->child to 0 and t->status), or t->pid still there. */
int target_alive(struct target *t);

/* ---- the files the target maps ---- */

/*
 * Whether the name of a mapped file, as the kernel gives it in
 * /proc/PID/maps and its mmap events, says that the file was deleted
 * since it was mapped (or replaced by a rename, as a package upgrade
 * does): the name no longer opens it.
 */
int is_deleted(const char *name);

/*
 * A path that opens the file tgt maps under name (as /proc/PID/maps
 * names it): name itself, or for a deleted file the kernel's link to the
 * inode still mapped: /proc/PID/exe for the executable, else
 * /proc/PID/map_files/START-END of a mapping of it (which only
 * CAP_SYS_ADMIN may follow). Uprobes can be put on a file through either
 * link: the kernel resolves it to the inode. Malloced; dies when out of
 * memory.
 */
char *inode_path(const struct target *tgt, const char *name);

/* open(2) of a file tgt maps, by its name in the mappings: the
 * descriptor, or -1 (errno). */
int open_mapped(const struct target *tgt, const char *name);

/*
 * The symbols of path (a file tgt maps), with those of its separate debug
 * file when it has no .symtab (mt_symfile_read), into f (MT_SYMFILE_INIT).
 * must: die when it cannot be read; else 0 or the negative MT_E* code (the
 * caller releases f either way).
 */
int read_symbols(const struct target *tgt, struct mt_symfile *f, const char *path,
		 int must);

/*
 * The files other than the executable that tgt->pid maps executable,
 * each once, in address order: a NULL-terminated array of paths, all
 * malloced (free_paths frees it).
 */
char **mapped_libraries(const struct target *tgt);

/* Frees a NULL-terminated array of malloced paths. */
void free_paths(char **v);

#endif
