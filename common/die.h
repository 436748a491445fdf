/*
 * The tools' one way to report and to die. This is the tool tier, linked
 * only into the programs (libmttool.a): the library proper (libmt.a) never
 * prints and never exits.
 *
 * Exit codes, the same for every mt tool and documented in each man page:
 */
#ifndef MT_DIE_H
#define MT_DIE_H

#include <stdarg.h>
#include <stddef.h>

#include "output.h" /* output_to_or_die, close_stdout_or_die */

enum {
	MT_EXIT_OK = 0,
	MT_EXIT_DATA = 1,   /* the input was bad: malformed, truncated */
	MT_EXIT_USAGE = 2,  /* bad command line */
	MT_EXIT_SYSTEM = 3, /* I/O error, out of memory, a failed command */
	MT_EXIT_CANCELLED = 130 /* the user cancelled a pick in fzf (Esc,
				 * Ctrl+C: fzf's own status, a Ctrl+C's);
				 * only the tools that run fzf */
};

/* Set once in main(): the name that prefixes every message. */
void mt_set_progname(const char *argv0);
/* For a tool with a man page (docs/PROG.1): --help (usage_ok) ends by
 * naming it. Test helpers, which have none, do not call this. */
void mt_set_manual(void);
const char *mt_progname(void);

/* "PROG: message\n" on stderr. Every message of warn and die passes
 * through mt_quote_controls: controls and non-ASCII bytes show as \xHH. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* warn() with a va_list. */
void vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Print and exit with code. */
_Noreturn void die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* As die(), appending ": strerror(errno)". */
_Noreturn void die_errno(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Die because a library call returned err (an MT_E* code): appends
 * ": mt_strerror(err)" (and errno's text for MT_EIO). MT_ENOMEM and MT_EIO
 * exit MT_EXIT_SYSTEM, the rest MT_EXIT_DATA. MT_EPIPE (the reader went
 * away) exits quietly by SIGPIPE, as a shell pipeline expects.
 */
_Noreturn void die_mt(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Die because reading the mt stream r (named name in messages) failed with
 * err: "NAME: byte offset 0xN: <die_mt's text>", and when the input is no
 * stream at all, what it looks like and which tool reads that
 * (mt_reader_looks_like: an FXT trace, perf script text, ...).
 */
struct mt_reader;
_Noreturn void die_reader(const struct mt_reader *r, int err, const char *name);

/* Exit quietly with SIGPIPE's status (killed by it: no atexit handler
 * runs, no stdio buffer is flushed), but for the hook of die_pipe_hook()
 * first, once. */
_Noreturn void die_pipe(void);

/* What must be done before a die_pipe() too (a traced process put back);
 * die() and its kin exit(), which runs atexit handlers. */
void die_pipe_hook(void (*fn)(void));

/* Write all n bytes to fd, retrying short writes and EINTR; a closed pipe
 * ends the program quietly (die_pipe), any other failure dies with
 * MT_EXIT_SYSTEM. */
void write_or_die(int fd, const void *buf, size_t n);

/* Read at most n bytes of fd (named name in the message), retrying EINTR:
 * how many, 0 at its end; a failure dies with MT_EXIT_SYSTEM ("NAME: read
 * error: ..."). */
size_t read_or_die(int fd, void *buf, size_t n, const char *name);

/*
 * Make the array *p of *cap elements of size elem hold at least need + 1
 * elements, doubling; new elements are zeroed. Dies when memory runs out.
 */
void grow_or_die(void *p, size_t *cap, size_t need, size_t elem);

/* --help: the usage text on stdout, exit 0. */
_Noreturn void usage_ok(const char *usage);
/* A bad command line: the usage text on stderr, exit MT_EXIT_USAGE. */
_Noreturn void usage_fail(const char *usage);
/* --version: "PROG (mt) VERSION" on stdout, exit 0. */
_Noreturn void version_ok(void);

/* The file a tool reads: standard input for NULL or "-", else name opened
 * read-only; dies (MT_EXIT_SYSTEM) naming it when it cannot be opened. */
int open_input_or_die(const char *name);

/*
 * For filters: when standard input is a pipe, the first SIGINT (a
 * terminal's Ctrl+C reaches every process of a pipeline) is ignored, so
 * that the filter goes on until its input ends and the recorder upstream
 * can still deliver its snapshot; a second one exits at once (status 130).
 * Call early in main(); does nothing when the input is not a pipe.
 */
void mt_finish_on_interrupt(void);

/* Whether to show progress: stderr is a terminal. */
int mt_progress_enabled(void);

#endif
