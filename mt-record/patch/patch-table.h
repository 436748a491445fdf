/*
 * The patch backend's function table as mt-record keeps it: its own copy
 * of every entry it wrote into the shared memory
 * (plugins/patch-runtime/shm.h's struct mtp_func), and the runtime's
 * answers read back once and checked. The traced process can write any
 * byte of the shared table: nothing of it is trusted after it is written,
 * and what mt-record undoes, lists or writes out comes from this copy.
 *
 * An earlier session found in a process (its mt-record killed) is read
 * the same way: its header checked against mt-record's own bounds before
 * anything of it is used (patch_stale_check()).
 *
 * No printing, no exit.
 */
#ifndef MT_RECORD_PATCH_TABLE_H
#define MT_RECORD_PATCH_TABLE_H

#include <stdint.h>

#include "shm.h"

/* Threads with a ring; later ones run untraced (counted). */
#define PATCH_MAX_THREADS 256
/* Functions in the table, walkers included. */
#define PATCH_MAX_FUNCS 65536
/* Functions read for their branches (struct mtp_range). */
#define PATCH_MAX_SCAN (1u << 19)
/* Files whose branch targets are given from the cache (struct
 * mtp_given), and those targets, all files together (patch-cache.h). */
#define PATCH_MAX_GIVEN 4096u
#define PATCH_MAX_TARGETS (1u << 22)
/* The table's strings: paths and names. */
#define PATCH_STRINGS_SIZE (8u << 20)

/* mt-record's copy of a table entry. */
struct patch_fn {
	/* mt-record's, as it wrote them: the symbol, its file and name
	 * (offsets in mt-record's copy of the strings), its name as perf
	 * prints it (a demangled copy, or name), its kind (enum mtp_fkind) */
	uint64_t addr, size;
	uint32_t path, name, shown, kind;
	uint32_t flags;  /* enum mtp_fflags */
	/* the runtime's answer (patch_fn_take()), then mt-record's own
	 * (it writes the entries with -p: PATCHED, BUSY, WRITE) */
	uint32_t status, cover;
	int32_t lead;    /* the bytes are [where - lead, where + cover) */
	uint64_t where, stub;
	uint8_t orig[MTP_MAX_COVER];
	uint8_t code[MTP_MAX_COVER];
};

/*
 * The runtime's answer for f, from theirs (the shared entry: copied once,
 * then checked): status, where, stub, cover, lead, the bytes before and
 * the patch. mt-record's own verdict (MTP_FN_PART) stays; the runtime's
 * MTP_FN_PART is taken only for a function mt-record flagged
 * MTP_FF_GUESSED. An answer that
 * does not make sense (a status unknown, a patch prepared or written of
 * fewer than 5 bytes, of fewer than 2 after a lead of 5 or more, of fewer
 * than 5 after a -pg prologue (a lead below 0), of more than
 * MTP_MAX_COVER with its lead, or with no stub) is
 * MTP_FN_BAD_ANSWER: never written, never undone.
 */
void patch_fn_take(struct patch_fn *f, const struct mtp_func *theirs);

/* Whether f holds a patch that may be written or undone: PENDING with a
 * stub (prepared) or PATCHED, cover and lead within bounds. Its bytes
 * (orig, code) are the lead + cover from where - lead. */
int patch_fn_has_patch(const struct patch_fn *f);

/* Where f's patch bytes start, and how many there are (f has a patch). */
static inline uint64_t patch_fn_at(const struct patch_fn *f)
{
	return f->where - (uint64_t)(int64_t)f->lead;
}

static inline uint32_t patch_fn_len(const struct patch_fn *f)
{
	return (uint32_t)((int64_t)f->lead + f->cover);
}

/* The runtime's code [lo, hi) as the process says it is: into *olo and
 * *ohi, or 0 and 0 when that makes no sense (empty, or more than 64 MiB:
 * libmt-patch.so's code is far smaller). */
void patch_own_code(uint64_t lo, uint64_t hi, uint64_t *olo, uint64_t *ohi);

/* An earlier session's bounds, from its header (read from the process):
 * how much of it mt-record may read. */
struct patch_stale {
	uint64_t funcs_off;    /* the table, from the header's address */
	uint32_t nfuncs;       /* at most PATCH_MAX_FUNCS */
	uint64_t threads_off, thread_stride;
	uint32_t nthreads;     /* slots to read: at most PATCH_MAX_THREADS */
	uint64_t tramp, own_lo, own_hi; /* own_lo = own_hi = 0 when they made no
					 * sense (more than 64 MiB) */
	uint64_t live_at;      /* 0 when not 4-aligned */
	int64_t busy_tls;      /* 0 when not 4-aligned or beyond 1 GiB */
};

/*
 * Whether h is the header of a session of this runtime's version whose
 * bounds mt-record may follow: into s. 0, or -1 (not one: nothing of it
 * is to be used).
 */
int patch_stale_check(const struct mtp_header *h, struct patch_stale *s);

#endif
