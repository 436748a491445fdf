/*
 * mt-asm: the inverse of mt-dump. Reads records in mt-dump's text form
 * (docs/format.md section 6) and writes an mt stream, so tests can write
 * their input streams by hand.
 *
 * usage: mt-asm [file]
 *
 * One record a line, as mt-dump prints it; the offset column is optional and
 * ignored. Blank lines and lines starting with # are comments. HEADER, END
 * and STRING lines are ignored: the writer makes its own header, END and
 * STRING records (strings are interned from the quoted text, so their ids
 * may differ from the dumped ones). Fields keep mt-dump's order but any may
 * be left out: times, pid, tid and cpu default to none, offsets to none,
 * strings to none, everything else to 0. UNKNOWN lines are written raw.
 * A line that does not parse stops us with FILE:LINE and exit 1.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "die.h"
#include "err.h"
#include "names.h"
#include "stream.h"
#include "wire.h"
#include "xalloc.h"
#include "banned.h"

static const char usage_text[] = "usage: mt-asm [file]\n";

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The names are common/names.c's, which mt-dump prints. */

/* Every field name of every record; each record lists its own, in order. */
enum field {
	F_TIME, F_PID, F_TID, F_CPU, F_KIND, F_FLAGS, F_FROM, F_TO, F_COMM,
	F_CLASS, F_IP, F_CODE, F_TYPE, F_COUNT, F_MSG, F_VALUE, F_NAME, F_TEXT,
	F_PERIOD, F_EVENT, F_NFRAMES, F_FRAMES, F_START, F_END, F_DEPTH,
	F_ADDRESS, F_DSO, F_KEY, F_LEN, F_BODY,
	F_DONE /* ends a list; next_field() returns it at the end of the line */
};
static const char *const field_names[] = {
	"time", "pid", "tid", "cpu", "kind", "flags", "from", "to", "comm",
	"class", "ip", "code", "type", "count", "msg", "value", "name", "text",
	"period", "event", "nframes", "frames", "start", "end", "depth",
	"address", "dso", "key", "len", "body",
};

/* The line being parsed, for the cursor and for messages. */
struct line {
	const char *file;
	unsigned long lineno;
	const char *p;          /* cursor */
	const char *rec;        /* record name, once known */
	const char *field;      /* field whose value is being parsed */
	const enum field *list; /* the record's fields, F_DONE-terminated */
	size_t next;            /* index in list after the last field seen */
};

/* The string given to the empty quoted string "": interning gives "" id 0
 * (none), so it gets an id of its own, far above the interned ones. */
#define EMPTY_ID UINT32_MAX

/* Globals, so that what they hold stays reachable when we die. */
static struct mt_writer w;
static int empty_defined;
static struct mt_buf sbuf;  /* a decoded string, or an UNKNOWN record */
static struct mt_loc *frames;
static size_t frames_cap;
static char *text;          /* the input line (getline) */
static size_t text_cap;

static _Noreturn void __attribute__((format(printf, 2, 3)))
bad(const struct line *l, const char *fmt, ...)
{
	char msg[256], where[128], near[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->rec && l->field)
		snprintf(where, sizeof(where), "%s %s=: ", l->rec, l->field);
	else if (l->rec)
		snprintf(where, sizeof(where), "%s: ", l->rec);
	else
		where[0] = '\0';
	if (*l->p)
		snprintf(near, sizeof(near), "near '%.24s%s'", l->p,
			 strlen(l->p) > 24 ? "..." : "");
	else
		snprintf(near, sizeof(near), "at end of line");
	die(MT_EXIT_DATA, "%s:%lu: %s%s, %s", l->file, l->lineno, where, msg,
	    near);
}

