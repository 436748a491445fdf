/*
 * What the parts of mt-fxt share; each file has one job:
 *
 *   mt-fxt.c  the options, the walk of the mt stream (records become
 *             spans, instants, counters and thread names; marks of no
 *             thread wait for the first span), the thread table, the
 *             report; main()
 *   fxt.c     the FXT writer (fxt.h)
 *   json.c    the JSON writer, Chrome's trace event format (json.h)
 *   text.c    the text of input strings: valid UTF-8, cut when too long
 *   out.c     the output buffer both writers write through
 *
 * main() chooses one writer, a struct writer, at the start; the walk
 * hands it every record through its operations and never asks which
 * format it writes. The writers die (die.h) on any error, naming the
 * output; they own their state, the walk owns the threads and the
 * records it passes (read during the call only).
 */
#ifndef MT_FXT_WRITER_H
#define MT_FXT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* ---- what the walk gives the writers ---- */

/*
 * The fixed names of arguments, instants and counters: S_* is a name's
 * index in pinned_names (mt-fxt.c), and, as FXT pins them, its index in
 * the string table.
 */
enum {
	S_PROCESS = 1, S_ADDRESS, S_INFERRED, S_OPEN, S_CLIPSTART, S_CLIPEND,
	S_DSO, S_MESSAGE, S_CODE, S_IP, S_UNKNOWN, S_DECODE, S_LOST, S_TRIGGER,
	S_FUNCTION, S_SNAPSHOT, S_WALLCLOCK, S_UNIX_NS, S_CBR, S_MHZ, S_PTWRITE,
	S_PAYLOAD, S_POWER, S_EVTRACE, S_MARK, S_TEXT, S_VALUE, S_PERF_NS,
	S_CBR_THREAD, S_TIMESTAMP_PASSED, S_ARG, S_TIMESTAMP, S_TID,
	S_OFF, S_CALLS_PER_S,
	NPINNED = S_CALLS_PER_S
};
extern const char *const pinned_names[NPINNED + 1];

/* A thread of the stream, in the walk's table (threads[index]). */
struct thread {
	uint32_t pid, tid; /* as the stream gives them: MT_NONE32 unknown */
	uint32_t index;
	int32_t min_depth, max_depth; /* of its spans, once has_depth */
	int has_depth;
	uint32_t comm; /* input id of the name last given, 0: none */
};

/*
 * An argument of an instant or counter: name an S_* index; value an
 * integer, a pointer, or with type MT_FXT_ARG_STRING an input string id.
 * type is MT_FXT_ARG_INT32, _UINT64, _STRING, _POINTER or _BOOL.
 */
struct arg {
	unsigned type;
	uint32_t name;
	uint64_t value;
};

/* Perfetto wants non-zero ids below 2^32; unknown ones get a stand-in. */
static inline uint64_t koid(uint32_t id)
{
	return id == MT_NONE32 ? 0xfffffffeu : id ? id : 0xfffffffdu;
}

/* ---- a writer: the record handlers of one output format ---- */

/*
 * The walk calls begin() once, then the record handlers in stream order
 * (a mark of no thread may come later than it was read, on the thread of
 * the span after it), then end(), warn(), verbose() (with -v only) and
 * release() (unless the trace is empty: mt-fxt then exits), in that
 * order. Every operation is set (an empty function when a format has
 * nothing to do); they write through the output buffer (out_mem()) only.
 */
struct writer {
	/* What output_binary_or_die() calls this output; NULL: it is text,
	 * which may go to a terminal. */
	const char *binary;

	/* Before any record: in_name and out_name name the input and the
	 * output in messages, and outlive the writer. */
	void (*begin)(const char *in_name, const char *out_name);

	/* The time of each span (its start), mark and error as it is read,
	 * before it is written or held (MT_NONE64: none). */
	void (*saw_time)(uint64_t t);

	/* Input string id is defined, for the first time or again: what
	 * the writer registered under it, if anything, no longer holds. */
	void (*string_defined)(uint32_t id);

	/* t is given a name, t->comm: its text, valid UTF-8, cut to len
	 * bytes, at most 200. */
	void (*thread_name)(const struct thread *t, const char *name,
			    size_t len);

	/* A span of t; s->dso is 0 unless the DSO is to be written. */
	void (*span)(const struct thread *t, const struct mt_span *s);

	/* An instant of t at time (MT_NONE64: unknown), named by the pinned
	 * name, or by input string name_sid when it is not 0; args[0..n),
	 * n at most 3. */
	void (*instant)(const struct thread *t, uint64_t time, unsigned name,
			uint32_t name_sid, const struct arg *args, size_t n);

	/* A complete event of t from start to end named name[0..len)
	 * (valid UTF-8), args[0..n), n at most 5: a trigger's region. */
	void (*complete)(const struct thread *t, const char *name, size_t len,
			 uint64_t start, uint64_t end, const struct arg *args, size_t n);
	/* A value of counter id (a cpu, or a koid) of t at time, named by
	 * the pinned name: the one argument a. */
	void (*counter)(const struct thread *t, uint64_t time, unsigned name,
			uint64_t id, const struct arg *a);

	/* After the last record: threads[0..n) are every thread seen. */
	void (*end)(const struct thread *threads, size_t n);

	/* Warnings (warn(), die.h) of what the output could not hold exactly. */
	void (*warn)(void);

	/* What -v's line on stderr adds about this format, with no end of
	 * line. */
	void (*verbose)(void);

	/* Frees what the writer holds; nothing is written. */
	void (*release)(void);
};

/* ---- the output buffer (out.c) ---- */

/* Append n bytes at p to the output, written through output.h's
 * output_write() as the buffer fills. */
void out_mem(const void *p, size_t n);
/* The NUL-terminated s, without its NUL. */
void out_lit(const char *s);
/* Write what the buffer holds. */
void out_flush(void);
/* Bytes appended so far, written or not. */
unsigned long long out_total(void);

/* ---- the text of input strings (text.c) ---- */

/* The strings are those of r; in_name names it in messages. Both must
 * outlive every other call below. */
void text_init(const struct mt_reader *r, const char *in_name);

/*
 * The text of input string id, valid UTF-8 (every ill-formed subpart is
 * U+FFFD), cut with a visible mark when longer than 32,000 bytes, in
 * *len bytes; NULL when id is not defined. *tmp is what to free after
 * (NULL when nothing).
 */
const char *text_of(uint32_t id, size_t *len, char **tmp);

/* The same, dying (MT_EXIT_DATA) when id is not defined. */
const char *text_need(uint32_t id, size_t *len, char **tmp);

/* Where to cut valid UTF-8 at most keep bytes long, not inside a
 * sequence: the length to keep. */
size_t utf8_cut(const char *s, size_t len, size_t keep);

#endif
