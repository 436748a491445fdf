/*
 * Reading FXT (Fuchsia trace format) files the way Perfetto imports them.
 * The layout and the import rules are in docs/fxt.md (section 1: the
 * records; section 2: what Perfetto's importer does with them); the section
 * numbers below refer to it. The names of the format (magic, record, event,
 * argument and object types) are defined here once, for the writer
 * (fxtwrite.h) too.
 *
 * struct mt_fxt_reader decodes one record at a time, keeping what
 * Perfetto's tokenizer keeps in file order: the providers (each with its
 * string table, thread table and ticks per second), so that string and
 * thread refs are resolved to the value their index had at that point of
 * the file (re-registration is followed). The tests' checker of Perfetto's
 * import rules (tests/helpers/fxtcheck.h) consumes its records.
 *
 * It reads from memory, a buffer at a time (the caller frames the records)
 * or from a source of bytes (mt_read_fn, stream.h: a file, gzip data...).
 *
 * Ownership: the reader does not copy its input in memory (data must
 * outlive it); it owns its tables and a scratch area for inline strings,
 * and the record read from a source. Everything a record
 * points to (raw, strings, provider) is owned by the reader and valid until
 * the next mt_fxt_next() or mt_fxt_reader_release().
 *
 * It never prints or exits; errors are negative MT_E* codes (err.h).
 */
#ifndef MT_FXTREAD_H
#define MT_FXTREAD_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "stream.h" /* mt_read_fn */

/* ---- the format's names, shared with fxtwrite.h ---- */

/* The magic number record, the whole first word of a file (1.3). */
#define MT_FXT_MAGIC 0x0016547846040010ull
/* The largest record: the 12-bit size field, in words (1.1). */
#define MT_FXT_MAX_WORDS 4095
#define MT_FXT_MAX_ARGS 15
/* Perfetto's SliceTracker::kMaxDepth: deeper slices are dropped. */
#define MT_FXT_MAX_DEPTH 512
/* What the project writes, and what the checker wants (1.4). */
#define MT_FXT_TICKS_NS 1000000000ull

enum mt_fxt_rec_type {
	MT_FXT_METADATA = 0,
	MT_FXT_INIT = 1,
	MT_FXT_STRING = 2,
	MT_FXT_THREAD = 3,
	MT_FXT_EVENT = 4,
	MT_FXT_BLOB = 5,
	MT_FXT_USEROBJ = 6,
	MT_FXT_KOBJ = 7,
	MT_FXT_SCHED = 8,
	MT_FXT_LOG = 9,
	MT_FXT_LARGE = 15
};

/* Metadata types ([16..19] of a metadata record). */
enum mt_fxt_meta_type {
	MT_FXT_META_PROVIDER_INFO = 1,
	MT_FXT_META_PROVIDER_SECTION = 2,
	MT_FXT_META_PROVIDER_EVENT = 3,
	MT_FXT_META_TRACE_INFO = 4
};

enum mt_fxt_ev_type {
	MT_FXT_EV_INSTANT = 0,
	MT_FXT_EV_COUNTER = 1,
	MT_FXT_EV_BEGIN = 2,
	MT_FXT_EV_END = 3,
	MT_FXT_EV_COMPLETE = 4,
	MT_FXT_EV_ASYNC_BEGIN = 5,
	MT_FXT_EV_ASYNC_INSTANT = 6,
	MT_FXT_EV_ASYNC_END = 7,
	MT_FXT_EV_FLOW_BEGIN = 8,
	MT_FXT_EV_FLOW_STEP = 9,
	MT_FXT_EV_FLOW_END = 10
};

enum mt_fxt_arg_type {
	MT_FXT_ARG_NULL = 0,
	MT_FXT_ARG_INT32 = 1,
	MT_FXT_ARG_UINT32 = 2,
	MT_FXT_ARG_INT64 = 3,
	MT_FXT_ARG_UINT64 = 4,
	MT_FXT_ARG_DOUBLE = 5,
	MT_FXT_ARG_STRING = 6,
	MT_FXT_ARG_POINTER = 7,
	MT_FXT_ARG_KOID = 8,
	MT_FXT_ARG_BOOL = 9,
	MT_FXT_ARG_BLOB = 10
};

