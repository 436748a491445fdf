/*
 * The mt event stream: reader and writer (docs/format.md is the format).
 *
 * Records are decoded into struct mt_record. String fields hold ids; the
 * reader keeps the table of definitions, so mt_reader_str() turns an id into
 * its text. Everything a record points to (raw bytes, sample frames, strings
 * returned by mt_reader_str) is owned by the reader: raw and frames stay valid
 * until the next mt_reader_next(); strings until the id is redefined or the
 * reader is released.
 *
 * The writer buffers its output, interns strings (emitting a STRING record the
 * first time each is used) and counts records for the END record that
 * mt_writer_finish() appends. Errors are sticky: after a failed write every
 * later call returns the same error.
 */
#ifndef MT_STREAM_H
#define MT_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "intern.h"

#define MT_NONE64 UINT64_MAX
#define MT_NONE32 UINT32_MAX

#define MT_MAGIC "\x89MTS\r\n\x1a\n"
#define MT_MAGIC_LEN 8
#define MT_HEADER_LEN 16
#define MT_VERSION_MAJOR 1
#define MT_VERSION_MINOR 2
#define MT_REC_HDR 4
#define MT_BODY_MAX 0xffffffu

enum mt_rec_type {
	MT_REC_END = 0x00,
	MT_REC_STRING = 0x01,
	MT_REC_THREAD = 0x02,
	MT_REC_BRANCH = 0x03,
	MT_REC_ERROR = 0x04,
	MT_REC_MARK = 0x05,
	MT_REC_SAMPLE = 0x06,
	MT_REC_SPAN = 0x07,
	MT_REC_META = 0x08,
	MT_REC_CRITICAL = 0x80 /* types >= this must be understood */
};

/* Version-1.0 body sizes (SAMPLE: without its frames). */
enum {
	MT_SIZE_END = 16,
	MT_SIZE_STRING = 8,
	MT_SIZE_THREAD = 20,
	MT_SIZE_BRANCH = 72,
	MT_SIZE_ERROR = 52,
	MT_SIZE_MARK = 48,
	MT_SIZE_MARK_REGION = 56, /* 1.1: a region's MARK, its start after */
	MT_SIZE_SAMPLE = 40,
	MT_SIZE_FRAME = 24,
	MT_SIZE_SPAN = 48,
	MT_SIZE_META = 8
};

enum mt_branch_kind {
	MT_BR_NONE = 0,
	MT_BR_CALL,
	MT_BR_RETURN,
	MT_BR_JCC,
	MT_BR_JMP,
	MT_BR_INT,
	MT_BR_IRET,
	MT_BR_SYSCALL,
	MT_BR_SYSRET,
	MT_BR_ASYNC,
	MT_BR_HWINT,
	MT_BR_TXABORT,
	MT_BR_VMENTRY,
	MT_BR_VMEXIT,
	MT_BR_NKINDS
};

enum mt_branch_flag {
	MT_BF_BEGIN = 1 << 0,
	MT_BF_END = 1 << 1,
	MT_BF_INTX = 1 << 2,
	MT_BF_INTRDIS = 1 << 3,
	MT_BF_INTRTOG = 1 << 4,
	MT_BF_PROBE = 1 << 5,
	MT_BF_MISS = 1 << 6,
	MT_BF_NOTTAKEN = 1 << 7,
	MT_BF_NOFLAGS = 1 << 8
};

enum mt_error_class { MT_ERRC_DECODE = 1, MT_ERRC_LOST = 2 };

enum mt_mark_kind {
	MT_MARK_TRIGGER = 1,
	MT_MARK_SNAPSHOT,
	MT_MARK_WALLCLOCK,
	MT_MARK_CBR,
	MT_MARK_PSB,
	MT_MARK_PTWRITE,
	MT_MARK_POWER,
	MT_MARK_EVTRACE,
	MT_MARK_GENERIC,
	MT_MARK_EVENT,
	MT_MARK_REGION,
	MT_MARK_OFF,     /* 1.2: a function no longer recorded from then on
			  * (mt-record --max-overhead): value its calls a
			  * second, ip its address, text its name */
	MT_MARK_NKINDS
};

enum mt_span_kind {
	MT_SPAN_FUNCTION = 1,
	MT_SPAN_UNTRACED,
	MT_SPAN_SYSCALL,
	MT_SPAN_KERNEL,
	MT_SPAN_GAP,
	MT_SPAN_INTERRUPT,
	MT_SPAN_NKINDS
};

