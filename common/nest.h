/*
 * struct mt_nest: Perfetto's nesting rule, the one implementation of it.
 * Perfetto's SliceTracker (importers/common/slice_tracker.cc) nests the
 * slices of a thread in the order it meets them, sorted by (start, file
 * order); docs/fxt.md 2.6 describes the rule, replayed here statement for
 * statement, its quirks included:
 *
 * - before a slice is pushed, MaybeCloseStack walks the stack from the
 *   top (mt_nest_close): a begun slice not yet ended makes the walk
 *   "incomplete", and a slice below it that ended before the new one's
 *   start is then popped with every slice above it, those being cut at
 *   its end (misplaced_end_event); otherwise a slice that has ended (its
 *   end before the start, or at it: intervals are half-open, but
 *   zero-length slices at the same time stack) pops the top of the stack,
 *   even when it lies below the top; a new slice starting inside an open
 *   one and ending after it partially overlaps it and is dropped;
 * - an end (mt_nest_find_begun, mt_nest_set_end) takes the top-most begun
 *   slice still open and pops it if it is the top.
 *
 * Perfetto walks the whole stack each time; the walk here stops as soon as
 * every slice below ends after the new one's start (and, for a slice with
 * a duration, no earlier than its end), where the rest of the walk could
 * change nothing: time stays linear in the depth of deep recursion. Perfetto's depth limit (MT_FXT_MAX_DEPTH) is the caller's to
 * apply, before mt_nest_push().
 *
 * One stack is one thread: the caller sorts its events and calls
 * mt_nest_clear() between threads. Times are unsigned (ns, or anything
 * ordered); the end of a slice never ended is MT_NEST_PENDING.
 *
 * Ownership: the nest owns its frames and, for each, size bytes of the
 * caller's data (mt_nest_data()), valid until the next push. It never
 * prints or exits; errors are negative MT_E* codes (err.h).
 */
#ifndef MT_NEST_H
#define MT_NEST_H

#include <stddef.h>
#include <stdint.h>

#define MT_NEST_PENDING UINT64_MAX

struct mt_nest_frame {
	uint64_t start, end; /* end: MT_NEST_PENDING for a begun slice */
};

struct mt_nest;

struct mt_nest_ops {
	/*
	 * The top frame leaves the stack: nest->n no longer counts it, and
	 * it is still at nest->f[nest->n] (with its data) until the next
	 * push. Its end is final: MT_NEST_PENDING if it never ended.
	 */
	void (*pop)(void *ctx, struct mt_nest *nest);
	/*
	 * Optional (NULL): the walk for a slice starting at ts found that
	 * frame i ended before ts with begun slices open above it: those are
	 * now cut at its end, and popped with it (misplaced_end_event).
	 */
	void (*cut)(void *ctx, struct mt_nest *nest, size_t i, uint64_t ts);
};

struct mt_nest {
	struct mt_nest_frame *f; /* f[0]: the bottom; f[n - 1]: the top */
	size_t n;
	uint64_t steps; /* frames visited by the walks (the cost, for -v) */

	/* private */
	struct mt_nest_ops ops;
	void *ctx;
	size_t size;         /* bytes of the caller's data a frame */
	unsigned char *data;
	uint64_t *rmin;      /* rmin[i]: the earliest end of f[0 .. i-1] */
	size_t fcap, rcap, dcap;
};

/* An empty stack whose frames carry size bytes of the caller's data (0:
 * none); ops->pop is required; ctx is passed to the ops. */
void mt_nest_init(struct mt_nest *n, size_t size,
		  const struct mt_nest_ops *ops, void *ctx);

/* Free the frames (without popping them); n can be initialised again. */
void mt_nest_release(struct mt_nest *n);

/* The caller's data of frame i (i < n->n, or the frame just popped). */
static inline void *mt_nest_data(const struct mt_nest *n, size_t i)
{
	return n->data + i * n->size;
}

/*
 * MaybeCloseStack for a new slice starting at ts and lasting dur
 * (MT_NEST_PENDING for a begin, 0 for an instant or a zero-length slice),
 * popping (ops->pop) and cutting (ops->cut) frames as the rule says.
 * Returns 1 when the new slice can be pushed, 0 when it partially overlaps
 * frame *over (if over is not NULL) and must be dropped.
 */
int mt_nest_close(struct mt_nest *n, uint64_t ts, uint64_t dur,
		  size_t *over);

/*
 * Push a slice [start, end) (end MT_NEST_PENDING: begun) after
 * mt_nest_close() allowed it: it is frame n->n - 1, at depth n->n - 1,
 * its data zeroed. Returns 0 or MT_ENOMEM (the stack unchanged).
 */
int mt_nest_push(struct mt_nest *n, uint64_t start, uint64_t end);

/*
 * An end at ts (SliceTracker::End with no name): MaybeCloseStack(ts), then
 * the top-most begun frame still open. Returns 1 with it in *i, 0 when no
 * begun frame is open (Perfetto ignores the end). Then mt_nest_set_end().
 */
int mt_nest_find_begun(struct mt_nest *n, uint64_t ts, size_t *i);

/* Frame i (from mt_nest_find_begun()) ends at ts; popped if it is the
 * top. */
void mt_nest_set_end(struct mt_nest *n, size_t i, uint64_t ts);

/* Pop every frame, the top first: the end of a thread. */
void mt_nest_clear(struct mt_nest *n);

#endif
