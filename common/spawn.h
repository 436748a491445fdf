/*
 * Running another program, for the tools (tool tier: libmttool.a, like
 * die.h): start argv (never through a shell) with its standard input,
 * output and error redirected, read what it prints, wait for it; and fzf,
 * through which the user picks a line of a list. Where it says so, a
 * failure dies through die.h with the house message; otherwise errors are
 * returned with errno and the caller words them.
 *
 * Ownership: struct mt_spawn is the caller's; the descriptors it returns
 * (to_child, from_child) are the caller's to close, except that
 * mt_spawn_read() closes from_child. A child is reaped by mt_spawn_wait()
 * or by the caller's own waitpid().
 */
#ifndef MT_SPAWN_H
#define MT_SPAWN_H

#include <stdio.h>
#include <sys/types.h>

/* What a child's in, out or err is, besides a descriptor of ours. */
#define MT_SPAWN_INHERIT (-1) /* ours */
#define MT_SPAWN_PIPE (-2)    /* a pipe to us (in and out only) */
#define MT_SPAWN_NULL (-3)    /* /dev/null (left as ours if it cannot be
			       * opened) */

struct mt_spawn {
	/* Set by the caller (MT_SPAWN_INIT sets the defaults). */
	int in, out, err;       /* its standard input, output and error */
	const char *path;       /* the file to run; NULL: argv[0], searched
				 * in PATH as execvp(3) does */
	const char *name;       /* NULL: a child that cannot redirect or run
				 * its program exits 127 without a word;
				 * else it says "PROG: NAME: dup2: ERROR" or
				 * "PROG: PATH: ERROR" on stderr and exits
				 * MT_EXIT_SYSTEM (exec_status instead
				 * when that is not 0) */
	int exec_status;        /* with name: the exit status when its
				 * program cannot be run, or 0 */
	int new_session;        /* setsid(): a terminal's Ctrl+C on us does
				 * not reach it */
	void (*child_setup)(void *arg); /* run in the child last before
				 * the exec (signals, environment), or NULL */
	void *child_arg;
	/* Set by mt_spawn_start(). */
	pid_t pid;
	int to_child;           /* in == MT_SPAWN_PIPE: the pipe's end that
				 * writes to its standard input, else -1 */
	int from_child;         /* out == MT_SPAWN_PIPE: the end that reads
				 * its standard output, else -1 */
	const char *failed;     /* on failure: "pipe" or "fork" */
	/* Set by mt_spawn_wait(). */
	int status;             /* its wait status */
};

#define MT_SPAWN_INIT { MT_SPAWN_INHERIT, MT_SPAWN_INHERIT, MT_SPAWN_INHERIT, \
			NULL, NULL, 0, 0, NULL, NULL, 0, -1, -1, NULL, 0 }

/*
 * Start argv as s says. Our descriptors other than those s names are not
 * passed on if they are close-on-exec (the pipes are). stdio buffers are
 * not flushed (fflush(NULL) first if the child might write to the same
 * file). 0 with s->pid set, or -1 with errno set and s->failed naming the
 * call that failed ("pipe", "fork"); nothing is left open then.
 */
int mt_spawn_start(struct mt_spawn *s, char *const *argv);

/*
 * Read from_child until end of file or until buf (size bytes, size >= 1)
 * is full but for the NUL that ends what was read, retrying EINTR; then
 * close from_child. The bytes read, or -1 with errno when a read failed
 * (buf then holds what was read before).
 */
ssize_t mt_spawn_read(struct mt_spawn *s, char *buf, size_t size);

/* Wait for the child (retrying EINTR): its wait status, also in
 * s->status. Dies ("waitpid") when waitpid fails otherwise. */
int mt_spawn_wait(struct mt_spawn *s);

/* fzf started by mt_fzf_start(). */
struct mt_fzf {
	struct mt_spawn s;
	FILE *to;               /* the list it shows */
	int tty;                /* the terminal given to fzf, or -1 */
	pid_t fg;               /* its foreground group before (ours) */
	pid_t runner;           /* the process that started fzf */
};

/*
 * Start fzf with argv (argv[0] "fzf", then its options; run by execvp(3),
 * which passes over a PATH entry that cannot be run): the lines to pick
 * from are written to the returned stream (also z->to). NULL when PATH has
 * no fzf (mt_which). SIGPIPE is ignored until mt_fzf_finish(): fzf may
 * exit before it has read all. Dies ("pipe", "fork", "fdopen") when it
 * cannot be started.
 *
 * The terminal: fzf draws on and reads keys from the controlling terminal
 * (/dev/tty). When our process group is the terminal's foreground group,
 * fzf runs in a process group of its own which is made the foreground
 * group until mt_fzf_finish() gives the terminal back to ours: the keys
 * (Ctrl+C, Ctrl+Z, Ctrl+\ included) are fzf's alone. When ours is a
 * background group (a job started with &), or there is no terminal, fzf
 * stays in our group (fzf stops with it on reading the terminal, until
 * the shell's fg). fzf starts with no signal blocked and gets SIGTERM
 * when its runner dies (PR_SET_PDEATHSIG): it restores the terminal and
 * exits.
 */
FILE *mt_fzf_start(struct mt_fzf *z, char *const *argv);

/*
 * Close the list (an error closing it only means fzf had its answer), read
 * what fzf prints, the line picked, into buf as mt_spawn_read() does, wait
 * for fzf, give the terminal's foreground back to our group when
 * mt_fzf_start() gave it to fzf (unless it has been moved since) and
 * SIGPIPE its default action. Returns the bytes read, or -1 with errno
 * when reading failed. z->s.status is fzf's wait status (exit 127: it
 * could not be run; 1: nothing matched or picked; 130: the user cancelled
 * it, Esc or Ctrl+C).
 */
ssize_t mt_fzf_finish(struct mt_fzf *z, char *buf, size_t size);

#endif