/* A writer error: the record of this line could not be written. */
static void check(const struct line *l, int err)
{
	if (err)
		die_mt(err, "%s:%lu: %s", l->file, l->lineno,
		       l->rec ? l->rec : "writing");
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void skip_spaces(struct line *l)
{
	while (is_space(*l->p))
		l->p++;
}

/* Length of the word at p: up to a space, the end, or one of stop. */
static size_t word_len(const char *p, const char *stop)
{
	size_t n = 0;

	while (p[n] && !is_space(p[n]) && !strchr(stop, p[n]))
		n++;
	return n;
}

static int digit(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits in base at the cursor into *v; returns how many there were. */
static int get_digits(struct line *l, unsigned base, uint64_t *v)
{
	const char *p = l->p;
	int d, n = 0;

	*v = 0;
	for (; (d = digit(*p, base)) >= 0; p++, n++) {
		if (*v > (UINT64_MAX - (unsigned)d) / base)
			bad(l, "number too large");
		*v = *v * base + (unsigned)d;
	}
	l->p = p;
	return n;
}

/* A number: 0x and hex digits, or decimal digits. */
static uint64_t get_u64(struct line *l, const char *what)
{
	unsigned base = 10;
	uint64_t v;

	if (l->p[0] == '0' && (l->p[1] == 'x' || l->p[1] == 'X')) {
		base = 16;
		l->p += 2;
	}
	if (!get_digits(l, base, &v))
		bad(l, "expected %s", what);
	return v;
}

static uint64_t get_max(struct line *l, const char *what, uint64_t max)
{
	const char *start = l->p;
	uint64_t v = get_u64(l, what);

	if (v > max) {
		l->p = start;
		bad(l, "number too large (at most %llu)",
		    (unsigned long long)max);
	}
	return v;
}

/* SECONDS[.NANOSECONDS] with up to 9 decimals, or - for none. */
static uint64_t get_time(struct line *l)
{
	const char *start = l->p;
	uint64_t sec, ns = 0;
	int n = 0;

	if (*l->p == '-') {
		l->p++;
		return MT_NONE64;
	}
	if (!get_digits(l, 10, &sec))
		bad(l, "expected a time: SECONDS.NANOSECONDS or -");
	if (*l->p == '.') {
		l->p++;
		n = get_digits(l, 10, &ns);
		if (n < 1 || n > 9) {
			l->p = start;
			bad(l, "expected a time: SECONDS.NANOSECONDS (1 to 9 decimals) or -");
		}
		for (; n < 9; n++)
			ns *= 10;
	}
	if (sec > (UINT64_MAX - ns) / 1000000000u) {
		l->p = start;
		bad(l, "time too large");
	}
	return sec * 1000000000u + ns;
}

/* pid, tid, cpu: a number or - for none. */
static uint32_t get_id32(struct line *l)
{
	if (*l->p == '-') {
		l->p++;
		return MT_NONE32;
	}
	return (uint32_t)get_max(l, "a number or -", UINT32_MAX);
}

static int32_t get_depth(struct line *l)
{
	const char *start = l->p;
	int neg = *l->p == '-';
	uint64_t v;

	if (neg)
		l->p++;
	if (!get_digits(l, 10, &v))
		bad(l, "expected a signed decimal depth");
	if (v > (uint64_t)INT32_MAX + (unsigned)neg) {
		l->p = start;
		bad(l, "depth out of range (%d to %d)", INT32_MIN, INT32_MAX);
	}
	return neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
}

/* The id for the len bytes at s (the empty string has its own). */
static uint32_t intern(struct line *l, const char *s, size_t len)
{
	uint32_t id;

	if (!len) {
		if (!empty_defined)
			check(l, mt_write_string(&w, EMPTY_ID, "", 0));
		empty_defined = 1;
		return EMPTY_ID;
	}
	check(l, mt_writer_intern(&w, s, len, &id));
	return id;
}

/* A quoted string with mt-dump's escapes, or - for none. */
static uint32_t get_str(struct line *l)
{
	const char *start = l->p, *p;
	char c;
	int hi, lo;

	if (*l->p == '-') {
		l->p++;
		return 0;
	}
	if (*l->p != '"')
		bad(l, "expected a quoted string or -");
	mt_buf_reset(&sbuf);
	for (p = start + 1; *p != '"'; p++) {
		c = *p;
		if (!c)
			bad(l, "unterminated string");
		if (c == '\\') {
			l->p = p; /* a bad escape is shown from its backslash */
			switch (*++p) {
			case '"':
			case '\\':
				c = *p;
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'x':
				if ((hi = digit(p[1], 16)) < 0 ||
				    (lo = digit(p[2], 16)) < 0)
					bad(l, "expected \\xHH");
				if (!(c = (char)(hi << 4 | lo)))
					bad(l, "a string cannot hold a NUL byte");
				p += 2;
				break;
			default:
				bad(l, "expected an escape: \\\" \\\\ \\n \\t or \\xHH");
			}
			l->p = start;
		}
		if (mt_buf_add(&sbuf, &c, 1))
			die(MT_EXIT_SYSTEM, "out of memory");
	}
	l->p = p + 1;
	return intern(l, sbuf.p ? sbuf.p : "", sbuf.len);
}

/* ADDR SYM[+OFF] DSO */
static void get_loc(struct line *l, struct mt_loc *loc)
{
	loc->ip = get_u64(l, "an address");
	if (!is_space(*l->p))
		bad(l, "expected ' ' after the address");
	skip_spaces(l);
	loc->sym = get_str(l);
	loc->off = MT_NONE64;
	if (*l->p == '+') {
		l->p++;
		loc->off = get_u64(l, "an offset");
	}
	if (!is_space(*l->p))
		bad(l, "expected ' ' and a DSO after the symbol");
	skip_spaces(l);
	loc->dso = get_str(l);
}

/*
 * A name of names[] (sets *named and returns its index), else a number up to
 * max. The name ends at a space, the end of the line or a character of stop.
 */
static unsigned get_name(struct line *l, const char *const *names, size_t n,
			 const char *stop, uint64_t max, const char *what,
			 int *named)
{
	size_t len = word_len(l->p, stop), i;

	*named = 0;
	for (i = 0; i < n; i++) {
		if (names[i] && strlen(names[i]) == len &&
		    !memcmp(names[i], l->p, len)) {
			l->p += len;
			*named = 1;
			return (unsigned)i;
		}
	}
	if (digit(*l->p, 10) < 0)
		bad(l, "expected %s", what);
	return (unsigned)get_max(l, what, max);
}

static uint8_t get_kind(struct line *l, const char *const *names, size_t n)
{
	int named;

	return (uint8_t)get_name(l, names, n, "", UINT8_MAX,
				 "a kind name or number", &named);
}

/* NAME|NAME|0xBITS, or - for none. */
static uint16_t get_flags(struct line *l, const char *const *names, size_t n)
{
	unsigned v = 0, bits;
	int named;

	if (*l->p == '-') {
		l->p++;
		return 0;
	}
	for (;;) {
		bits = get_name(l, names, n, "|", UINT16_MAX,
				"flag names or numbers joined by |, or -",
				&named);
		v |= named ? 1u << bits : bits;
		if (*l->p != '|')
			return (uint16_t)v;
		l->p++;
	}
}

/* [LOC, LOC, ...] into frames; returns how many. */
static uint32_t get_frames(struct line *l)
{
	uint32_t n = 0;

	if (*l->p != '[')
		bad(l, "expected [LOC, LOC, ...]");
	l->p++;
	skip_spaces(l);
	if (*l->p == ']') {
		l->p++;
		return 0;
	}
	for (;;) {
		if (n == frames_cap) {
			frames_cap = frames_cap ? 2 * frames_cap : 16;
			frames = xrealloc(frames, frames_cap, sizeof(*frames));
		}
		get_loc(l, &frames[n++]);
		skip_spaces(l);
		if (*l->p == ']') {
			l->p++;
			return n;
		}
		if (*l->p != ',')
			bad(l, "expected ', ' or ']' after a frame");
		l->p++;
		skip_spaces(l);
	}
}

/*
 * The next NAME= of the line, which must come later in l->list than the
 * last one; F_DONE at the end of the line. Checks that the previous value
 * ended where it should, at a space.
 */
static enum field next_field(struct line *l)
{
	size_t len, i;
	char names[256];
	size_t used = 0;

	if (*l->p && !is_space(*l->p))
		bad(l, "unexpected text after the value");
	l->field = NULL;
	skip_spaces(l);
	if (!*l->p)
		return F_DONE;
	len = word_len(l->p, "=");
	for (i = l->next; l->list[i] != F_DONE; i++) {
		const char *name = field_names[l->list[i]];

		if (strlen(name) == len && !memcmp(name, l->p, len) &&
		    l->p[len] == '=') {
			l->next = i + 1;
			l->field = name;
			l->p += len + 1;
			return l->list[i];
		}
	}
	for (i = 0; l->list[i] != F_DONE && used < sizeof(names); i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 " %s", field_names[l->list[i]]);
	if (l->p[len] != '=')
		bad(l, "expected NAME=VALUE (fields:%s)", names);
	for (i = 0; i < l->next; i++)
		if (strlen(field_names[l->list[i]]) == len &&
		    !memcmp(field_names[l->list[i]], l->p, len))
			bad(l, "field repeated or out of order (order:%s)",
			    names);
	bad(l, "unknown field (fields:%s)", names);
}

static void asm_thread(struct line *l)
{
	static const enum field list[] = { F_PID, F_TID, F_COMM, F_TIME,
					   F_DONE };
	struct mt_thread t = {
		.pid = MT_NONE32, .tid = MT_NONE32, .comm = 0, .time = MT_NONE64
	};
	enum field f;

	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_PID: t.pid = get_id32(l); break;
		case F_TID: t.tid = get_id32(l); break;
		case F_COMM: t.comm = get_str(l); break;
		case F_TIME: t.time = get_time(l); break;
		default: break; /* not in list */
		}
	}
	check(l, mt_write_thread(&w, &t));
}

