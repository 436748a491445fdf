/*
 * The direct branches of a run of code: what a patch must not cut into
 * (patch.h). One implementation for the two that read them: the runtime,
 * over the process's memory, and mt-record, over a file's bytes for the
 * cache of targets it gives the runtime (mt-record/patch/patch-cache.h).
 *
 * A target is kept as MTP_TARGET(address, whether a conditional jump goes
 * there), so that sorted, the two of one address are next to each other,
 * the conditional one second.
 *
 * Safe to call from any thread at once on different lists; allocates
 * with realloc only.
 */
#ifndef MT_PATCH_BRANCHES_H
#define MT_PATCH_BRANCHES_H

#include <stddef.h>
#include <stdint.h>

#define MTP_TARGET(at, jcc) ((uint64_t)(at) << 1 | (uint64_t)!!(jcc))
#define MTP_TARGET_AT(t) ((t) >> 1)
#define MTP_TARGET_JCC(t) ((t) & 1)

/* a growing list of targets (zeroed: empty) */
struct mtp_targets {
	uint64_t *v;
	size_t n, cap;
};

/*
 * Adds to t the targets of the relative branches of the code at code,
 * which is at addresses [at, at + size), up to the first instruction the
 * decoder does not know (mtp_decode_walk(); mtp_decode_init() called
 * once before). A branch of the range's own past its first MTP_MAX_COVER
 * bytes, or to its first byte, is left out: it never goes into the bytes
 * a patch of this function replaces. Returns 1 when the whole range was
 * read, 0 when it stopped early, -1 when out of memory (t keeps what it
 * had, and those added before).
 */
int mtp_branch_targets(const uint8_t *code, uint64_t at, uint64_t size, struct mtp_targets *t);

/*
 * A hash of n bytes at p, h the hash of the bytes before them (start
 * with MTP_HASH_INIT): 64 bits to tell whether a process's code is the
 * file's as mt-record read it. Not a defence against anyone: a process
 * that makes its code collide harms itself only.
 */
#define MTP_HASH_INIT 0x6d742d636f646531ull
static inline uint64_t mtp_hash_word_(const unsigned char *b)
{
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	       (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 |
	       (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
}

static inline uint64_t mtp_hash_mix_(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static inline uint64_t mtp_code_hash(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t a0 = h, a1 = ~h, a2 = h ^ 0x5555555555555555ull, a3 = h + n;
	size_t i;

	/* four lanes of 8 bytes: the multiplies run side by side */
	for (; n >= 32; n -= 32, b += 32) {
		a0 = mtp_hash_mix_(a0, mtp_hash_word_(b));
		a1 = mtp_hash_mix_(a1, mtp_hash_word_(b + 8));
		a2 = mtp_hash_mix_(a2, mtp_hash_word_(b + 16));
		a3 = mtp_hash_mix_(a3, mtp_hash_word_(b + 24));
	}
	h = mtp_hash_mix_(mtp_hash_mix_(mtp_hash_mix_(a0, a1), a2), a3);
	for (; n >= 8; n -= 8, b += 8)
		h = mtp_hash_mix_(h, mtp_hash_word_(b));
	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
}

#endif
