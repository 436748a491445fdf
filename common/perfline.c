#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "bytes.h"
#include "err.h"
#include "perfline.h"
#include "perflex.h"
#include "stream.h"
#include "banned.h"

/*
 * perf script prints fixed-order columns with version-dependent padding, and
 * symbol names are printed raw (spaces, commas, "=>", "+" are all possible).
 * So the parser anchors on what cannot vary: the "SECONDS.FRACTION:" time
 * token, the event token ending in ':', the flags vocabulary, the hex
 * address columns, the last " => " followed by an address, and "+0x" offsets
 * before " (dso)".
 * This file: the line, its header, branches and their flags; the lines
 * that are not branches are common/perfevent.c's.
 */

const char MT_PL_UNKNOWN_EVENT[] = "unknown event";

int mt_perf_parse_time(const char *s, size_t len, uint64_t *ns)
{
	const char *dot = memchr(s, '.', len);
	uint64_t sec, frac = 0;
	size_t i, nfrac;
	int err;

	if (!dot || dot == s)
		return MT_ESYNTAX;
	if ((err = parse_dec(s, (size_t)(dot - s), &sec)))
		return err;
	nfrac = len - (size_t)(dot - s) - 1;
	if (!nfrac)
		return MT_ESYNTAX;
	for (i = 0; i < nfrac; i++) {
		char c = dot[1 + i];

		if (!is_digit(c))
			return MT_ESYNTAX;
		if (i < 9)
			frac = frac * 10 + (uint64_t)(c - '0');
	}
	for (; i < 9; i++)
		frac *= 10;
	if (sec > (UINT64_MAX - frac) / 1000000000ull)
		return MT_ERANGE;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* "SECONDS.FRACTION:" */
static int is_time_tok(const struct tok *t)
{
	const char *dot;

	if (t->len < 4 || t->p[t->len - 1] != ':' || !is_digit(t->p[0]))
		return 0;
	dot = memchr(t->p, '.', t->len);
	if (!dot || dot + 1 == t->p + t->len - 1)
		return 0;
	for (const char *c = t->p; c < t->p + t->len - 1; c++)
		if (!is_digit(*c) && c != dot)
			return 0;
	return 1;
}

/* Where the run of hex digits that ends at e starts (e if none). */
static inline const char *hex_run(const char *s, const char *e)
{
	while (e > s && hexval(e[-1]) >= 0)
		e--;
	return e;
}

/* Whether [s, e) ends with "+0xHEX"; h is hex_run(s, e). */
static inline int is_off(const char *s, const char *h, const char *e)
{
	return h < e && h - s >= 3 && h[-1] == 'x' && h[-2] == '0' && h[-3] == '+';
}

static int ends_with_off(const char *s, const char *e)
{
	return is_off(s, hex_run(s, e), e);
}

/* The last '(' in [s, e), or NULL: a DSO column is 10 to 60 bytes, too
 * short for a memrchr call to pay. */
static inline const char *last_paren(const char *s, const char *e)
{
#ifdef __SSE2__
	const __m128i paren = _mm_set1_epi8('(');

	while (e - s >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(e - 16));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, paren));

		if (m)
			return e - 16 + (31 - __builtin_clz(m));
		e -= 16;
	}
#endif
	while (e > s)
		if (*--e == '(')
			return e;
	return NULL;
}

void mt_perf_parse_sym(const char *s, size_t len, struct mt_perf_loc *loc)
{
	const char *end = s + len, *sym_end, *plus;
	/* the hex run before the DSO column, reused for the offset below */
	const char *run_end = NULL, *run = NULL;

	loc->off = MT_NONE64;
	loc->sym.p = loc->dso.p = NULL;
	loc->sym.len = loc->dso.len = 0;
	s = skip_ws(s, end);
	while (end > s && is_ws(end[-1]))
		end--;
	if (end == s)
		return;
	sym_end = end;
	if (end[-1] == ')') {
		/* The DSO is the last " (...)", unless the text before it does
		 * not end in "+0xHEX" and an earlier "+0xHEX (" exists: then
		 * the DSO path itself holds " (". */
		const char *open = NULL;

		for (const char *q = end - 1; q > s;) {
			q = last_paren(s, q);
			if (!q || q == s)
				break;
			if (q[-1] == ' ') {
				open = q - 1;
				break;
			}
		}
		if (open) {
			run_end = open;
			run = hex_run(s, open);
		}
		if (open && !is_off(s, run, open)) {
			for (const char *q = s; (q = find(q, open, " (", 2)); q += 2) {
				if (ends_with_off(s, q)) {
					open = q;
					run_end = NULL;
					break;
				}
			}
		}
		if (open) {
			loc->dso.p = open + 2;
			loc->dso.len = (size_t)(end - 1 - (open + 2));
			sym_end = open;
		} else if (s[0] == '(') {
			/* "(dso)" with no symbol column */
			loc->dso.p = s + 1;
			loc->dso.len = (size_t)(end - 1 - (s + 1));
			sym_end = s;
		}
		if (loc->dso.len == 9 && !memcmp(loc->dso.p, "[unknown]", 9))
			loc->dso.len = 0;
	}
	while (sym_end > s && is_ws(sym_end[-1]))
		sym_end--;
	/* trailing +0xHEX is the offset */
	plus = sym_end == run_end ? run : hex_run(s, sym_end);
	if (is_off(s, plus, sym_end) && (size_t)(sym_end - plus) <= 16) {
		uint64_t off = 0;

		/* at most 16 hex digits: no overflow, no "0x" (not hex) */
		for (const char *c = plus; c < sym_end; c++)
			off = off << 4 | (uint64_t)hexval(*c);
		loc->off = off;
		sym_end = plus - 3;
	}
	if (sym_end - s == 9 && !memcmp(s, "[unknown]", 9))
		sym_end = s;
	loc->sym.p = s;
	loc->sym.len = (size_t)(sym_end - s);
}