static void asm_branch(struct line *l)
{
	static const enum field list[] = { F_TIME, F_PID, F_TID, F_CPU,
					   F_KIND, F_FLAGS, F_FROM, F_TO,
					   F_DONE };
	struct mt_branch b;
	enum field f;

	memset(&b, 0, sizeof(b));
	b.time = MT_NONE64;
	b.pid = b.tid = b.cpu = MT_NONE32;
	b.from.off = b.to.off = MT_NONE64;
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_TIME: b.time = get_time(l); break;
		case F_PID: b.pid = get_id32(l); break;
		case F_TID: b.tid = get_id32(l); break;
		case F_CPU: b.cpu = get_id32(l); break;
		case F_KIND:
			b.kind = get_kind(l, mt_branch_kind_names, NELEM(mt_branch_kind_names));
			break;
		case F_FLAGS:
			b.flags = get_flags(l, mt_branch_flag_names, NELEM(mt_branch_flag_names));
			break;
		case F_FROM: get_loc(l, &b.from); break;
		case F_TO: get_loc(l, &b.to); break;
		default: break; /* not in list */
		}
	}
	check(l, mt_write_branch(&w, &b));
}

static void asm_error(struct line *l)
{
	static const enum field list[] = { F_TIME, F_PID, F_TID, F_CPU,
					   F_CLASS, F_IP, F_CODE, F_TYPE,
					   F_COUNT, F_MSG, F_DONE };
	struct mt_error e;
	enum field f;

	memset(&e, 0, sizeof(e));
	e.time = MT_NONE64;
	e.pid = e.tid = e.cpu = MT_NONE32;
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_TIME: e.time = get_time(l); break;
		case F_PID: e.pid = get_id32(l); break;
		case F_TID: e.tid = get_id32(l); break;
		case F_CPU: e.cpu = get_id32(l); break;
		case F_CLASS:
			e.class = get_kind(l, mt_error_class_names,
					   NELEM(mt_error_class_names));
			break;
		case F_IP: e.ip = get_u64(l, "an address"); break;
		case F_CODE:
			e.code = (uint32_t)get_max(l, "a number", UINT32_MAX);
			break;
		case F_TYPE:
			e.type = (uint32_t)get_max(l, "a number", UINT32_MAX);
			break;
		case F_COUNT: e.count = get_u64(l, "a number"); break;
		case F_MSG: e.msg = get_str(l); break;
		default: break; /* not in list */
		}
	}
	check(l, mt_write_error(&w, &e));
}

