/*
 * The patch backend's rings read back (plugins/patch-runtime/shm.h): each
 * thread slot's records, merged in time order. The memory is shared with
 * the traced process, which can write any byte of it at any time: every
 * bound used here is mt-record's own (struct patch_layout, chosen when it
 * made the memory), every value read from a slot is clamped to those, and
 * no pass reads outside the mapping, allocates more than its layout fixes
 * or looks at a record more than once. A record that does not check out
 * (a kind or a function the table has not) is left out and counted.
 *
 * No printing, no exit: allocation failures are returned (-1, errno).
 * One struct patch_rings a recording; one struct patch_pass at a time.
 */
#ifndef MT_RECORD_PATCH_RINGS_H
#define MT_RECORD_PATCH_RINGS_H

#include <stddef.h>
#include <stdint.h>

#include "merge.h"

struct mtp_thread;
struct mtp_rec;

/* What mt-record chose when it made the memory: kept by it, never read
 * back. */
struct patch_layout {
	char *base;            /* the mapping (size bytes) */
	uint64_t size;
	uint64_t nrec;         /* records in each ring: a power of two */
	uint64_t threads_off;  /* the first slot */
	uint64_t stride;       /* slot to slot: struct mtp_thread, nrec records */
	uint32_t max_threads;  /* slots */
};

/*
 * Whether l is a layout a pass may read: slots within the mapping, a
 * power-of-two ring in each. 0, or -1.
 */
int patch_layout_check(const struct patch_layout *l);

/* Slot i of l (below l->max_threads). */
struct mtp_thread *patch_slot(const struct patch_layout *l, uint32_t i);

/* The state kept from pass to pass. */
struct patch_rings {
	struct patch_layout l;
	uint64_t *taken;       /* each slot: records written out */
	uint64_t *stalled;     /* each slot's two cursors (its last thread's,
				* its thread's): the record a partial pass
				* stopped at, being written (+1; 0: none) */
	uint32_t *gen_seen;    /* each slot: its gen when last read */
	uint64_t tsc_a, mono_a; /* a (TSC, CLOCK_MONOTONIC) pair: before the
				 * process started, or the last partial pass */
	uint64_t torn;         /* records found half-written or not making
				* sense (left out) */
	uint64_t lost;         /* partial: records overwritten before read */
	int pair_set;          /* the next pass's clock pair, taken before */
	uint64_t pair_tsc, pair_mono;
};

/* r for layout l (checked by patch_layout_check()), its first clock pair
 * read now: 0, or -1 (ENOMEM, or EINVAL for a layout that does not
 * check). */
int patch_rings_init(struct patch_rings *r, const struct patch_layout *l);
void patch_rings_release(struct patch_rings *r);

/* The next pass reads each ring from the oldest record it still holds,
 * those read before too (-o DIR/: each snapshot whole). */
void patch_rings_rewind(struct patch_rings *r);

/* The next pass's clock pair, taken now (a partial pass's: slept for
 * until 10 ms after the last), and the time t of the records' clock as
 * CLOCK_MONOTONIC ns as that pass will give it: a --repeat hit's, its
 * MARKs written before its records. */
uint64_t patch_rings_take_pair(struct patch_rings *r, uint32_t clock, uint64_t t);

/* The other way: the next pass's clock pair taken now (as above), and
 * the time mono (CLOCK_MONOTONIC ns: a breakpoint's or a uprobe's hit) in
 * the records' clock as that pass converts: the pass's until. */
uint64_t patch_rings_raw_of(struct patch_rings *r, uint32_t clock, uint64_t mono);

/* A length of ns nanoseconds in the records' clock: for the TSC, at its
 * rate from r's pair to one taken now (10 ms later at least, slept for);
 * the next pass's pair left as it was. */
uint64_t patch_rings_ticks(const struct patch_rings *r, uint32_t clock, uint64_t ns);

/* A record's time (clock as mtp_header.clock says) as CLOCK_MONOTONIC
 * ns, through the pairs (tsc_a, mono_a) and (tsc_b, mono_b). */
uint64_t patch_to_mono(uint32_t clock, uint64_t t, uint64_t tsc_a, uint64_t mono_a,
		       uint64_t tsc_b, uint64_t mono_b);

/* What a pass gives, in order: each thread's THREAD before its first
 * record, then the records merged in time order. */
struct patch_event {
	int is_thread;         /* a THREAD (pid, tid, comm) */
	uint32_t pid, tid;
	char comm[16];         /* NUL-terminated copy */
	uint32_t func;         /* a record's: below the pass's nfn */
	uint32_t kind;         /* enum mtp_kind */
	uint64_t time;         /* CLOCK_MONOTONIC ns */
};

struct patch_cursor;

struct patch_pass {
	struct patch_rings *r;
	uint32_t nfn, clock, nth;
	uint64_t tsc_b, mono_b, until;
	int partial;
	struct patch_cursor *cur;  /* 2 a slot */
	struct mt_merge heap;      /* those with a record, by time (merge.h;
				    * a source is an index into cur) */
	size_t next_thread;        /* THREAD events given so far */
};

/*
 * Begins a pass over the records written since the last one. nfn: the
 * functions in mt-record's table (a record of another is left out);
 * clock: the runtime's clock (enum mtp_clock; anything else is taken as
 * CLOCK_MONOTONIC); claimed: the slots the runtime says it claimed (the
 * first ones; at most the layout's are read). until not 0: the records
 * after it (the records' clock: a hit's) are left out. partial (the
 * process runs on: --full, --repeat): the records of the last millisecond
 * (with until: those after until), and one being written, are left for
 * the next pass, a half-written record is waited for once, and a ring
 * overwritten since is counted in lost. Sleeps (up to 20 ms) when the
 * clock pair before is that recent, so that the TSC's rate is measured
 * over 20 ms
 * at least. 0, or -1 (ENOMEM).
 */
int patch_pass_begin(struct patch_rings *r, struct patch_pass *ps, uint32_t nfn,
		     uint32_t clock, uint32_t claimed, int partial, uint64_t until);

/* The pass's next event: 1, or 0 at its end. */
int patch_pass_next(struct patch_pass *ps, struct patch_event *ev);

/* Ends the pass: where each ring stopped is kept for the next, and told
 * to the runtime (mtp_thread.drained: a slot may be taken again once read
 * out). */
void patch_pass_end(struct patch_pass *ps);

#endif
