/*
 * The output buffer of both writers (writer.h): a quarter of a MiB,
 * written through output.h, which compresses it when asked.
 */
#include <string.h>

#include "output.h"
#include "writer.h"
#include "banned.h"

static unsigned char obuf[1 << 18];
static size_t olen;
static unsigned long long out_bytes;

void out_flush(void)
{
	if (!olen)
		return;
	output_write(obuf, olen);
	out_bytes += olen;
	olen = 0;
}

void out_mem(const void *p, size_t n)
{
	if (n > sizeof(obuf) - olen) {
		out_flush();
		if (n > sizeof(obuf)) {
			const unsigned char *s = p;

			while (n) {
				size_t k = n < sizeof(obuf) ? n : sizeof(obuf);

				memcpy(obuf, s, k);
				olen = k;
				out_flush();
				s += k;
				n -= k;
			}
			return;
		}
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

void out_lit(const char *s)
{
	out_mem(s, strlen(s));
}

unsigned long long out_total(void)
{
	return out_bytes + olen;
}
