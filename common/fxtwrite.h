/*
 * Writing FXT (Fuchsia trace format): the one FXT encoder of mt. The layout
 * and what Perfetto's importer does with each record are in docs/fxt.md
 * (section numbers below refer to it); the names of the record, event,
 * argument and object types are those of fxtread.h.
 *
 * struct mt_fxtw builds one record at a time in a buffer of its own and
 * hands it, whole, to where the caller said at _init: a write function
 * (called once per record) or a struct mt_buf it appends to. A call that
 * fails writes nothing (unless the write function itself failed).
 *
 * It also keeps, for callers that want them, FXT's two tables (1.2):
 *
 * - strings: indexes 1..32767. Indexes 1..n can be pinned (mt_fxtw_str_pin)
 *   for fixed names the caller registers itself; the others map the
 *   caller's keys (say, string ids of an mt stream) to indexes. When all
 *   are taken, the clock algorithm picks the index to register again: an
 *   index used since the hand last passed gets a second chance. Perfetto
 *   resolves every record by the registration in force where it stands in
 *   the file (2.5), so an evicted key simply gets a new string record the
 *   next time it is used.
 * - threads: indexes 1..255, keyed by the caller's dense thread numbers
 *   (mt_tidmap indexes), evicted by the same clock.
 *
 * Ownership: the writer owns its record buffer and its tables; the caller
 * owns the mt_buf or the write function's context, and every string it
 * passes (read during the call only). mt_fxtw_release() frees the tables.
 *
 * Never prints or exits; errors are negative MT_E* codes (err.h).
 */
#ifndef MT_FXTWRITE_H
#define MT_FXTWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fxtread.h"

/* Called with each whole record: 0, or a negative MT_E* code that the
 * writing call returns. */
typedef int (*mt_fxtw_write_fn)(void *ctx, const void *p, size_t n);

/*
 * A string as a record refers to it (1.2): index 1..32767 of the string
 * table, or, with index 0, the len bytes at p inline (len 0: the empty
 * string, ref 0). An inline string holds at most 32767 bytes.
 */
struct mt_fxtw_str {
	unsigned index;
	const char *p;
	size_t len;
};

#define MT_FXTW_INDEX(i) ((struct mt_fxtw_str){ (i), NULL, 0 })
#define MT_FXTW_INLINE(s, n) ((struct mt_fxtw_str){ 0, (s), (n) })

/* A thread as an event refers to it: index 1..255 of the thread table, or,
 * with index 0, the pid and tid inline (two words more). */
struct mt_fxtw_thread {
	unsigned index;
	uint64_t pid, tid;
};

/*
 * An argument (1.8). type is MT_FXT_ARG_NULL .. MT_FXT_ARG_BOOL; u holds
 * the value of the integer types (int32, uint32: the low 32 bits; int64,
 * uint64, pointer, koid; bool: 0 or 1), d a double, s a string value.
 * When raw is not NULL the argument is raw_len bytes already encoded (one
 * read from a file, say, of a type the writer does not know), copied as
 * they are: raw_len must be a multiple of 8 and match its size field.
 */
struct mt_fxtw_arg {
	unsigned type;
	struct mt_fxtw_str name;
	uint64_t u;
	double d;
	struct mt_fxtw_str s;
	const unsigned char *raw;
	size_t raw_len;
};

/* What every event has (1.7); the type and its trailing word are given by
 * the call. args[0 .. nargs) with nargs at most 15. */
struct mt_fxtw_event {
	struct mt_fxtw_thread thread;
	struct mt_fxtw_str cat, name;
	uint64_t ts; /* ticks */
	const struct mt_fxtw_arg *args;
	unsigned nargs;
};

#define MT_FXTW_STRINGS 32767 /* string indexes: 1 .. 32767 */
#define MT_FXTW_THREADS 255   /* thread indexes: 1 .. 255 */

struct mt_fxtw {
	/* counts, for reports: records written by mt_fxtw_string() and
	 * mt_fxtw_thread() (directly or through the tables), and keys the
	 * string table evicted */
	uint64_t string_records, thread_records, evictions;

	/* private */
	mt_fxtw_write_fn write;
	void *ctx;
	struct mt_buf *buf;
	unsigned char rec[MT_FXT_MAX_WORDS * 8];
	size_t len; /* bytes in rec */
	uint32_t *str_owner;  /* by index: key, 0: free */
	uint8_t *str_used;    /* by index: clock reference bits */
	unsigned str_pinned, str_hand;
	uint16_t *str_index;  /* by key: index, 0: none */
	size_t str_index_cap;
	uint32_t thr_owner[MT_FXTW_THREADS + 1]; /* by index: key + 1, 0: free */
	uint8_t thr_used[MT_FXTW_THREADS + 1];
	unsigned thr_hand;
	uint8_t *thr_index;   /* by key: index, 0: none */
	size_t thr_index_cap;
};

/* Records go to write(ctx, ...), one call each. */
void mt_fxtw_init(struct mt_fxtw *w, mt_fxtw_write_fn write, void *ctx);
/* Records are appended to out (which the caller may reset between them). */
void mt_fxtw_init_buf(struct mt_fxtw *w, struct mt_buf *out);
/* Free the tables; w can be initialised again. */
void mt_fxtw_release(struct mt_fxtw *w);

/*
 * Every record writer returns 0 or:
 *   MT_EINVAL  a field out of its range (an index, a length, more than 15
 *              arguments, an unknown type)
 *   MT_ETOOBIG the record would be over 4095 words (1.1)
 *   what the write function returned, or MT_ENOMEM appending to the buffer
 */

