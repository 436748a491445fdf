/*
 * struct mt_gzin: gzip-compressed data read as a source of bytes
 * (mt_read_fn, stream.h), decompressed from another source: the reading
 * side of common/gzout. Concatenated members (cat a.gz b.gz) read as one.
 *
 * Ownership: the gzin owns zlib's state and its input buffer until
 * mt_gzin_release(). It never prints or exits; errors are negative MT_E*
 * codes (err.h).
 */
#ifndef MT_GZIN_H
#define MT_GZIN_H

#include <stddef.h>
#include <sys/types.h>

#include "stream.h" /* mt_read_fn */

struct mt_gzin_state;

struct mt_gzin {
	mt_read_fn read; /* the compressed bytes */
	void *ctx;
	int err;         /* sticky */
	const char *why; /* MT_ECORRUPT: zlib's message, or NULL */
	struct mt_gzin_state *z;
};

/* Decompress what fn(ctx, ...) reads. Returns 0 or MT_ENOMEM. */
int mt_gzin_init(struct mt_gzin *g, mt_read_fn fn, void *ctx);

void mt_gzin_release(struct mt_gzin *g);

/*
 * An mt_read_fn (ctx: the struct mt_gzin): up to n decompressed bytes,
 * fewer when that is what the input gives at once; 0 at the end of the
 * data. Errors, after which every call returns the same:
 *   MT_ETRUNCATED  the compressed data ends before its end
 *   MT_ECORRUPT    it is not gzip data, or is damaged (why says how, from
 *                  zlib, when it can)
 *   or the error the source returned.
 */
ssize_t mt_gzin_read(void *ctx, void *buf, size_t n);

#endif
