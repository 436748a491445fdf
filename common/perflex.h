/*
 * The perf script line parser's own pieces, shared by common/perfline.c
 * (the line, its header, branches, flags) and common/perfevent.c (the lines
 * that are not branches): token and number primitives, inline because they
 * run several times per line, and what each file calls in the other. Not a
 * contract: common/perfline.h is.
 */
#ifndef MT_PERFLEX_H
#define MT_PERFLEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "err.h"
#include "perfline.h"
#include "stream.h"

#define tok mt_slice /* a whitespace-separated token */

static inline int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* hex digit values, -1 for other bytes */
static const signed char hex_tab[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hexval(char c)
{
	return hex_tab[(unsigned char)c] - 1;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Columns are padded with runs of blanks (28 after the period, up to 20
 * before an address): skip them 16 bytes at a time where SSE2 exists (all of
 * x86-64), else a word at a time. These run several times per line, so they
 * are inline. */
#ifdef __SSE2__
/* The blanks (space, tab) of p[0..16) as bits 0..15. */
static inline unsigned blanks16(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
		_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
}
#endif

static inline const char *skip_ws(const char *p, const char *end)
{
#ifdef __SSE2__
	for (unsigned m; end - p >= 16; p += 16)
		if ((m = blanks16(p)) != 0xffff)
			return p + __builtin_ctz(~m);
#endif
	while (p < end) {
		if (end - p >= 8) {
			uint64_t w;

			memcpy(&w, p, 8);
			w ^= 0x2020202020202020ull;
			if (!w) {
				p += 8;
				continue;
			}
			p += __builtin_ctzll(w) >> 3;
		}
		if (!is_ws(*p))
			return p;
		p++;
	}
	return p;
}

/* The first blank at or after p, or end. */
static inline const char *find_ws(const char *p, const char *end)
{
#ifdef __SSE2__
	for (unsigned m; end - p >= 16; p += 16)
		if ((m = blanks16(p)))
			return p + __builtin_ctz(m);
#endif
	while (end - p >= 8) {
		uint64_t w, a, b;

		memcpy(&w, p, 8);
		a = w ^ 0x2020202020202020ull;
		b = w ^ 0x0909090909090909ull;
		a = (a - ONES) & ~a & HIGHS;
		b = (b - ONES) & ~b & HIGHS;
		if (a | b)
			return p + (__builtin_ctzll(a | b) >> 3);
		p += 8;
	}
	while (p < end && !is_ws(*p))
		p++;
	return p;
}

/* memmem for short needles in short haystacks: glibc's two-way memmem
 * costs more than the whole rest of a line's parsing. The memchr looks for
 * the needle's first non-blank byte, since blanks are everywhere. */
static const char *find(const char *p, const char *end, const char *needle,
			size_t n)
{
	size_t k = 0;

	while (k + 1 < n && needle[k] == ' ')
		k++;
	while (end - p >= (ptrdiff_t)n) {
		const char *c = memchr(p + k, needle[k], (size_t)(end - p) - n + 1);

		if (!c)
			return NULL;
		c -= k;
		if (!memcmp(c, needle, n))
			return c;
		p = c + 1;
	}
	return NULL;
}

/* Next whitespace-separated token at or after *pos; 0 at end. */
static inline int next_tok(const char **pos, const char *end, struct tok *t)
{
	const char *p = skip_ws(*pos, end), *q = find_ws(p, end);

	*pos = q;
	t->p = p;
	t->len = (size_t)(q - p);
	return q > p;
}

static inline int tok_is(const struct tok *t, const char *s)
{
	size_t n = strlen(s);

	return t->len == n && !memcmp(t->p, s, n);
}

static inline int starts_with(const char *p, size_t len, const char *s)
{
	size_t n = strlen(s);

	return len >= n && !memcmp(p, s, n);
}

/* lowercase hex digits only, as perf's %llx prints them */
static inline int is_lhex(const char *p, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (!is_digit(p[i]) && !(p[i] >= 'a' && p[i] <= 'f'))
			return 0;
	return 1;
}

static inline int parse_hex(const char *p, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (len >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		len -= 2;
	}
	if (!len || len > 16)
		return MT_ESYNTAX;
	for (i = 0; i < len; i++) {
		int d = hexval(p[i]);

		if (d < 0)
			return MT_ESYNTAX;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static inline int parse_dec(const char *p, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (!len)
		return MT_ESYNTAX;
	for (i = 0; i < len; i++) {
		uint64_t d = (uint64_t)(p[i] - '0');

		if (!is_digit(p[i]))
			return MT_ESYNTAX;
		if (x > (UINT64_MAX - d) / 10)
			return MT_ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* a u32 field; "-1" (perf's "no cpu") gives MT_NONE32 */
static inline int parse_u32(const char *p, size_t len, uint32_t *v)
{
	uint64_t x;

	if (len == 2 && p[0] == '-' && p[1] == '1') {
		*v = MT_NONE32;
		return 0;
	}
	if (parse_dec(p, len, &x) || x >= MT_NONE32)
		return MT_ESYNTAX;
	*v = (uint32_t)x;
	return 0;
}

/* ---- perfline.c ---- */

/* Consume the flags column at *pos, setting the branch class (MT_BR_*)
 * and MT_BF_* flags. Returns the number of flag tokens. */
int mt_pl_parse_flags(const char **pos, const char *end, uint8_t *kind,
		      uint16_t *flags);

/* ---- perfevent.c: each fills out from the text after the event ---- */

/* The "[ADDR] IP sym+0xoff (dso)" at the end of a non-branch sample. */
void mt_pl_trailing_loc(const char *p, const char *end,
			struct mt_perf_line *out);
/* Whether the event is a synthesized one (sets out->mark_kind), and its
 * text and values. */
int mt_pl_is_synth(struct mt_perf_line *out);
void mt_pl_parse_mark(const char *p, const char *end, struct mt_perf_line *out);
/* A uprobe hit's "(FUNC)" or "(FUNC <- RET)" and location. */
void mt_pl_parse_probe(const char *p, const char *end,
		       struct mt_perf_line *out);
/* A decoder error line from after " error type ". 0 or MT_ESYNTAX with
 * *why set (the same for the next two). */
int mt_pl_parse_error(const char *p, const char *end, struct mt_perf_line *out,
		      const char **why);
/* A "PERF_RECORD_..." line: rec is that token, p what follows it. */
int mt_pl_parse_record_line(const struct tok *rec, const char *p,
			    const char *end, struct mt_perf_line *out,
			    const char **why);
/* A line without an event column that is not a branch. */
int mt_pl_no_event(const char *p, const char *end, struct mt_perf_line *out,
		   const char **why);

#endif
