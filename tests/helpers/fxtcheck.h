/*
 * struct mt_fxt_check: an FXT file checked the way Perfetto imports it
 * (docs/fxt.md section 2), for the tests (tests/helpers/fxt-check, the
 * unit tests, the fuzzer). It consumes the records of common/fxtread.h and
 * finds everything Perfetto would drop or misplace, counting it by kind as
 * Perfetto's stats would (enum mt_fxt_problem). At the end it sorts the
 * thread events by (ts, file order) and replays Perfetto's slice tracker on
 * them (2.6), giving every slice Perfetto would create, with its depth, and
 * the process and thread names from kernel objects (2.7). It keeps every
 * thread event in memory until then: memory grows with the number of
 * events. It is a test and check tool, not a streaming converter.
 *
 * Ownership: the checker owns its slices, arguments, names and their
 * strings until mt_fxt_check_release(). It never prints or exits; errors
 * are negative MT_E* codes (err.h).
 */
#ifndef MT_FXTCHECK_H
#define MT_FXTCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "fxtread.h"
#include "intern.h"

/*
 * What the checker counts. Each is something Perfetto would drop, refuse
 * or misplace, or that the project's writer never produces:
 */
enum mt_fxt_problem {
	MT_FXT_BAD_MAGIC,        /* the first 8 bytes are not the magic:
				    Perfetto would not import the file */
	MT_FXT_SIZE_ZERO,        /* a header of size 0: import aborted */
	MT_FXT_TRUNCATED,        /* a trailing partial record, dropped */
	MT_FXT_BAD_RECORD,       /* fields past the record's size (rec->bad);
				    the record is dropped */
	MT_FXT_BAD_RECORD_TYPE,  /* record type other than 0,1,2,3,4,7 (also
				    metadata type 0 or >4, event type >10) */
	MT_FXT_BAD_ARG_TYPE,     /* argument type other than 0..9 */
	MT_FXT_PROVIDER_MISSING, /* a provider section for an id with no
				    provider info, and each non-metadata
				    record then dropped */
	MT_FXT_INIT_MISSING,     /* events of a provider with no initialization
				    record before them (once per provider) */
	MT_FXT_BAD_TICKS,        /* ticks per second other than 1e9 */
	MT_FXT_UNDEFINED_STRING, /* a string index never registered: the event
				    (or kernel object) is dropped */
	MT_FXT_UNDEFINED_THREAD, /* a thread index never registered: pid 0,
				    tid 0 */
	MT_FXT_TIMESTAMP_OVERFLOW, /* ts beyond int64 ns, or a complete event
				      ending before it starts: dropped */
	MT_FXT_KOID_TRUNCATED,   /* a pid or tid >= 2^32: Perfetto truncates */
	MT_FXT_THREAD_PROCESS_ARG, /* a thread object whose "process" arg is
				      not a koid (no name) or is missing
				      (attached to pid 0) */
	MT_FXT_SLICE_DROP_OVERLAPPING, /* a slice partially overlapping an open
					  one, or an equal-start parent after
					  its child: dropped */
	MT_FXT_MISPLACED_END,    /* begun slices truncated to the end of a
				    complete event they outlived */
	MT_FXT_END_WITHOUT_BEGIN, /* an end with no open begun slice: ignored */
	MT_FXT_DID_NOT_END,      /* a begin never ended: shown incomplete */
	MT_FXT_DEPTH_OVER_512,   /* a slice deeper than 512: dropped */
	MT_FXT_NPROBLEMS
};

/* "bad_magic", "size_zero", ...: the names above in lower case, without
 * the prefix. NULL for a value out of range. */
const char *mt_fxt_problem_name(int problem);

#define MT_FXT_EXAMPLES 3

struct mt_fxt_example {
	uint64_t offset; /* byte offset of the record concerned */
	char what[160];  /* one line of text */
};

