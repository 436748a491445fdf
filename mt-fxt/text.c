/*
 * The text of input strings as both formats write them: valid UTF-8, cut
 * to what FXT can hold (writer.h).
 */
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "writer.h"
#include "xalloc.h"
#include "banned.h"

static const struct mt_reader *in;
static const char *in_name;

void text_init(const struct mt_reader *r, const char *name)
{
	in = r;
	in_name = name;
}

/*
 * The length of the UTF-8 sequence at p (n > 0 bytes), or minus the length
 * of the maximal ill-formed subpart there, the bytes that a WHATWG decoder
 * (the Perfetto UI's TextDecoder) turns into one U+FFFD.
 */
static int utf8_next(const unsigned char *p, size_t n)
{
	unsigned lo = 0x80, hi = 0xbf, need;
	size_t i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		need = 1;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 2;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		if (p[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 3;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		if (p[0] == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return -1;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi)
			return -(int)i;
		lo = 0x80;
		hi = 0xbf;
	}
	return (int)need + 1;
}

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/*
 * FXT strings are UTF-8 and JSON must be: each ill-formed subpart of s
 * becomes U+FFFD, as Perfetto's UI would show it anyway (stream strings
 * hold no NUL: the reader refuses them). NULL when s is fine; else a copy
 * to free, *len updated.
 */
static char *utf8_clean(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, n = *len;
	char *out;
	int k;

	while (i < n && p[i] < 0x80)
		i++;
	for (; i < n; i += (size_t)k) {
		k = utf8_next(p + i, n - i);
		if (k < 0)
			break;
	}
	if (i == n)
		return NULL;
	out = xmalloc(3 * n + 1); /* each byte becomes at most 3 */
	memcpy(out, s, i);
	o = i;
	while (i < n) {
		k = utf8_next(p + i, n - i);
		if (k > 0) {
			memcpy(out + o, p + i, (size_t)k);
			o += (size_t)k;
			i += (size_t)k;
		} else {
			memcpy(out + o, REPLACEMENT, 3);
			o += 3;
			i += (size_t)-k;
		}
	}
	*len = o;
	return out;
}

size_t utf8_cut(const char *s, size_t len, size_t keep)
{
	if (keep >= len)
		return len;
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	return keep;
}

/* A record holds at most 4095 words; names stay well inside that. */
#define NAME_MAX_BYTES 32000
#define CUT_MARK "...[cut]"

const char *text_of(uint32_t id, size_t *len, char **tmp)
{
	const char *s = mt_reader_str(in, id, len);
	size_t keep;
	char *cut;

	*tmp = NULL;
	if (!s)
		return NULL;
	*tmp = utf8_clean(s, len);
	if (*tmp)
		s = *tmp;
	if (*len <= NAME_MAX_BYTES)
		return s;
	keep = utf8_cut(s, *len, NAME_MAX_BYTES - (sizeof(CUT_MARK) - 1));
	cut = xmalloc(keep + sizeof(CUT_MARK));
	memcpy(cut, s, keep);
	memcpy(cut + keep, CUT_MARK, sizeof(CUT_MARK));
	free(*tmp);
	*tmp = cut;
	*len = keep + sizeof(CUT_MARK) - 1;
	return cut;
}

const char *text_need(uint32_t id, size_t *len, char **tmp)
{
	const char *s = text_of(id, len, tmp);

	if (!s)
		die(MT_EXIT_DATA, "%s: string id %u is not defined", in_name, id);
	return s;
}