/*
 * s[0..e) as mt_perf_parse_sym would read it when it is "SYM+0xHEX (DSO)"
 * with the symbol and DSO of *h (h->dso holding no '(': then the last
 * " (" is the DSO's and the split is the one mt_perf_parse_sym makes, as
 * are the slices, which point into s). Returns 0 when s is not of that
 * shape: the caller parses it in full.
 */
static int quick_loc(const char *s, const char *e, const struct mt_perf_hint *h,
		     struct mt_perf_loc *loc)
{
	const char *q, *x;
	uint64_t off = 0;
	int v;

	while (s < e && is_ws(*s))
		s++;
	while (e > s && is_ws(e[-1]))
		e--;
	if ((size_t)(e - s) < h->sym.len + h->dso.len + 7 || e[-1] != ')' ||
	    !mt_bytes_equal(s, h->sym.p, h->sym.len))
		return 0;
	q = s + h->sym.len;
	if (q[0] != '+' || q[1] != '0' || q[2] != 'x')
		return 0;
	for (x = q += 3; q < e && q - x <= 16 && (v = hexval(*q)) >= 0; q++)
		off = off << 4 | (uint64_t)v;
	if (q == x || q - x > 16 || (size_t)(e - q) != h->dso.len + 3 ||
	    q[0] != ' ' || q[1] != '(' || !mt_bytes_equal(q + 2, h->dso.p, h->dso.len))
		return 0;
	loc->off = off;
	loc->sym.p = s;
	loc->sym.len = h->sym.len;
	loc->dso.p = q + 2;
	loc->dso.len = h->dso.len;
	return 1;
}

/* Whether l's symbol and DSO can be a hint (see struct mt_perf_hint). */
static int hint_of(const struct mt_perf_loc *l, struct mt_perf_hint *h)
{
	if (!l->sym.len || !l->dso.len || memchr(l->dso.p, '(', l->dso.len))
		return 0;
	h->sym = l->sym;
	h->dso = l->dso;
	return 1;
}

/* ---- flags ---- */

enum { FW_NONE, FW_FLAG, FW_RAW };

#define WORD_IS(p, len, s) ((len) == sizeof(s) - 1 && !memcmp(p, s, sizeof(s) - 1))

/* The branch class a flags word names ("call", "jcc", ...), or -1. */
static int branch_word(const char *p, size_t len)
{
	switch (len) {
	case 3:
		if (WORD_IS(p, len, "jcc"))
			return MT_BR_JCC;
		if (WORD_IS(p, len, "jmp"))
			return MT_BR_JMP;
		if (WORD_IS(p, len, "int"))
			return MT_BR_INT;
		break;
	case 4:
		if (WORD_IS(p, len, "call"))
			return MT_BR_CALL;
		if (WORD_IS(p, len, "iret"))
			return MT_BR_IRET;
		break;
	case 5:
		if (WORD_IS(p, len, "async"))
			return MT_BR_ASYNC;
		break;
	case 6:
		if (WORD_IS(p, len, "return"))
			return MT_BR_RETURN;
		if (WORD_IS(p, len, "sysret"))
			return MT_BR_SYSRET;
		if (WORD_IS(p, len, "vmexit"))
			return MT_BR_VMEXIT;
		break;
	case 7:
		if (WORD_IS(p, len, "syscall"))
			return MT_BR_SYSCALL;
		if (WORD_IS(p, len, "vmentry"))
			return MT_BR_VMENTRY;
		break;
	}
	return -1;
}

/* Apply one flags-column token; returns FW_NONE if it is not one. *pend
 * is 'r', 'h' or 'x' while "tr", "hw" or "tx" waits for its second word. */