/* A slice as Perfetto would create it on a thread track. */
struct mt_fxt_slice {
	uint32_t pid, tid;  /* as Perfetto keeps them: cast to 32 bits */
	int64_t start;      /* ns */
	int64_t dur;        /* ns; -1: did not end (on garbage input,
			       Perfetto's cut of slices left open past a
			       complete event can make it negative) */
	unsigned depth;     /* 0: top level */
	uint64_t order;     /* file order of the begin/complete/instant */
	uint64_t offset;    /* its byte offset */
	unsigned ev_type;   /* MT_FXT_EV_BEGIN, _COMPLETE or _INSTANT */
	uint32_t name, cat; /* mt_fxt_check_str() */
	size_t arg0, nargs; /* args[arg0 .. arg0 + nargs) of the checker */
};

/* An argument of a slice (an end event's arguments are added to the slice
 * it closes, as Perfetto does). Strings are ids for mt_fxt_check_str(). */
struct mt_fxt_slice_arg {
	uint32_t name;
	unsigned type; /* enum mt_fxt_arg_type */
	uint64_t u;
	int64_t i;
	double d;
	uint32_t s;
};

/* A process or thread name from a kernel object; the last one written for
 * a pid (process) or (pid, tid) (thread) wins, as in Perfetto. */
struct mt_fxt_name {
	int thread;     /* 0: process name */
	uint32_t pid, tid;
	uint32_t name;  /* mt_fxt_check_str() */
	uint64_t offset;
};

struct mt_fxt_cev;

struct mt_fxt_check {
	/* results, valid after mt_fxt_check_finish() */
	uint64_t nrecords;
	uint64_t count[MT_FXT_NPROBLEMS];
	struct mt_fxt_example ex[MT_FXT_NPROBLEMS][MT_FXT_EXAMPLES];
	struct mt_fxt_slice *slices; /* by (pid, tid, start, file order) */
	size_t nslices;
	struct mt_fxt_slice_arg *args;
	size_t nargs;
	struct mt_fxt_name *names;   /* by (pid, processes first, tid) */
	size_t nnames;
	size_t nthreads;             /* threads with slice events */

	/* private */
	struct mt_intern strs;
	struct mt_fxt_cev *evs;
	size_t nevs, evcap, argcap, slicecap, namecap;
	unsigned char *init_warned; /* by provider generation */
	size_t init_warned_len;
	int seen_first, finished;
};

void mt_fxt_check_init(struct mt_fxt_check *c);
void mt_fxt_check_release(struct mt_fxt_check *c);

/*
 * Consume one record returned by mt_fxt_next(), in file order. Returns 0
 * or MT_ENOMEM (problems are counted, not returned).
 */
int mt_fxt_check_record(struct mt_fxt_check *c,
			const struct mt_fxt_record *rec);

/*
 * Consume the fatal error mt_fxt_next() returned at offset: MT_ECORRUPT
 * counts size_zero, MT_ETRUNCATED truncated; returns 0. Any other code
 * (MT_ENOMEM) is returned as it is.
 */
int mt_fxt_check_error(struct mt_fxt_check *c, int err, uint64_t offset);

/*
 * After the last record: sort the thread events by (pid, tid, ts, file
 * order), replay Perfetto's slice tracker and fill slices, names and the
 * nesting problems. Call it after the last record; a second call does
 * nothing. Returns 0 or MT_ENOMEM.
 */
int mt_fxt_check_finish(struct mt_fxt_check *c);

/* The whole job on len bytes at data: read every record, consume it,
 * finish. Returns 0 or MT_ENOMEM. */
int mt_fxt_check_mem(struct mt_fxt_check *c, const void *data, size_t len);

/* Total of the problem counts. */
uint64_t mt_fxt_check_problems(const struct mt_fxt_check *c);

/* The text of a string id of the checker ("" for 0), with its length. */
const char *mt_fxt_check_str(const struct mt_fxt_check *c, uint32_t id,
			     size_t *len);


#endif
