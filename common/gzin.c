#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "err.h"
#include "gzin.h"
#include "banned.h"

struct mt_gzin_state {
	z_stream zs;
	int end; /* the last member ended with the input */
	unsigned char in[1 << 16];
};

int mt_gzin_init(struct mt_gzin *g, mt_read_fn fn, void *ctx)
{
	g->read = fn;
	g->ctx = ctx;
	g->err = 0;
	g->why = NULL;
	g->z = calloc(1, sizeof(*g->z));
	if (!g->z)
		return MT_ENOMEM;
	if (inflateInit2(&g->z->zs, 16 + MAX_WBITS) != Z_OK) {
		free(g->z);
		g->z = NULL;
		return MT_ENOMEM;
	}
	return 0;
}

void mt_gzin_release(struct mt_gzin *g)
{
	if (g->z) {
		inflateEnd(&g->z->zs);
		free(g->z);
	}
	g->z = NULL;
}

static ssize_t fail(struct mt_gzin *g, int err, const char *why)
{
	g->err = err;
	g->why = why;
	return err;
}

/* More compressed input: the bytes read, 0 at its end, or an error. */
static ssize_t refill(struct mt_gzin *g)
{
	ssize_t k = g->read(g->ctx, g->z->in, sizeof(g->z->in));

	if (k < 0)
		return fail(g, (int)k, NULL);
	g->z->zs.next_in = g->z->in;
	g->z->zs.avail_in = (uInt)k;
	return k;
}

ssize_t mt_gzin_read(void *ctx, void *buf, size_t n)
{
	struct mt_gzin *g = ctx;
	z_stream *zs = &g->z->zs;
	ssize_t k;

	if (g->err)
		return g->err;
	if (!n)
		return 0;
	if (n > UINT_MAX)
		n = UINT_MAX;
	zs->next_out = buf;
	zs->avail_out = (uInt)n;
	while (zs->avail_out == n && !g->z->end) {
		int zerr;

		if (!zs->avail_in) {
			if ((k = refill(g)) < 0)
				return k;
			if (!k)
				return fail(g, MT_ETRUNCATED, NULL);
		}
		zerr = inflate(zs, Z_NO_FLUSH);
		if (zerr == Z_STREAM_END) {
			/* another member may follow */
			if (!zs->avail_in && (k = refill(g)) < 0)
				return k;
			if (!zs->avail_in)
				g->z->end = 1;
			else if (inflateReset(zs) != Z_OK)
				return fail(g, MT_ECORRUPT, NULL);
		} else if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
			return fail(g, MT_ECORRUPT,
				    zs->msg ? zs->msg : "inflate failed");
		}
	}
	return (ssize_t)(n - zs->avail_out);
}