static int flag_word(const struct tok *t, int *pend, uint8_t *kind,
		     uint16_t *flags)
{
	size_t i;

	if (*pend) {
		int p = *pend;

		*pend = 0;
		if (p == 'r' && tok_is(t, "strt")) {
			*flags |= MT_BF_BEGIN;
			return FW_FLAG;
		}
		if (p == 'r' && tok_is(t, "end")) {
			*flags |= MT_BF_END;
			return FW_FLAG;
		}
		if (p == 'h' && tok_is(t, "int")) {
			*kind = MT_BR_HWINT;
			return FW_FLAG;
		}
		if (p == 'x' && tok_is(t, "abrt")) {
			*kind = MT_BR_TXABORT;
			return FW_FLAG;
		}
		return FW_NONE;
	}
	if (tok_is(t, "tr") || tok_is(t, "hw") || tok_is(t, "tx")) {
		*pend = t->p[0] == 'h' ? 'h' : t->p[1]; /* 'r' or 'x' */
		return FW_FLAG;
	}
	{
		int k = branch_word(t->p, t->len);

		if (k >= 0) {
			*kind = (uint8_t)k;
			return FW_FLAG;
		}
	}
	if (t->len >= 2 && t->p[0] == '(' && t->p[t->len - 1] == ')') {
		for (i = 1; i + 1 < t->len; i++) {
			if (t->p[i] == 'x')
				*flags |= MT_BF_INTX;
			else if (t->p[i] == 'D')
				*flags |= MT_BF_INTRDIS;
			else if (t->p[i] == 't')
				*flags |= MT_BF_INTRTOG;
			else
				return FW_NONE;
		}
		return FW_FLAG;
	}
	if (t->len >= 3 && t->p[0] == '/' && t->p[t->len - 1] == '/') {
		/* perf 6.15+: /miss/, /not_taken/, /miss,not_taken/ */
		if (find(t->p, t->p + t->len, "miss", 4))
			*flags |= MT_BF_MISS;
		if (find(t->p, t->p + t->len, "not_taken", 9))
			*flags |= MT_BF_NOTTAKEN;
		return FW_FLAG;
	}
	/* raw letters, printed when no name matches: "bcrosyiABExghDt?" */
	{
		uint32_t bits = 0;

		for (i = 0; i < t->len; i++) {
			const char *c = memchr(MT_PERF_FLAG_CHARS, t->p[i], 16);

			if (!c)
				return FW_NONE;
			bits |= 1u << (c - MT_PERF_FLAG_CHARS);
		}
		if (!(bits & 1)) /* every branch has b */
			return FW_NONE;
		mt_perf_branch_flags(bits, kind, flags);
		return FW_RAW;
	}
}

/* A bare trace start/end is no branch class, whatever perf printed for it
 * ("tr strt" up to 6.14, "tr strt jmp" from 6.15; raw "bB"). */
static void trace_edge_no_class(uint8_t *kind, const uint16_t *flags)
{
	if ((*flags & (MT_BF_BEGIN | MT_BF_END)) && *kind == MT_BR_JMP)
		*kind = MT_BR_NONE;
}

void mt_perf_branch_flags(uint32_t bits, uint8_t *kind, uint16_t *flags)
{
#define B(ch) (1u << (strchr(MT_PERF_FLAG_CHARS, ch) - MT_PERF_FLAG_CHARS))
	if (bits & B('B'))
		*flags |= MT_BF_BEGIN;
	if (bits & B('E'))
		*flags |= MT_BF_END;
	if (bits & B('x'))
		*flags |= MT_BF_INTX;
	if (bits & B('D'))
		*flags |= MT_BF_INTRDIS;
	if (bits & B('t'))
		*flags |= MT_BF_INTRTOG;
	if (bits & B('A'))
		*kind = MT_BR_TXABORT;
	else if (bits & B('g'))
		*kind = MT_BR_VMENTRY;
	else if (bits & B('h'))
		*kind = MT_BR_VMEXIT;
	else if ((bits & B('c')) && (bits & B('y')))
		*kind = MT_BR_HWINT;
	else if (bits & B('y'))
		*kind = MT_BR_ASYNC;
	else if (bits & B('s'))
		*kind = bits & B('c') ? MT_BR_SYSCALL : MT_BR_SYSRET;
	else if (bits & B('i'))
		*kind = bits & B('c') ? MT_BR_INT : MT_BR_IRET;
	else if (bits & B('c'))
		*kind = MT_BR_CALL;
	else if (bits & B('r'))
		*kind = MT_BR_RETURN;
	else if (bits & B('o'))
		*kind = MT_BR_JCC;
	else
		*kind = MT_BR_JMP;
#undef B
	trace_edge_no_class(kind, flags);
}

/* Consume the flags column at *pos. Returns the number of flag tokens. */
int mt_pl_parse_flags(const char **pos, const char *end, uint8_t *kind,
		      uint16_t *flags)
{
	const char *p = *pos;
	struct tok t;
	int n = 0, pend = 0;

	*kind = MT_BR_NONE;
	while (next_tok(&p, end, &t)) {
		int fw;

		/* an address ends the column (no flag word is lowercase hex) */
		if (!pend && is_lhex(t.p, t.len))
			break;
		fw = flag_word(&t, &pend, kind, flags);
		if (fw == FW_NONE)
			break;
		*pos = p;
		n++;
		if (fw == FW_RAW)
			break;
	}
	trace_edge_no_class(kind, flags);
	return n;
}

