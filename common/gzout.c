/* Compressed output for output.h: one gzip member, zlib level 6. */
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "die.h"
#include "output.h"
#include "banned.h"

static z_stream zs;
static unsigned char zbuf[1 << 16];

static void pump(int flush)
{
	int r;

	do {
		zs.next_out = zbuf;
		zs.avail_out = sizeof(zbuf);
		r = deflate(&zs, flush);
		if (r == Z_STREAM_ERROR)
			die(MT_EXIT_SYSTEM, "%s: compressing: zlib stream error",
			    output_name());
		write_or_die(STDOUT_FILENO, zbuf, sizeof(zbuf) - zs.avail_out);
	} while (zs.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
}

static void gz_write(const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n) {
		uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;

		zs.next_in = (unsigned char *)s;
		zs.avail_in = k;
		pump(Z_NO_FLUSH);
		s += k;
		n -= k;
	}
}

static void gz_finish(void)
{
	zs.next_in = NULL;
	zs.avail_in = 0;
	pump(Z_FINISH);
	deflateEnd(&zs);
}

void output_gzip(void)
{
	static const struct output_filter gz = { gz_write, gz_finish };

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		die(MT_EXIT_SYSTEM, "out of memory");
	output_set_filter(&gz);
}
