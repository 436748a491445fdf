/*
 * The file a tool writes (tool tier, libmttool.a: it reports and dies
 * through die.h).
 *
 * A user's file is never destroyed: `-o FILE` writes a private temporary
 * beside FILE (created with O_EXCL in FILE's directory, a hidden random
 * name; or, asked for with output_unnamed(), a file with no name at all,
 * O_TMPFILE, given that name only when the tool finishes well, so that
 * even SIGKILL leaves nothing behind) and renames it over FILE only when
 * the tool finishes well (close_stdout_or_die). A run that fails (die, exit), is ended by SIGTERM,
 * SIGHUP, SIGINT or SIGQUIT (unless the tool handles or ignores them
 * itself), or is told there is nothing to write (output_discard) leaves
 * FILE as it was and removes the temporary; only the process that made it
 * removes it, never a child forked later. Something that is not a regular
 * file (a terminal, /dev/null, a FIFO) is written directly.
 */
#ifndef MT_OUTPUT_H
#define MT_OUTPUT_H

#include <stddef.h>

/*
 * Send standard output to the file name, as above. A symbolic link is
 * followed: the file it names is replaced. The new file gets the mode of
 * the one it replaces, or 0666 less the umask. Dies naming the file when
 * it cannot be created, and (MT_EXIT_USAGE) when the name is empty or it
 * is the file the tool reads (open_input_or_die's file, or standard input).
 */
void output_to_or_die(const char *name);

/*
 * Create a private temporary file beside name: in its directory, named
 * ".BASENAME.XXXXXX" with six random characters, created with O_EXCL
 * (never through a link), mode 0600, close-on-exec. Its name goes into
 * buf (cap bytes). Returns the descriptor, or -1 with errno set.
 */
int output_tmp_beside(const char *name, char *buf, size_t cap);

/* Before output_to_or_die(): the temporary is to have no name until the
 * end (O_TMPFILE, where the file system has it): a tool that may be
 * killed with SIGKILL (mt-record) leaves nothing behind. */
void output_unnamed(void);

/*
 * At the rename, first move an existing file to NAME.old (replacing an
 * older one), with a line saying so: mt run keeps the previous trace.
 */
void output_keep_old(void);

/* The temporary's name while there is one (for a -v line; of one with no
 * name yet, a description), else NULL: standard output, or a file written
 * as it is. */
const char *output_tmp_name(void);

/* The output's name for messages: the -o name, or "standard output". */
const char *output_name(void);

/*
 * Nothing worth writing: remove the temporary and leave the -o file as it
 * was; standard output is then /dev/null, so that later writes go nowhere
 * and close_stdout_or_die renames nothing. Returns 1 when an -o file was
 * left untouched, 0 when the output is not a file renamed into place.
 */
int output_discard(void);

/*
 * For a tool whose output is binary (what: "an mt stream", "FXT"): dies
 * (MT_EXIT_USAGE) when standard output is a terminal that no -o named, as
 * gzip refuses to write compressed data to one; the message says how to
 * send it elsewhere. Call after output_to_or_die.
 */
void output_binary_or_die(const char *what);

/* Whether name asks for compressed output: it ends in ".gz". */
int output_name_is_gz(const char *name);

/*
 * Write n bytes to standard output, through the compressor when
 * output_gzip() was called. A closed pipe ends the program quietly; any
 * other failure dies naming the output.
 */
void output_write(const void *p, size_t n);

/* Die because writing standard output failed (errno says why), naming
 * the output, and saying that an -o file was left as it was; EPIPE ends
 * the tool quietly by SIGPIPE. */
_Noreturn void output_write_failed(void);

/*
 * From now on, compress what output_write writes as one gzip member
 * (zlib level 6), finished by close_stdout_or_die. In gzout.c: tools that
 * call it link zlib (-lz).
 */
void output_gzip(void);

/*
 * Finish the output: flush stdio, end the gzip member, and for an -o file
 * fsync the temporary and rename it into place. Dies naming the output
 * when any of it fails (a full disk, say), leaving the old file. Call at
 * the end of main() of every tool that writes to stdout.
 */
void close_stdout_or_die(void);

/* The compressor's hooks (gzout.c sets them; nothing else should). */
struct output_filter {
	void (*write)(const void *p, size_t n);
	void (*finish)(void);
};
void output_set_filter(const struct output_filter *f);

/* Remove the temporary now (async-signal-safe): for die_pipe and signal
 * handlers that end the tool with _exit. */
void output_remove_tmp_signal_safe(void);

/* For open_input_or_die: the file a tool reads, so that it is never the
 * output too. */
void output_note_input(int fd, const char *name);

#endif