/* Kernel object types (ZX object types) Perfetto reads. */
enum { MT_FXT_OBJ_PROCESS = 1, MT_FXT_OBJ_THREAD = 2 };

/*
 * A string ref resolved (1.2): ref 0 is "", an inline ref (0x8000 | len) is
 * the bytes that followed in the record, an index is the table entry at this
 * point of the file. p is NUL-terminated (the text may hold NULs of its
 * own: len counts the bytes); p is NULL when the index was never registered
 * in the current provider (an "undefined string ref").
 */
struct mt_fxt_str {
	const char *p;
	size_t len;
	uint16_t ref; /* as written */
};

/* A thread ref resolved: inline (ref 0) or through the table. An index
 * never registered gives pid 0, tid 0 and undefined 1, as in Perfetto. */
struct mt_fxt_thread {
	uint64_t pid, tid;
	uint8_t ref;
	uint8_t undefined;
};

/*
 * An argument (1.8). u holds the value of every integer type (uint32,
 * uint64, pointer, koid; int32 and int64 as their two's complement bits;
 * bool as 0 or 1; blob: the payload size); i the same value as Perfetto
 * stores it, a signed 64-bit integer (int32 sign-extended, uint64 cast);
 * d the double; s the string value or the blob payload. Types above 10 are
 * kept with only the name (Perfetto shows them as "unknown").
 */
struct mt_fxt_arg {
	unsigned type;
	unsigned size; /* words, header included */
	struct mt_fxt_str name;
	uint64_t u;
	int64_t i;
	double d;
	struct mt_fxt_str s;
};

struct mt_fxt_provider {
	uint32_t id;
	char *name; /* NUL-terminated copy */
	size_t name_len;
	uint64_t ticks_per_second; /* 1e9 until an initialization record */
	int has_init;              /* an initialization record was read */
	uint32_t gen; /* a new provider-info record makes a new generation */
};

struct mt_fxt_meta {
	unsigned type;          /* enum mt_fxt_meta_type or other */
	uint32_t provider_id;   /* provider info, section, event */
	struct mt_fxt_str name; /* provider info: the provider's name */
	unsigned event;         /* provider event: [52..55] */
	unsigned info_type;     /* trace info: [20..23] (0: magic) */
};

struct mt_fxt_string_rec {
	unsigned index; /* 0: ignored by readers */
	struct mt_fxt_str str;
};

struct mt_fxt_thread_rec {
	unsigned index; /* 0: ignored by readers */
	uint64_t pid, tid;
};

struct mt_fxt_event {
	unsigned type;   /* enum mt_fxt_ev_type, or 11..15 as written */
	struct mt_fxt_thread thread;
	struct mt_fxt_str cat, name;
	uint64_t ts;     /* ticks */
	uint64_t end_ts; /* complete: the end, in ticks (absolute) */
	uint64_t id;     /* counter id, async or flow correlation id */
	unsigned nargs;  /* arguments decoded (all of them unless bad) */
	struct mt_fxt_arg args[MT_FXT_MAX_ARGS];
};

struct mt_fxt_kobj {
	unsigned obj_type; /* MT_FXT_OBJ_PROCESS, MT_FXT_OBJ_THREAD, other */
	uint64_t koid;
	struct mt_fxt_str name;
	unsigned nargs;
	struct mt_fxt_arg args[MT_FXT_MAX_ARGS];
};

struct mt_fxt_record {
	unsigned type;       /* [0..3]: enum mt_fxt_rec_type or other */
	uint64_t header;     /* the header word */
	uint64_t offset;     /* byte offset of the record in the input */
	size_t size;         /* bytes, header included: [4..15] * 8 */
	const unsigned char *raw; /* the whole record */
	/*
	 * bad: the record's fields need more words than its size gives (or an
	 * argument has size 0, or runs past the record); why says which, and
	 * the fields decoded before that are set. The reader goes on with the
	 * next record; a bad string, thread, init or provider record does not
	 * take effect (Perfetto counts fuchsia_record_read_error).
	 */
	int bad;
	const char *why;     /* static text, NULL unless bad */
	unsigned undefined;  /* string refs of this record never registered */
	/*
	 * The current provider after this record took effect, NULL when there
	 * is none (a provider section named an id without provider info:
	 * Perfetto then drops every non-metadata record, 2.3). Records of types
	 * init, string, thread, event and kernel object were resolved and
	 * applied in this provider.
	 */
	const struct mt_fxt_provider *provider;
	union {
		struct mt_fxt_meta meta;
		uint64_t ticks_per_second; /* init */
		struct mt_fxt_string_rec string;
		struct mt_fxt_thread_rec thread;
		struct mt_fxt_event event;
		struct mt_fxt_kobj kobj;
	} u; /* by type; nothing for blob, userspace object, sched, log... */
};

