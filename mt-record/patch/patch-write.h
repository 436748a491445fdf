/*
 * Many small byte ranges of a held process's code written at once (the
 * entries of a commit, their original bytes at an undo): each run of
 * pages that the ranges touch is read once and written once through
 * /proc/PID/mem, not a read and a write of 5 to 10 bytes a range (each
 * through the kernel's locks and page-table walk: 6,509 functions of
 * python3 made 13,000 of them). Every thread must be held: a run's bytes
 * are written back whole.
 */
#ifndef MT_RECORD_PATCH_WRITE_H
#define MT_RECORD_PATCH_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "inject.h"

struct patch_write {
	size_t tag;          /* the caller's */
	uint64_t at;
	uint32_t len;
	const uint8_t *from; /* the bytes expected there */
	const uint8_t *to;   /* the bytes to write instead */
	int rc;              /* out: PW_WRITTEN, PW_ALREADY, PW_OTHER,
			      * PW_FAILED */
};

enum {
	PW_WRITTEN = 0,   /* they held from, now to */
	PW_ALREADY = 1,   /* they held to already: nothing written */
	PW_OTHER = -1,    /* they held neither: nothing written */
	PW_FAILED = -2    /* they could not be read or written */
};

/* The longest run written at once. */
#define PATCH_WRITE_RUN ((uint64_t)64 << 10)

/* Writes w[0, n) (sorted here by address: ranges that overlap, which
 * none of mt-record's do, are applied in that order), setting each
 * one's rc. A run whose write fails is written a range at a time. */
void patch_write_all(const struct inject *in, struct patch_write *w, size_t n);

#endif