static void asm_mark(struct line *l)
{
	static const enum field list[] = { F_TIME, F_PID, F_TID, F_CPU,
					   F_KIND, F_FLAGS, F_VALUE, F_IP,
					   F_NAME, F_TEXT, F_START, F_DONE };
	struct mt_mark m;
	enum field f;

	memset(&m, 0, sizeof(m));
	m.time = m.start = MT_NONE64;
	m.pid = m.tid = m.cpu = MT_NONE32;
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_TIME: m.time = get_time(l); break;
		case F_PID: m.pid = get_id32(l); break;
		case F_TID: m.tid = get_id32(l); break;
		case F_CPU: m.cpu = get_id32(l); break;
		case F_KIND:
			m.kind = get_kind(l, mt_mark_kind_names, NELEM(mt_mark_kind_names));
			break;
		case F_FLAGS: m.flags = get_flags(l, NULL, 0); break;
		case F_VALUE: m.value = get_u64(l, "a number"); break;
		case F_IP: m.ip = get_u64(l, "an address"); break;
		case F_NAME: m.name = get_str(l); break;
		case F_TEXT: m.text = get_str(l); break;
		case F_START: m.start = get_time(l); break; /* a region's */
		default: break; /* not in list */
		}
	}
	check(l, mt_write_mark(&w, &m));
}