enum mt_span_flag {
	MT_SF_INFERRED = 1 << 0,
	MT_SF_OPEN = 1 << 1,
	MT_SF_CLIPSTART = 1 << 2,
	MT_SF_CLIPEND = 1 << 3
};

/* A code location: address, offset in its symbol, symbol and DSO ids. */
struct mt_loc {
	uint64_t ip;
	uint64_t off; /* MT_NONE64: no offset printed */
	uint32_t sym; /* 0: [unknown] */
	uint32_t dso; /* 0: unknown or not printed */
};

struct mt_end {
	uint64_t records;
	uint64_t bytes;
};

struct mt_string {
	uint32_t id;
	uint32_t len;
	const char *p; /* not NUL-terminated in raw; the reader's copy is */
};

struct mt_thread {
	uint32_t pid, tid;
	uint32_t comm;
	uint64_t time;
};

struct mt_branch {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint8_t kind;
	uint16_t flags;
	struct mt_loc from, to;
};

struct mt_error {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint8_t class;
	uint64_t ip;
	uint32_t code;
	uint32_t type;
	uint64_t count;
	uint32_t msg;
};

struct mt_mark {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint8_t kind;
	uint16_t flags;
	uint64_t value;
	uint64_t ip;
	uint32_t name;
	uint32_t text;
	uint64_t start; /* REGION (1.1): where the region began, MT_NONE64
			 * when not known; MT_NONE64 for every other kind */
};

struct mt_sample {
	uint64_t time;
	uint32_t pid, tid, cpu;
	uint16_t flags;
	uint64_t period;
	uint32_t event;
	uint32_t nframes;
	const struct mt_loc *frames; /* leaf first */
};

struct mt_span {
	uint64_t start, end;
	uint32_t pid, tid;
	int32_t depth; /* 0: the level where the thread's trace began */
	uint8_t kind;
	uint16_t flags;
	uint64_t address;
	uint32_t name;
	uint32_t dso;
};

struct mt_meta {
	uint32_t key, value;
};

struct mt_record {
	unsigned type;        /* enum mt_rec_type, or an unknown skippable type */
	uint64_t offset;      /* byte offset of the record in the stream */
	const unsigned char *raw; /* the whole record, header included */
	size_t raw_len;
	union {
		struct mt_end end;
		struct mt_string string;
		struct mt_thread thread;
		struct mt_branch branch;
		struct mt_error error;
		struct mt_mark mark;
		struct mt_sample sample;
		struct mt_span span;
		struct mt_meta meta;
	} u;
};

/* Source of bytes: returns bytes read (0 at end of input) or a negative
 * MT_E* code. */
typedef ssize_t (*mt_read_fn)(void *ctx, void *buf, size_t n);

struct mt_strtab_ent;

struct mt_reader {
	mt_read_fn read;
	void *ctx;
	int fd; /* for mt_reader_init_fd */
	const unsigned char *mem; /* for mt_reader_init_mem */
	size_t mem_len, mem_pos;

	unsigned char *buf;
	size_t cap, start, end;
	uint64_t buf_offset; /* stream offset of buf[0] */
	int eof;

	int started, done;
	uint16_t major, minor;
	uint64_t nrecords;
	uint64_t err_offset;

	struct mt_strtab_ent *strs; /* id -> string, open addressing */
	size_t nstrs, nslots;

	struct mt_loc *frames;
	size_t frames_cap;
	unsigned char end_raw[MT_REC_HDR + MT_SIZE_END];
};

/* Read a stream from fd. The first prefix_len bytes of the stream were
 * already read by the caller (to sniff the magic) and are at prefix; pass
 * NULL, 0 when nothing was read. A pipe is grown as by mt_pipe_grow.
 * Returns 0 or MT_ENOMEM. */
int mt_reader_init_fd(struct mt_reader *r, int fd, const void *prefix,
		      size_t prefix_len);

/* The same from a source of bytes: fn(ctx, ...) (a pipe, gzip data:
 * common/gzin.h); its errors end the read as the reader's. */
int mt_reader_init_fn(struct mt_reader *r, mt_read_fn fn, void *ctx,
		      const void *prefix, size_t prefix_len);

/* Read a stream held in memory (not copied: data must outlive r). */
void mt_reader_init_mem(struct mt_reader *r, const void *data, size_t len);

void mt_reader_release(struct mt_reader *r);

