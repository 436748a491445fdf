#include <string.h>

#include "quote.h"
#include "banned.h"

/* The escape of byte c into e; returns its length (1, 2 or 4). */
static size_t escape(unsigned char c, char e[4], int all)
{
	static const char hex[] = "0123456789abcdef";

	if (!all && c >= 0x20 && c < 0x7f) {
		e[0] = (char)c;
		return 1;
	}
	if (c == '\\' || c == '"') {
		e[0] = '\\', e[1] = (char)c;
		return 2;
	}
	if (c == '\t' || c == '\n' || c == '\r') {
		e[0] = '\\', e[1] = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
		return 2;
	}
	if (c >= 0x20 && c < 0x7f) {
		e[0] = (char)c;
		return 1;
	}
	e[0] = '\\', e[1] = 'x', e[2] = hex[c >> 4], e[3] = hex[c & 15];
	return 4;
}

static char *quote(char *dst, size_t cap, const void *src, size_t n, int all)
{
	const unsigned char *s = src;
	size_t o = 0, i, whole = 0;
	char e[4];

	if (!cap)
		return dst;
	for (i = 0; i < n && whole < cap; i++)
		whole += escape(s[i], e, all);
	for (i = 0; i < n; i++) {
		size_t k = escape(s[i], e, all), dots;

		/*
		 * When the whole text does not fit, keep room for this escape,
		 * "..." and the NUL: then o + 4 <= cap holds at the cut.
		 */
		if (whole >= cap && o + k + 3 + 1 > cap) {
			if (o + 4 > cap)	/* only when cap < 4 */
				o = 0;
			dots = cap - o - 1 < 3 ? cap - o - 1 : 3;
			memcpy(dst + o, "...", dots);
			dst[o + dots] = '\0';
			return dst;
		}
		memcpy(dst + o, e, k);
		o += k;
	}
	dst[o] = '\0';
	return dst;
}

char *mt_quote(char *dst, size_t cap, const void *src, size_t n)
{
	return quote(dst, cap, src, n, 1);
}

char *mt_quote_controls(char *dst, size_t cap, const void *src, size_t n)
{
	return quote(dst, cap, src, n, 0);
}

char *mt_quote_str(char *dst, size_t cap, const char *s)
{
	return mt_quote(dst, cap, s, strlen(s));
}