/* ---- branches ---- */

/* The first byte at or after p that is not a hex digit (either case), or
 * end. */
static inline const char *hex_end(const char *p, const char *end)
{
#ifdef __SSE2__
	/* signed compares: bytes >= 0x80 are negative, never in a range */
	const __m128i d0 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1);
	const __m128i la = _mm_set1_epi8('a' - 1), lf = _mm_set1_epi8('f' + 1);
	const __m128i lower = _mm_set1_epi8(0x20);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i l = _mm_or_si128(v, lower); /* only 'A'-'F' become 'a'-'f' */
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, d0), _mm_cmplt_epi8(v, d9));
		__m128i let = _mm_and_si128(_mm_cmpgt_epi8(l, la), _mm_cmplt_epi8(l, lf));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, let));

		if (m != 0xffff)
			return p + __builtin_ctz(~m);
		p += 16;
	}
#endif
	while (p < end && hexval(*p) >= 0)
		p++;
	return p;
}

/* The last " => " followed by spaces and an address. Searched from the end
 * for its '=': the target column is short and rarely holds one, while the
 * source column is long. */
static const char *find_arrow(const char *p, const char *end)
{
	const char *eq = end;

	if (end - p < 4)
		return NULL;
	while ((eq = memrchr(p + 1, '=', (size_t)(eq - (p + 1))))) {
		const char *q = eq - 1, *h, *e;

		if (end - q < 4 || q[0] != ' ' || q[2] != '>' || q[3] != ' ')
			continue;
		h = skip_ws(q + 4, end);
		e = hex_end(h, end);
		if (e > h && (e == end || is_ws(*e)))
			return q;
	}
	return NULL;
}

/* The address at p (after blanks); *after is where it ends. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The high bit of each byte of x (all < 128) that lies strictly between m
 * and n; no carry crosses a byte (the bit-hacks "hasbetween"). */
#define BETWEEN(x, m, n)                                                   \
	((ONES * (127 + (n)) - (x)) & ((x) + ONES * (127 - (m))) & HIGHS)

/* Up to 8 lowercase hex digits at p (8 readable bytes): *n says how many
 * lead the word, the value is returned. */
static inline uint64_t hex8(const char *p, int *n)
{
	uint64_t v, low, bad, x;

	memcpy(&v, p, 8);
	low = v & ~HIGHS;
	bad = ~(BETWEEN(low, 0x2f, 0x3a) | BETWEEN(low, 0x60, 0x67)) | (v & HIGHS);
	bad &= HIGHS;
	*n = bad ? __builtin_ctzll(bad) >> 3 : 8;
	if (!*n)
		return 0;
	/* '0'-'9' -> 0-9, 'a'-'f' -> 10-15 (letters have bit 6) */
	x = (v & 0x0f0f0f0f0f0f0f0full) + ((v >> 6) & ONES) * 9;
	if (*n < 8)
		x <<= (8 - *n) * 8;
	x = ((x << 4) + (x >> 8)) & 0x00ff00ff00ff00ffull;
	x = ((x << 8) + (x >> 16)) & 0x0000ffff0000ffffull;
	return ((x << 16) + (x >> 32)) & 0xffffffffull;
}
#endif

static int scan_addr(const char *p, const char *end, uint64_t *ip,
		     const char **after)
{
	const char *start;
	uint64_t x = 0;
	int d;

	p = skip_ws(p, end);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - p >= 24 && p[1] != 'x') {
		int n, m = 0;

		x = hex8(p, &n);
		if (n == 8) {
			uint64_t lo = hex8(p + 8, &m);

			x = x << (4 * m) | lo;
		}
		start = p + n + m;
		/* a 17th digit, an upper-case one or junk: the slow way */
		if (n && !is_ws(*start))
			goto slow;
		if (n) {
			*ip = x;
			*after = start;
			return 0;
		}
	}
slow:
	x = 0;
#endif
	start = p;
	if (end - p >= 2 && p[0] == '0' && p[1] == 'x')
		start = p += 2;
	while (p < end && (d = hexval(*p)) >= 0) {
		x = x << 4 | (uint64_t)d;
		p++;
	}
	if (p == start || p - start > 16 || (p < end && !is_ws(*p)))
		return MT_ESYNTAX;
	*ip = x;
	*after = p;
	return 0;
}

/* "ADDR sym+0xoff (dso)"; *text is where the text after ADDR starts */
static int parse_loc(const char *p, const char *end, struct mt_perf_loc *loc,
		     const char **text)
{
	if (scan_addr(p, end, &loc->ip, text))
		return MT_ESYNTAX;
	mt_perf_parse_sym(*text, (size_t)(end - *text), loc);
	return 0;
}

/* From the text after the source address: the source symbol, then the
 * target. With hint (the fast path), a source of the hint's symbol and
 * DSO, and a target of the source's, are read in a few compares. */