struct mt_fxt_ent;

struct mt_fxt_reader {
	const unsigned char *data;
	size_t len, pos;
	uint64_t base;       /* offset in the file of data[0] (see _feed) */
	int err;             /* sticky fatal error */
	uint64_t err_offset;
	int started;
	uint64_t nrecords;
	struct mt_fxt_provider *provs; /* every provider ever registered */
	size_t nprovs, provcap;
	long cur;            /* index in provs, -1: no current provider */
	struct mt_fxt_ent *tab; /* strings, threads, provider ids: hashed */
	size_t ntab, tabslots;
	char *scratch;       /* NUL-terminated copies of inline strings */
	size_t scratch_used;

	/* reading from a source (mt_fxt_reader_init_fn) */
	mt_read_fn read;
	void *ctx;
	unsigned char *rec;  /* the record read last: MT_FXT_MAX_WORDS words */
	unsigned char *pre;  /* the prefix, then read */
	size_t pre_len, pre_pos;
	/*
	 * After MT_ETRUNCATED: the bytes of the record the input held
	 * (under 8: the header itself is cut); then, and after MT_ECORRUPT,
	 * its header when there are 8 or more.
	 */
	size_t err_have;
	uint64_t err_header;
};

/* Read the len bytes at data (not copied: data must outlive r). */
void mt_fxt_reader_init_mem(struct mt_fxt_reader *r, const void *data,
			    size_t len);

/*
 * Read from a source of bytes (stream.h): the first prefix_len bytes of
 * the input are at prefix (copied: bytes the caller read to sniff the
 * kind of input; NULL, 0 for none), the rest comes from fn(ctx, ...). The
 * reader asks for each record as it needs it, its 8-byte header then the
 * rest, and never for more (so a source's errors come at the record they
 * fall in); a source that is a file should buffer its reads. An error of
 * the source is returned by mt_fxt_next() as it is. Memory: one record.
 * Returns 0 or MT_ENOMEM (r is then released).
 */
int mt_fxt_reader_init_fn(struct mt_fxt_reader *r, mt_read_fn fn, void *ctx,
			  const void *prefix, size_t prefix_len);

/*
 * Go on reading from the len bytes at data, which follow what was read so
 * far in the same file: the string, thread and provider tables carry over,
 * and offsets count from the start of the file. So a caller can read a
 * file record by record without holding all of it. Bytes left unread in
 * the previous buffer are forgotten.
 */
void mt_fxt_reader_feed(struct mt_fxt_reader *r, const void *data, size_t len);

/* Free the tables; r can be initialised again. */
void mt_fxt_reader_release(struct mt_fxt_reader *r);

/*
 * Decode the next record into rec. Returns 1 with a record (also a bad
 * one: see rec->bad), 0 at the end of the input, or a fatal error, after
 * which every call returns the same:
 *   MT_ECORRUPT    a record header of size 0 (Perfetto aborts the import)
 *   MT_ETRUNCATED  the input ends inside a record (Perfetto drops it)
 *   MT_ENOMEM
 *   or what the source returned (mt_fxt_reader_init_fn)
 * mt_fxt_reader_offset() then gives the byte offset of that record, and
 * err_have and err_header what it held. The reader does not insist on the
 * magic: the checker reports it.
 */
int mt_fxt_next(struct mt_fxt_reader *r, struct mt_fxt_record *rec);

/* Byte offset of the last record returned, or of the fatal error. */
static inline uint64_t mt_fxt_reader_offset(const struct mt_fxt_reader *r)
{
	return r->err_offset;
}

/*
 * Ticks to nanoseconds exactly as Perfetto does (TicksToNs): 0 with *ns
 * set, or MT_ERANGE when ticks_per_second is 0 or the result does not fit
 * in a non-negative int64 (fuchsia_timestamp_overflow).
 */
int mt_fxt_ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second,
		       int64_t *ns);

#endif