/*
 * Decode the next record into rec. Reads and checks the stream header first.
 * Returns 1 with a record (END included: it is returned once, after its
 * counts were checked and the input was found to end there), 0 after END, or
 * a negative code: MT_EIO, MT_ENOMEM, MT_EMAGIC, MT_EVERSION, MT_ETRUNCATED,
 * MT_ECORRUPT, MT_EUNDEFSTR, MT_ECRITICAL, MT_ECOUNT, MT_ETRAILING. After an
 * error, mt_reader_offset() gives the byte offset where it was found.
 * Records of unknown skippable types come back with only type, offset and
 * raw set.
 */
int mt_reader_next(struct mt_reader *r, struct mt_record *rec);

/* Byte offset of the last record returned, or of the last error. */
static inline uint64_t mt_reader_offset(const struct mt_reader *r)
{
	return r->err_offset;
}

/*
 * After MT_EMAGIC: what the first bytes look like instead, as a phrase for
 * a message ("an FXT trace", "gzip-compressed data", "text" (printable
 * ASCII), "a perf.data file", "an ELF file", "empty"), or NULL when they
 * look like nothing known.
 */
const char *mt_reader_looks_like(const struct mt_reader *r);

/* Text of string id (NUL-terminated) and its length; NULL for id 0 or an
 * undefined id. */
const char *mt_reader_str(const struct mt_reader *r, uint32_t id, size_t *len);

/* Sink of bytes: returns 0 or a negative MT_E* code; must write all n. */
typedef int (*mt_write_fn)(void *ctx, const void *buf, size_t n);

struct mt_writer {
	mt_write_fn write;
	void *ctx;
	int fd;
	unsigned char *buf;
	size_t len, cap;
	uint64_t offset;   /* bytes handed to write() so far */
	uint64_t nrecords;
	int err;           /* sticky error */
	int finished;
	struct mt_intern strings;
};

/*
 * When fd is a pipe, make it hold MT_PIPE_BYTES (1 MiB, Linux's default
 * pipe-max-size, so allowed to anyone) instead of 64 KiB: the tools of a
 * pipeline then wake each other 16 times less often, which is what costs
 * most in a VM (measured: docs/perf.md 3.1). Best effort, never fails.
 */
#define MT_PIPE_BYTES (1 << 20)
void mt_pipe_grow(int fd);

/* Write to fd (loops on short writes and EINTR; EPIPE gives MT_EPIPE). The
 * stream header is buffered at once. A pipe is grown as by mt_pipe_grow.
 * Returns 0 or MT_ENOMEM. */
int mt_writer_init_fd(struct mt_writer *w, int fd);

/* Write through a callback (tests, in-memory streams). */
int mt_writer_init_fn(struct mt_writer *w, mt_write_fn fn, void *ctx);

/* Free the buffer and string table; does not write END (see finish). */
void mt_writer_release(struct mt_writer *w);

/*
 * The id of the len bytes at s, writing a STRING record if this writer has
 * not sent them yet. len 0 gives id 0 (no string) without a record.
 * MT_EINVAL if s contains a NUL byte.
 */
int mt_writer_intern(struct mt_writer *w, const char *s, size_t len,
		     uint32_t *id);

/* Define id explicitly (for tools that copy ids from elsewhere). Do not mix
 * with mt_writer_intern() on the same writer unless the ids are disjoint. */
int mt_write_string(struct mt_writer *w, uint32_t id, const char *s,
		    size_t len);

int mt_write_thread(struct mt_writer *w, const struct mt_thread *t);
int mt_write_branch(struct mt_writer *w, const struct mt_branch *b);
int mt_write_error(struct mt_writer *w, const struct mt_error *e);
int mt_write_mark(struct mt_writer *w, const struct mt_mark *m);
int mt_write_sample(struct mt_writer *w, const struct mt_sample *s);
int mt_write_span(struct mt_writer *w, const struct mt_span *s);
int mt_write_meta(struct mt_writer *w, const struct mt_meta *m);

/* Copy a whole record (header included) as it is: for filters passing on
 * records they do not interpret. MT_ECORRUPT if len disagrees with the
 * record's header, MT_EINVAL for END (finish writes END). */
int mt_write_raw(struct mt_writer *w, const void *rec, size_t len);

/* Send buffered bytes to the sink. */
int mt_writer_flush(struct mt_writer *w);

/* Append END with the counts, and flush. Call once, last. */
int mt_writer_finish(struct mt_writer *w);

#endif