static void asm_sample(struct line *l)
{
	static const enum field list[] = { F_TIME, F_PID, F_TID, F_CPU,
					   F_FLAGS, F_PERIOD, F_EVENT,
					   F_NFRAMES, F_FRAMES, F_DONE };
	struct mt_sample s;
	uint64_t nframes = MT_NONE64;
	enum field f;

	memset(&s, 0, sizeof(s));
	s.time = MT_NONE64;
	s.pid = s.tid = s.cpu = MT_NONE32;
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_TIME: s.time = get_time(l); break;
		case F_PID: s.pid = get_id32(l); break;
		case F_TID: s.tid = get_id32(l); break;
		case F_CPU: s.cpu = get_id32(l); break;
		case F_FLAGS: s.flags = get_flags(l, NULL, 0); break;
		case F_PERIOD: s.period = get_u64(l, "a number"); break;
		case F_EVENT: s.event = get_str(l); break;
		case F_NFRAMES:
			nframes = get_max(l, "a number", UINT32_MAX);
			break;
		case F_FRAMES: s.nframes = get_frames(l); break;
		default: break; /* not in list */
		}
	}
	if (nframes != MT_NONE64 && nframes != s.nframes) {
		l->field = NULL;
		bad(l, "nframes=%llu but %lu frames",
		    (unsigned long long)nframes, (unsigned long)s.nframes);
	}
	s.frames = frames;
	check(l, mt_write_sample(&w, &s));
}

static void asm_span(struct line *l)
{
	static const enum field list[] = { F_START, F_END, F_PID, F_TID,
					   F_DEPTH, F_KIND, F_FLAGS,
					   F_ADDRESS, F_NAME, F_DSO, F_DONE };
	struct mt_span s;
	enum field f;

	memset(&s, 0, sizeof(s));
	s.start = s.end = MT_NONE64;
	s.pid = s.tid = MT_NONE32;
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		switch (f) {
		case F_START: s.start = get_time(l); break;
		case F_END: s.end = get_time(l); break;
		case F_PID: s.pid = get_id32(l); break;
		case F_TID: s.tid = get_id32(l); break;
		case F_DEPTH: s.depth = get_depth(l); break;
		case F_KIND:
			s.kind = get_kind(l, mt_span_kind_names, NELEM(mt_span_kind_names));
			break;
		case F_FLAGS:
			s.flags = get_flags(l, mt_span_flag_names, NELEM(mt_span_flag_names));
			break;
		case F_ADDRESS: s.address = get_u64(l, "an address"); break;
		case F_NAME: s.name = get_str(l); break;
		case F_DSO: s.dso = get_str(l); break;
		default: break; /* not in list */
		}
	}
	check(l, mt_write_span(&w, &s));
}

static void asm_meta(struct line *l)
{
	static const enum field list[] = { F_KEY, F_VALUE, F_DONE };
	struct mt_meta m = { .key = 0, .value = 0 };
	enum field f;

	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		if (f == F_KEY)
			m.key = get_str(l);
		else
			m.value = get_str(l);
	}
	check(l, mt_write_meta(&w, &m));
}

