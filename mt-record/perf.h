/*
 * mt-record's child processes and perf's private directory. A struct proc
 * is owned by its caller; the work directory is this file's own state,
 * set up through work_init(), work_set_options() and make_workdir(), and
 * read through workdir_path(). Failures die through die.h.
 */
#ifndef MT_RECORD_PERF_H
#define MT_RECORD_PERF_H

#include <stdio.h>
#include <sys/types.h>

/* A perf (or other) process, its pidfd-less handle. */
struct proc {
	pid_t pid;
	int status;
	int done;
	char *errfile; /* its stderr, shown when it fails; the caller frees it */
};

/* Once, at the start of main: this process is the one that removes the
 * work directory (not a child that forked from it). */
void work_init(void);

/* After the options, before anything is started: -v (spawn() prints what
 * it runs) and --keep dir (the work directory, never removed), or NULL. */
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

/* 1 when p has ended (or was never started), p->status its wait status;
 * 0 when it runs on (block 0). */
int reap(struct proc *p, int block);

/* Copies p's saved stderr to ours, if it has one. */
void show_stderr(const struct proc *p);

/* Prints argv shell-quoted, then a newline (for --dry-run and -v); for a
 * perf command (is_perf) first the environment that perf gets. */
void print_argv(FILE *f, char *const *argv, int is_perf);

/*
 * Starts argv (never through a shell) in its own process group, so that a
 * terminal's Ctrl+C reaches us and not it; it dies with us
 * (PR_SET_PDEATHSIG). keep[] (nkeep) are descriptors it inherits (others
 * are close-on-exec); stdout goes to out (-1: /dev/null), stderr to the
 * file errname (NULL: ours); is_perf: argv is a perf command, run with
 * PERF_CONFIG (MT_PERF_CONFIG's file, or /dev/null) and HOME the work
 * directory.
 */
void spawn(struct proc *p, char *const *argv, int out, const int *keep,
	   size_t nkeep, const char *errname, int is_perf);

/*
 * Runs argv with its standard output into buf (len bytes, NUL-terminated;
 * what fits of its first read): the bytes read, or -1 when it failed or
 * exited non-zero.
 */
ssize_t run_output(char *const *argv, char *buf, size_t len, int is_perf);

#endif