static int branch_tail(const char *text, const char *arrow, const char *end,
		       struct mt_perf_line *out, const char **why,
		       const struct mt_perf_hint *hint)
{
	const char *p = arrow + 4, *cut, *text_to;
	struct mt_perf_hint from_hint;

	if (hint && hint->sym.len && quick_loc(text, arrow, hint, &out->from)) {
		out->from_hinted = 1;
		from_hint = *hint;
	} else {
		mt_perf_parse_sym(text, (size_t)(arrow - text), &out->from);
		if (hint && !hint_of(&out->from, &from_hint))
			hint = NULL;
	}
	/* optional trailing columns: " ilen: N insn: .." and IPC */
	cut = NULL;
	if (end[-1] != ')') {
		cut = find(p, end, " ilen: ", 7);
		if (!cut)
			cut = find(p, end, "IPC: ", 5);
	}
	if (!hint) {
		if (parse_loc(p, cut ? cut : end, &out->to, &text_to)) {
			*why = "expected a hex target address after '=>'";
			return MT_ESYNTAX;
		}
		return 0;
	}
	if (scan_addr(p, cut ? cut : end, &out->to.ip, &text_to)) {
		*why = "expected a hex target address after '=>'";
		return MT_ESYNTAX;
	}
	if (quick_loc(text_to, cut ? cut : end, &from_hint, &out->to))
		out->to_hinted = 1;
	else
		mt_perf_parse_sym(text_to, (size_t)((cut ? cut : end) - text_to), &out->to);
	return 0;
}

static int parse_branch(const char *p, const char *end,
			struct mt_perf_line *out, const char **why)
{
	const char *arrow, *text;

	arrow = find_arrow(p, end);
	if (!arrow) {
		*why = "a branch line needs 'FROM => TO'";
		return MT_ESYNTAX;
	}
	if (!mt_pl_parse_flags(&p, arrow, &out->br_kind, &out->br_flags))
		out->br_flags |= MT_BF_NOFLAGS;
	if (scan_addr(p, arrow, &out->from.ip, &text)) {
		*why = "expected a hex source address after the flags";
		return MT_ESYNTAX;
	}
	return branch_tail(text, arrow, end, out, why, NULL);
}

/* ---- events ---- */

static int known_event(const char *p, size_t len)
{
	static const char *const names[] = {
		"branches", "instructions", "cycles", "cbr", "psb", "ptwrite",
		"mwait", "pwre", "exstop", "pwrx", "evt", "iflag",
		"transactions",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(p, names[i], len))
			return 1;
	/* hardware and software events are hyphenated: cpu-clock, ... */
	return memchr(p, '-', len) != NULL;
}