/* type=0xNN len=L body=HEX: written as it is, whatever the type. */
static void asm_unknown(struct line *l)
{
	static const enum field list[] = { F_TYPE, F_LEN, F_BODY, F_DONE };
	unsigned char hdr[MT_REC_HDR] = { 0 }, byte;
	uint64_t len = MT_NONE64;
	int have_type = 0;
	enum field f;

	mt_buf_reset(&sbuf);
	if (mt_buf_add(&sbuf, hdr, sizeof(hdr)))
		die(MT_EXIT_SYSTEM, "out of memory");
	l->list = list;
	while ((f = next_field(l)) != F_DONE) {
		if (f == F_TYPE) {
			sbuf.p[0] = (char)get_max(l, "a record type", 0xff);
			have_type = 1;
		} else if (f == F_LEN) {
			len = get_max(l, "a length", MT_BODY_MAX);
		} else if (*l->p == '-') {
			l->p++;
		} else {
			do {
				if (digit(l->p[0], 16) < 0 ||
				    digit(l->p[1], 16) < 0)
					bad(l, "expected hex bytes or -");
				byte = (unsigned char)(digit(l->p[0], 16) << 4 |
						       digit(l->p[1], 16));
				if (mt_buf_add(&sbuf, &byte, 1))
					die(MT_EXIT_SYSTEM, "out of memory");
				l->p += 2;
			} while (*l->p && !is_space(*l->p));
		}
	}
	l->field = NULL;
	if (!have_type)
		bad(l, "type= is required");
	if (!sbuf.p[0])
		bad(l, "type 0x00 is END, which mt-asm writes itself");
	if (sbuf.len - MT_REC_HDR > MT_BODY_MAX)
		bad(l, "body longer than %u bytes", MT_BODY_MAX);
	if (len != MT_NONE64 && len != sbuf.len - MT_REC_HDR)
		bad(l, "len=%llu but the body has %zu bytes",
		    (unsigned long long)len, sbuf.len - MT_REC_HDR);
	mt_put24((unsigned char *)sbuf.p + 1, (uint32_t)(sbuf.len - MT_REC_HDR));
	check(l, mt_write_raw(&w, sbuf.p, sbuf.len));
}

static const struct {
	const char *name;
	void (*fn)(struct line *l); /* NULL: ignored */
} records[] = {
	{ "HEADER", NULL },
	{ "STRING", NULL },
	{ "END", NULL },
	{ "THREAD", asm_thread },
	{ "BRANCH", asm_branch },
	{ "ERROR", asm_error },
	{ "MARK", asm_mark },
	{ "SAMPLE", asm_sample },
	{ "SPAN", asm_span },
	{ "META", asm_meta },
	{ "UNKNOWN", asm_unknown },
};

static void asm_line(struct line *l)
{
	size_t len, i;

	skip_spaces(l);
	if (!*l->p || *l->p == '#')
		return;
	/* the offset column of mt-dump */
	if (l->p[0] == '0' && l->p[1] == 'x') {
		l->p += 2;
		len = word_len(l->p, "");
		for (i = 0; i < len; i++)
			if (digit(l->p[i], 16) < 0)
				break;
		if (!len || i < len)
			bad(l, "expected an offset 0xHEX and a record");
		l->p += len;
		skip_spaces(l);
	}
	len = word_len(l->p, "");
	for (i = 0; i < NELEM(records); i++) {
		if (strlen(records[i].name) == len &&
		    !memcmp(records[i].name, l->p, len)) {
			l->rec = records[i].name;
			l->p += len;
			if (records[i].fn)
				records[i].fn(l);
			return;
		}
	}
	bad(l, "expected a record: THREAD BRANCH ERROR MARK SAMPLE SPAN META "
	       "UNKNOWN (or HEADER STRING END, ignored)");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct line l;
	FILE *in = stdin;
	const char *name = "<stdin>";
	ssize_t n;
	int ch;

	mt_set_progname(argv[0]);
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(usage_text, stdout);
			close_stdout_or_die();
			return MT_EXIT_OK;
		}
		fputs(usage_text, stderr);
		return MT_EXIT_USAGE;
	}
	if (argc - optind > 1) {
		fputs(usage_text, stderr);
		return MT_EXIT_USAGE;
	}
	if (optind < argc && strcmp(argv[optind], "-") != 0) {
		name = argv[optind];
		in = fopen(name, "r");
		if (!in)
			die_errno(MT_EXIT_SYSTEM, "%s", name);
	}

	if (mt_writer_init_fd(&w, STDOUT_FILENO))
		die(MT_EXIT_SYSTEM, "out of memory");
	memset(&l, 0, sizeof(l));
	l.file = name;
	while ((n = getline(&text, &text_cap, in)) >= 0) {
		l.lineno++;
		l.p = text;
		l.rec = l.field = NULL;
		l.next = 0;
		if (n && text[n - 1] == '\n')
			text[--n] = '\0';
		if (n && text[n - 1] == '\r')
			text[--n] = '\0';
		if (strlen(text) != (size_t)n)
			bad(&l, "a NUL byte in the line");
		asm_line(&l);
	}
	if (ferror(in))
		die_errno(MT_EXIT_SYSTEM, "%s", name);
	if (in != stdin)
		fclose(in);
	l.rec = "END";
	check(&l, mt_writer_finish(&w));
	mt_writer_release(&w);
	mt_buf_release(&sbuf);
	free(frames);
	free(text);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
