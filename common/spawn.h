/*
 * Running another program, for the tools (tool tier: libmttool.a, like
 * die.h): start argv (never through a shell) with its standard input,
 * output and error redirected, read what it prints, wait for it; and fzf,
 * through which the user picks a line of a list. A child may instead run
 * a function of ours (child_main), and may be detached (nobody waits for
 * it). Where it says so, a failure dies through die.h with the house
 * message; otherwise errors are returned with errno and the caller words
 * them (mt_spawn_start() neither prints nor exits in the caller, so code
 * that must not, like the uprobe engine, may use it).
 *
 * Ownership: struct mt_spawn is the caller's; the descriptors it returns
 * (to_child, from_child) are the caller's to close, except that
 * mt_spawn_read() closes from_child. A child is reaped by mt_spawn_wait()
 * or mt_spawn_poll(), or by the caller's own waitpid().
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
	int unprefixed;         /* with name: its messages lack the "PROG: "
				 * (perf's, read with perf's own messages) */
	int new_session;        /* setsid(): a terminal's Ctrl+C on us does
				 * not reach it */
	int new_group;          /* setpgid(0, 0): a process group of its
				 * own, in our session */
	int death_signal;       /* the signal it gets when we end (the
				 * thread of ours that started it:
				 * PR_SET_PDEATHSIG), or 0; when we ended
				 * before it could ask, it exits 127 */
	const int *keep;        /* nkeep descriptors of ours that it keeps
				 * besides in, out and err: a program gets
				 * them (their close-on-exec flag cleared);
				 * a child_main has these alone (in
				 * ascending order then): every other
				 * descriptor, 0 to 2 too, is closed */
	size_t nkeep;
	void (*child_setup)(void *arg); /* run in the child last before
				 * the exec or child_main (signals,
				 * environment), or NULL */
	int (*child_main)(void *arg); /* run in the child instead of a
				 * program (argv NULL; in, out, err left
				 * MT_SPAWN_INHERIT): its return value is
				 * the child's exit status; or NULL */
	void *child_arg;        /* child_setup's and child_main's */
	int detached;           /* a double fork: the child is a grandchild
				 * that nobody waits for (pid stays 0),
				 * reparented to init when its parent, which
				 * mt_spawn_start() reaps, exits (not with
				 * death_signal) */
	/* Set by mt_spawn_start(). */
	pid_t pid;              /* 0 for a detached child */
	int to_child;           /* in == MT_SPAWN_PIPE: the pipe's end that
				 * writes to its standard input, else -1 */
	int from_child;         /* out == MT_SPAWN_PIPE: the end that reads
				 * its standard output, else -1 */
	const char *failed;     /* on failure: "pipe" or "fork" */
	/* Set by mt_spawn_wait() and mt_spawn_poll(). */
	int reaped;             /* 1 once it has been waited for */
	int status;             /* then its wait status */
};

#define MT_SPAWN_INIT { .in = MT_SPAWN_INHERIT, .out = MT_SPAWN_INHERIT, \
			.err = MT_SPAWN_INHERIT, .to_child = -1, .from_child = -1 }

/*
 * Start argv as s says. Our descriptors other than those s names are not
 * passed on if they are close-on-exec (the pipes are). stdio buffers are
 * not flushed (fflush(NULL) first if the child might write to the same
 * file). 0 with s->pid set, or -1 with errno set and s->failed naming the
 * call that failed ("pipe", "fork"); nothing is left open then. A detached
 * child that could not be forked is a failure too ("fork", with the errno
 * of its parent's fork). In the child, in this order: in, out and err
 * redirected, new_session, new_group, death_signal, keep, child_setup,
 * then its program or child_main.
 */
int mt_spawn_start(struct mt_spawn *s, char *const *argv);

/*
 * Read from_child until end of file or until buf (size bytes, size >= 1)
 * is full but for the NUL that ends what was read, retrying EINTR; then
 * close from_child. The bytes read, or -1 with errno when a read failed
 * (buf then holds what was read before).
 */
ssize_t mt_spawn_read(struct mt_spawn *s, char *buf, size_t size);

/* Wait for the child (retrying EINTR), unless it was reaped already: its
 * wait status, also in s->status (0 when it was never started: pid 0).
 * Dies ("waitpid") when waitpid fails otherwise. */
int mt_spawn_wait(struct mt_spawn *s);

/* mt_spawn_wait() that does not wait: 1 when the child has ended (reaped
 * now or before, or never started: s->status its wait status), 0 while it
 * runs. Dies ("waitpid") as mt_spawn_wait() does. */
int mt_spawn_poll(struct mt_spawn *s);

/* fzf started by mt_fzf_start(). */
struct mt_fzf {
	struct mt_spawn s;
	FILE *to;               /* the list it shows */
	int tty;                /* the terminal given to fzf, or -1 */
	pid_t fg;               /* its foreground group before (ours) */
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