static int all_modifiers(const char *p, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++) {
		switch (p[i]) {
		case 'u': case 'k': case 'h': case 'H': case 'G': case 'I':
		case 'p': case 'P': case 'S': case 'D': case 'W': case 'e':
		case 'b':
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* "branches:uH", "cache-misses/period=50/u", "probe_x:f", "probe_x:f:u" */
size_t mt_perf_event_name_len(const char *p, size_t len)
{
	const char *slash, *last;

	if (len >= 8 && !memcmp(p, "branches", 8) && (len == 8 || p[8] == ':')) {
		/* the usual case, "branches:uH", quickly */
		return len == 8 || all_modifiers(p + 9, len - 9) ? 8 : len;
	}
	slash = memchr(p, '/', len);
	if (slash)
		return (size_t)(slash - p);
	last = memrchr(p, ':', len);
	if (!last)
		return len;
	if (all_modifiers(last + 1, (size_t)(p + len - last - 1))) {
		const char *first = memchr(p, ':', len);

		if (first != last || known_event(p, (size_t)(first - p)))
			return (size_t)(last - p);
	}
	return len;
}

static void event_name(struct mt_perf_line *out)
{
	out->event_name = out->event;
	out->event_name.len = mt_perf_event_name_len(out->event.p, out->event.len);
}

/* ---- the header: [VM: VCPU:] [comm] [pid/tid] [cpu] [misc] [tod] time ---- */

#define MAX_HEAD_TOKS 32

static int is_date(const struct tok *t)
{
	return t->len == 10 && t->p[4] == '-' && t->p[7] == '-' &&
	       is_digit(t->p[0]) && is_digit(t->p[9]);
}

static int is_clock(const struct tok *t)
{
	return t->len >= 8 && t->p[2] == ':' && t->p[5] == ':' &&
	       is_digit(t->p[0]) && is_digit(t->p[7]);
}

static int parse_head(const struct tok *toks, int n, struct mt_perf_line *out)
{
	int i = n - 1, start = 0;

	if (i >= 1 && is_clock(&toks[i]) && is_date(&toks[i - 1])) {
		out->tod.p = toks[i - 1].p;
		out->tod.len = (size_t)(toks[i].p + toks[i].len - toks[i - 1].p);
		i -= 2;
	}
	if (i >= 1) {
		size_t k;

		for (k = 0; k < toks[i].len && memchr("KUHGgMESp", toks[i].p[k], 9); k++)
			;
		if (k == toks[i].len && k <= 6)
			i--;
	}
	if (i >= 0 && toks[i].len >= 3 && toks[i].p[0] == '[' &&
	    toks[i].p[toks[i].len - 1] == ']') {
		if (parse_u32(toks[i].p + 1, toks[i].len - 2, &out->cpu))
			return MT_ESYNTAX;
		i--;
	}
	if (i >= 0) {
		const char *s = memchr(toks[i].p, '/', toks[i].len);

		if (s) {
			if (!parse_u32(toks[i].p, (size_t)(s - toks[i].p), &out->pid) &&
			    !parse_u32(s + 1, (size_t)(toks[i].p + toks[i].len - s - 1),
				       &out->tid))
				i--;
			else
				out->pid = out->tid = MT_NONE32;
		} else if (!parse_u32(toks[i].p, toks[i].len, &out->tid)) {
			i--;
		}
	}
	if (n >= 2 && starts_with(toks[0].p, toks[0].len, "VM:") &&
	    starts_with(toks[1].p, toks[1].len, "VCPU:"))
		start = 2;
	if (i >= start) {
		out->comm.p = toks[start].p;
		out->comm.len = (size_t)(toks[i].p + toks[i].len - toks[start].p);
	}
	return 0;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Up to 8 decimal digits at p (8 readable bytes) at once: sets *n to how
 * many there are and returns their value. The byte tests and the multiply
 * that adds pairs, then quads, then the two halves are the well-known SWAR
 * recipe for ASCII digits.
 */
static inline uint64_t digits8(const char *p, int *n)
{
	uint64_t v, t, d;

	memcpy(&v, p, 8);
	/* a zero byte in t for each digit */
	t = ((v & 0xf0f0f0f0f0f0f0f0ull) |
	     (((v + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) ^
	    0x3333333333333333ull;
	*n = t ? __builtin_ctzll(t) >> 3 : 8;
	if (!*n)
		return 0;
	d = v - 0x3030303030303030ull;
	if (*n < 8)
		d <<= (8 - *n) * 8; /* the digits, high-aligned, zeros below */
	d = d * 10 + (d >> 8);
	d = (((d & 0x000000ff000000ffull) * 0x000f424000000064ull) +
	     (((d >> 16) & 0x000000ff000000ffull) * 0x0000271000000001ull)) >> 32;
	return d;
}
#endif

/* " PID/TID  SECONDS.FRACTION:" (magic-trace's field order); 0 if the line
 * is laid out otherwise, and the general path takes it. */
static int fast_head(const char *p, const char *end, struct mt_perf_line *out,
		     const char **after)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t pid, tid, sec, frac;
	int n, m;

	p = skip_ws(p, end);
	/* every 8-byte load below stays inside the line */
	if (end - p < 48)
		return 0;
	pid = digits8(p, &n);
	if (!n || n == 8 || p[n] != '/')
		return 0;
	p += n + 1;
	tid = digits8(p, &n);
	if (!n || n == 8 || !is_ws(p[n]))
		return 0;
	p = skip_ws(p + n, end);
	if (end - p < 24)
		return 0;
	sec = digits8(p, &n);
	if (!n || n == 8 || p[n] != '.')
		return 0;
	p += n + 1;
	frac = digits8(p, &n);
	if (n == 8 && is_digit(p[8])) {
		/* --ns: 9 decimals */
		frac = frac * 10 + (uint64_t)(p[8] - '0');
		n = 9;
	}
	m = n;
	if (!n || p[n] != ':' || (n < 9 && is_digit(p[n])))
		return 0;
	while (m++ < 9)
		frac *= 10;
	p += n;
	if (p + 1 < end && !is_ws(p[1]))
		return 0;
	out->pid = (uint32_t)pid;
	out->tid = (uint32_t)tid;
	out->time = sec * 1000000000ull + frac;
	*after = p + 1;
	return 1;
#else
	return 0;
#endif
}

/*
 * The rest of a branch line in the usual layouts, after the time: "[PERIOD]
 * branches[:MODS]:  FLAGS  ADDR sym... => ...", with FLAGS one branch word,
 * or "tr strt" or "tr end" and at most one branch word. It makes the same
 * decisions as the general path (which takes every other line) without
 * tokenizing, and writes nothing to out unless it takes the line. Returns
 * 1 with *ret the line's result, or 0 to leave the line to the general
 * path.
 */
static int fast_branch(const char *p, const char *end, struct mt_perf_line *out,
		       const char **why, int *ret, const struct mt_perf_hint *hint)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *q, *e, *arrow, *a;
	uint64_t period = 0, ip;
	uint16_t flags = 0;
	int kind, n, m;

	q = skip_ws(p, end);
	if (q < end && is_digit(*q)) {
		/* a period that parse_dec takes: at most 19 digits */
		for (e = q; e < end && is_digit(*e) && e - q < 20; e++)
			period = period * 10 + (uint64_t)(*e - '0');
		if (e == end || !is_ws(*e) || e - q > 19)
			return 0;
		q = skip_ws(e, end);
	}
	/* the event: "branches:" or "branches:MODS:" */
	e = find_ws(q, end);
	if (e - q < 9 || memcmp(q, "branches", 8) || e[-1] != ':' ||
	    (e - q > 9 && (q[8] != ':' || !all_modifiers(q + 9, (size_t)(e - q) - 10))))
		return 0;
	arrow = find_arrow(e, end);
	if (!arrow)
		return 0;
	/* the flags column */
	a = skip_ws(e, arrow);
	p = find_ws(a, arrow);
	if (p - a == 2 && a[0] == 't' && a[1] == 'r') {
		a = skip_ws(p, arrow);
		p = find_ws(a, arrow);
		if (p - a == 4 && !memcmp(a, "strt", 4))
			flags = MT_BF_BEGIN;
		else if (p - a == 3 && !memcmp(a, "end", 3))
			flags = MT_BF_END;
		else
			return 0;
		kind = MT_BR_NONE;
		a = skip_ws(p, arrow);
		p = find_ws(a, arrow);
		if ((kind = branch_word(a, (size_t)(p - a))) < 0)
			kind = MT_BR_NONE;
		else
			a = skip_ws(p, arrow);
		if (kind == MT_BR_JMP)
			kind = MT_BR_NONE;
	} else {
		if ((kind = branch_word(a, (size_t)(p - a))) < 0)
			return 0;
		a = skip_ws(p, arrow);
	}
	/* the source address: 1 to 16 lowercase hex digits, then a blank */
	if (a == arrow || end - a < 16)
		return 0;
	ip = hex8(a, &n);
	m = 0;
	if (n == 8) {
		uint64_t lo = hex8(a + 8, &m);

		ip = ip << (4 * m) | lo;
	}
	if (!n || !is_ws(a[n + m]))
		return 0;

	out->period = period;
	out->event.p = q;
	out->event.len = (size_t)(e - q) - 1;
	out->event_name.p = q;
	out->event_name.len = 8;
	out->kind = MT_PL_BRANCH;
	out->br_kind = (uint8_t)kind;
	out->br_flags = flags;
	out->from.ip = ip;
	*ret = branch_tail(a + n + m, arrow, end, out, why, hint);
	return 1;
#else
	return 0;
#endif
}

/* memset() of the ~300-byte result compiles to "rep stosq", whose startup
 * costs more than the stores, and whose stores the loads that follow
 * cannot forward from: plain vector stores instead. GCC would turn the
 * loop back into a memset (inlined as "rep stos", whose start-up alone
 * cost 8% of mt-script-parse on AMD's cores), hence the attribute. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif
static inline void clear_line(struct mt_perf_line *out)
{
#ifdef __SSE2__
	unsigned char *b = (unsigned char *)out;
	size_t i;

	for (i = 0; i + 16 <= sizeof(*out); i += 16)
		_mm_storeu_si128((__m128i *)(void *)(b + i), _mm_setzero_si128());
	for (; i < sizeof(*out); i++)
		b[i] = 0;
#else
	memset(out, 0, sizeof(*out));
#endif
}

/* A call-chain frame line: "\tADDR sym (dso)". */
static int parse_frame_line(const char *line, const char *end,
			    struct mt_perf_line *out, const char **why)
{
	const char *text;

	out->kind = MT_PL_FRAME;
	if (parse_loc(line, end, &out->loc, &text)) {
		*why = "a call-chain frame line needs 'ADDR sym (dso)'";
		return MT_ESYNTAX;
	}
	out->has_loc = 1;
	return 0;
}

/* Where " error type " is in a decoder error line, " instruction trace
 * error type N ...": preceded by words only, in the first 48 bytes; NULL
 * in any other line. */
static const char *error_line(const char *line, const char *end)
{
	const char *e, *q = line;

	if (line[0] != ' ' || line[1] < 'a' || line[1] > 'z')
		return NULL;
	e = find(line, line + (end - line < 48 ? end - line : 48),
		 " error type ", 12);
	if (!e)
		return NULL;
	while (q < e && (is_ws(*q) || (*q >= 'a' && *q <= 'z') ||
			 (*q >= 'A' && *q <= 'Z')))
		q++;
	return q == e ? e : NULL;
}

/* The header, tokenized up to the time token: *p moves past it. */
static int parse_head_slow(const char **p, const char *end,
			   struct mt_perf_line *out, const char **why)
{
	struct tok toks[MAX_HEAD_TOKS], t;
	int n = 0;

	for (;;) {
		if (!next_tok(p, end, &t)) {
			*why = "no 'SECONDS.FRACTION:' time column";
			return MT_ESYNTAX;
		}
		if (is_time_tok(&t))
			break;
		if (n == MAX_HEAD_TOKS) {
			*why = "no 'SECONDS.FRACTION:' time column";
			return MT_ESYNTAX;
		}
		toks[n++] = t;
	}
	if (mt_perf_parse_time(t.p, t.len - 1, &out->time)) {
		*why = "time out of range";
		return MT_ESYNTAX;
	}
	if (parse_head(toks, n, out)) {
		*why = "malformed cpu column";
		return MT_ESYNTAX;
	}
	return 0;
}

/*
 * After the time: "[period] [event:]". Sets the period and event when
 * present and moves *p past what they took; returns 1, with the token in
 * *rec, for a "PERF_RECORD_..." line (then *p is after that token).
 */
static int event_column(const char **p, const char *end,
			struct mt_perf_line *out, struct tok *rec)
{
	const char *q = *p;
	struct tok t, t2;

	if (!next_tok(&q, end, &t))
		return 0;
	if (starts_with(t.p, t.len, "PERF_RECORD_")) {
		*rec = t;
		*p = q;
		return 1;
	}
	if (parse_dec(t.p, t.len, &out->period) == 0) {
		const char *r = q;

		if (next_tok(&r, end, &t2) && t2.p[t2.len - 1] == ':' &&
		    t2.len > 1) {
			t = t2;
			q = r;
		} else {
			out->period = 0;
		}
	}
	if (t.p[t.len - 1] == ':' && t.len > 1 && !is_lhex(t.p, t.len - 1)) {
		out->event.p = t.p;
		out->event.len = t.len - 1;
		event_name(out);
		*p = q;
	}
	return 0;
}

/* The rest of a line after its header and event, by what the event is. */
static int parse_body(const char *p, const char *end, struct mt_perf_line *out,
		      const char **why)
{
	if (!out->event.len && !find_arrow(p, end))
		return mt_pl_no_event(p, end, out, why);
	if (!out->event.len || tok_is(&out->event_name, "branches")) {
		out->kind = MT_PL_BRANCH;
		return parse_branch(p, end, out, why);
	}
	if (mt_pl_is_synth(out)) {
		out->kind = MT_PL_MARK;
		mt_pl_parse_mark(p, end, out);
		return 0;
	}
	if (tok_is(&out->event_name, "instructions")) {
		out->kind = MT_PL_SKIP;
		out->skip_reason = "instructions samples";
		return 0;
	}
	if (memchr(out->event_name.p, ':', out->event_name.len)) {
		const char *q = skip_ws(p, end);

		if (starts_with(out->event_name.p, out->event_name.len, "probe") ||
		    (q < end && *q == '(')) {
			out->kind = MT_PL_PROBE;
			mt_pl_parse_probe(p, end, out);
			return 0;
		}
		out->kind = MT_PL_SKIP;
		out->skip_reason = MT_PL_UNKNOWN_EVENT;
		return 0;
	}
	out->kind = MT_PL_SAMPLE;
	mt_pl_trailing_loc(p, end, out);
	return 0;
}

static int parse_line(const char *line, size_t len, struct mt_perf_line *out,
		      const char **why, int fast, const struct mt_perf_hint *hint)
{
	const char *end = line + len, *p = line, *e;
	struct tok rec;
	int ret;

	clear_line(out);
	out->pid = out->tid = out->cpu = MT_NONE32;
	out->time = MT_NONE64;
	out->from.off = out->to.off = out->loc.off = MT_NONE64;
	*why = "";

	if (end > line && end[-1] == '\r')
		end--;
	while (end > line && end[-1] == ' ')
		end--;
	if (end == line) {
		out->kind = MT_PL_BLANK;
		return 0;
	}
	if (line[0] == '\t')
		return parse_frame_line(line, end, out, why);
	if ((e = error_line(line, end)))
		return mt_pl_parse_error(e + 12, end, out, why);

	/* the usual header, "PID/TID SECONDS.FRACTION:", without tokenizing */
	if (fast && fast_head(line, end, out, &p)) {
		if (fast_branch(p, end, out, why, &ret, hint))
			return ret;
	} else {
		p = line;
		if ((ret = parse_head_slow(&p, end, out, why)))
			return ret;
	}
	if (event_column(&p, end, out, &rec))
		return mt_pl_parse_record_line(&rec, p, end, out, why);
	return parse_body(p, end, out, why);
}

int mt_perf_parse_line(const char *line, size_t len, struct mt_perf_line *out,
		       const char **why)
{
	return parse_line(line, len, out, why, 1, NULL);
}

int mt_perf_parse_line_hinted(const char *line, size_t len,
			      struct mt_perf_line *out, const char **why,
			      const struct mt_perf_hint *hint)
{
	static const struct mt_perf_hint none;

	return parse_line(line, len, out, why, 1, hint ? hint : &none);
}

void mt_perf_hint_after(const struct mt_perf_line *l, struct mt_perf_hint *h)
{
	if (l->kind != MT_PL_BRANCH || !hint_of(&l->to, h))
		h->sym.len = 0;
}

int mt_perf_parse_line_general(const char *line, size_t len,
			       struct mt_perf_line *out, const char **why)
{
	return parse_line(line, len, out, why, 0, NULL);
}