/* The magic number record (1.3): the first 8 bytes of a file. */
int mt_fxtw_magic(struct mt_fxtw *w);
/* Provider info (1.3): provider id, its name (at most 255 bytes). */
int mt_fxtw_provider(struct mt_fxtw *w, uint32_t id, const char *name,
		     size_t len);
/* The initialization record (1.4): ticks per second of what follows. */
int mt_fxtw_initialization(struct mt_fxtw *w, uint64_t ticks_per_second);
/* A string record (1.5): index 1..32767 is s (len bytes, at most 32752 so
 * that the record fits). Does not touch the string table. */
int mt_fxtw_string(struct mt_fxtw *w, unsigned index, const char *s,
		   size_t len);
/* A thread record (1.6): index 1..255 is (pid, tid). Does not touch the
 * thread table. */
int mt_fxtw_thread(struct mt_fxtw *w, unsigned index, uint64_t pid,
		   uint64_t tid);

/* A kernel object record (1.9): obj_type (MT_FXT_OBJ_*), koid, name, and
 * args[0 .. nargs). */
int mt_fxtw_kobj(struct mt_fxtw *w, unsigned obj_type, uint64_t koid,
		 struct mt_fxtw_str name, const struct mt_fxtw_arg *args,
		 unsigned nargs);
/* The name of process pid: a process object (2.7). */
int mt_fxtw_process_name(struct mt_fxtw *w, uint64_t pid,
			 struct mt_fxtw_str name);
/* The name of thread tid of process pid: a thread object with the koid
 * argument "process" (2.7), its name referred to as process says. */
int mt_fxtw_thread_name(struct mt_fxtw *w, uint64_t tid,
			struct mt_fxtw_str name, uint64_t pid,
			struct mt_fxtw_str process);

/*
 * An event record (1.7) of type (enum mt_fxt_ev_type). word is the word
 * after the arguments: the end timestamp of a complete event (absolute,
 * in ticks), the counter id of a counter, the correlation id of an async
 * or flow event; instants, begins and ends have none (word is ignored).
 */
int mt_fxtw_event(struct mt_fxtw *w, unsigned type,
		  const struct mt_fxtw_event *ev, uint64_t word);

static inline int mt_fxtw_instant(struct mt_fxtw *w,
				  const struct mt_fxtw_event *ev)
{
	return mt_fxtw_event(w, MT_FXT_EV_INSTANT, ev, 0);
}

static inline int mt_fxtw_counter(struct mt_fxtw *w,
				  const struct mt_fxtw_event *ev, uint64_t id)
{
	return mt_fxtw_event(w, MT_FXT_EV_COUNTER, ev, id);
}

static inline int mt_fxtw_begin(struct mt_fxtw *w,
				const struct mt_fxtw_event *ev)
{
	return mt_fxtw_event(w, MT_FXT_EV_BEGIN, ev, 0);
}

static inline int mt_fxtw_end(struct mt_fxtw *w, const struct mt_fxtw_event *ev)
{
	return mt_fxtw_event(w, MT_FXT_EV_END, ev, 0);
}

static inline int mt_fxtw_complete(struct mt_fxtw *w,
				   const struct mt_fxtw_event *ev,
				   uint64_t end_ts)
{
	return mt_fxtw_event(w, MT_FXT_EV_COMPLETE, ev, end_ts);
}

/*
 * An event record read, written again changed: body is its len bytes from
 * the header to the end of its arguments (a multiple of 8, at least 16),
 * kept byte for byte (thread, category, name, its own arguments) but for
 * the event type (type), the timestamp (ts), the argument count and the
 * size; args[0 .. nargs) follow its own arguments, then word as for
 * mt_fxtw_event(). The total of arguments must stay at most 15.
 */
int mt_fxtw_event_again(struct mt_fxtw *w, unsigned type,
			const unsigned char *body, size_t len, uint64_t ts,
			const struct mt_fxtw_arg *args, unsigned nargs,
			uint64_t word);

/* Sizes in words: of an inline string's stream (0 for an index), of an
 * argument as mt_fxtw_event() writes it. */
size_t mt_fxtw_str_words(struct mt_fxtw_str s);
size_t mt_fxtw_arg_words(const struct mt_fxtw_arg *a);

/* ---- the string table ---- */

/* Keep indexes 1..n (n < 32767) out of the table, for the caller to
 * register (mt_fxtw_string). Before any other use of the table. 0 or
 * MT_EINVAL, MT_ENOMEM. */
int mt_fxtw_str_pin(struct mt_fxtw *w, unsigned n);

/* The index key (> 0) has now, marking it used; 0 when it has none (never
 * added, evicted, or forgotten). */
unsigned mt_fxtw_str_find(struct mt_fxtw *w, uint32_t key);

/*
 * Give key (> 0, with no index now) the text s (1..32752 bytes): a free
 * index, or the clock's choice, whose key loses it (evictions counts it);
 * writes the string record. Returns the index, or a negative code (then
 * key has no index).
 */
int mt_fxtw_str_add(struct mt_fxtw *w, uint32_t key, const char *s,
		    size_t len);

/* The text of key changed: its index, if it has one, is free again.
 * Nothing is written. */
void mt_fxtw_str_forget(struct mt_fxtw *w, uint32_t key);

/* ---- the thread table ---- */

/* The thread index of key (a dense thread number), marking it used; when
 * it has none, a free index or the clock's choice gets it, with a thread
 * record (pid, tid). Returns 1..255 or a negative code. */
int mt_fxtw_thread_ref(struct mt_fxtw *w, uint32_t key, uint64_t pid,
		       uint64_t tid);

#endif
