/*
 * mt-dump: print an mt stream as text, one line per record (docs/mt-dump.1,
 * docs/format.md section 6).
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "names.h"
#include "stream.h"
#include "banned.h"

static const char usage_text[] = "usage: mt-dump [--ids] [file]\n";

static int show_ids;

/*
 * Output goes through our own buffer straight to fd 1 rather than stdio:
 * numbers and escapes are formatted by hand (printf costs more than the
 * decoding), and a failed write is seen at once, so a closed pipe ends us
 * quietly.
 */
#define OUT_CAP (256 * 1024)

static char out[OUT_CAP];
static size_t outlen;

static void out_flush(void)
{
	write_or_die(STDOUT_FILENO, out, outlen);
	outlen = 0;
}

/* Make room for n <= OUT_CAP bytes. */
static inline void out_room(size_t n)
{
	if (OUT_CAP - outlen < n)
		out_flush();
}

static inline void out_ch(char c)
{
	out_room(1);
	out[outlen++] = c;
}

static void out_mem(const char *s, size_t n)
{
	while (n) {
		size_t k;

		if (outlen == OUT_CAP)
			out_flush();
		k = OUT_CAP - outlen < n ? OUT_CAP - outlen : n;
		memcpy(out + outlen, s, k);
		outlen += k;
		s += k;
		n -= k;
	}
}

#define out_lit(s) out_mem(s, sizeof(s) - 1)

static const char hexdig[] = "0123456789abcdef";

static void out_dec(uint64_t v)
{
	char tmp[20];
	int i = 0;

	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_room(20);
	while (i)
		out[outlen++] = tmp[--i];
}

/* v in hex, at least width digits, no prefix */
static void out_hexw(uint64_t v, int width)
{
	char tmp[16];
	int i = 0;

	do {
		tmp[i++] = hexdig[v & 15];
		v >>= 4;
	} while (v);
	while (i < width)
		tmp[i++] = '0';
	out_room(16);
	while (i)
		out[outlen++] = tmp[--i];
}

static void out_hex(uint64_t v)
{
	out_lit("0x");
	out_hexw(v, 1);
}

/* seconds with 9 decimals, or - for MT_NONE64 */
static void out_time(uint64_t t)
{
	int i;

	if (t == MT_NONE64) {
		out_ch('-');
		return;
	}
	out_dec(t / 1000000000);
	out_ch('.');
	t %= 1000000000;
	out_room(9);
	for (i = 8; i >= 0; i--, t /= 10)
		out[outlen + (size_t)i] = (char)('0' + t % 10);
	outlen += 9;
}

/* pid, tid, cpu: - for MT_NONE32 */
static void out_id32(uint32_t v)
{
	if (v == MT_NONE32)
		out_ch('-');
	else
		out_dec(v);
}

static void out_quoted(const char *s, size_t len)
{
	size_t i;

	out_ch('"');
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		out_room(4);
		if (c == '"' || c == '\\') {
			out[outlen++] = '\\';
			out[outlen++] = (char)c;
		} else if (c == '\n') {
			out[outlen++] = '\\';
			out[outlen++] = 'n';
		} else if (c == '\t') {
			out[outlen++] = '\\';
			out[outlen++] = 't';
		} else if (c < 0x20 || c > 0x7e) {
			out[outlen++] = '\\';
			out[outlen++] = 'x';
			out[outlen++] = hexdig[c >> 4];
			out[outlen++] = hexdig[c & 15];
		} else {
			out[outlen++] = (char)c;
		}
	}
	out_ch('"');
}

static void out_sid(const struct mt_reader *r, uint32_t id)
{
	const char *s;
	size_t len;

	if (!id) {
		out_ch('-');
		return;
	}
	/* the reader refuses undefined ids: #N is only a fallback */
	if (show_ids || !(s = mt_reader_str(r, id, &len))) {
		out_ch('#');
		out_dec(id);
		return;
	}
	out_quoted(s, len);
}

/* ADDR SYM[+OFF] DSO */
static void out_loc(const struct mt_reader *r, const struct mt_loc *l)
{
	out_hex(l->ip);
	out_ch(' ');
	out_sid(r, l->sym);
	if (l->off != MT_NONE64) {
		out_ch('+');
		out_hex(l->off);
	}
	out_ch(' ');
	out_sid(r, l->dso);
}

/* names[v], or v in decimal when it has no name */
static void out_kind(const char *const *names, size_t n, unsigned v)
{
	if (v < n && names[v])
		out_mem(names[v], strlen(names[v]));
	else
		out_dec(v);
}

/* named bits joined by |, then the unnamed ones as one hex number; - for 0 */
static void out_flags(const char *const *names, size_t n, unsigned v)
{
	unsigned rest = v;
	int any = 0;
	size_t i;

	if (!v) {
		out_ch('-');
		return;
	}
	for (i = 0; i < n; i++) {
		if (!(v & 1u << i))
			continue;
		if (any++)
			out_ch('|');
		out_mem(names[i], strlen(names[i]));
		rest &= ~(1u << i);
	}
	if (rest) {
		if (any)
			out_ch('|');
		out_hex(rest);
	}
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))


/* " time=T pid=P tid=T cpu=C": the opening of BRANCH, ERROR, MARK, SAMPLE */
static void out_where(uint64_t time, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	out_lit(" time=");
	out_time(time);
	out_lit(" pid=");
	out_id32(pid);
	out_lit(" tid=");
	out_id32(tid);
	out_lit(" cpu=");
	out_id32(cpu);
}

static void dump_branch(const struct mt_reader *r, const struct mt_branch *b)
{
	out_lit("BRANCH");
	out_where(b->time, b->pid, b->tid, b->cpu);
	out_lit(" kind=");
	out_kind(mt_branch_kind_names, NELEM(mt_branch_kind_names), b->kind);
	out_lit(" flags=");
	out_flags(mt_branch_flag_names, NELEM(mt_branch_flag_names), b->flags);
	out_lit(" from=");
	out_loc(r, &b->from);
	out_lit(" to=");
	out_loc(r, &b->to);
}

static void dump_error(const struct mt_reader *r, const struct mt_error *e)
{
	out_lit("ERROR");
	out_where(e->time, e->pid, e->tid, e->cpu);
	out_lit(" class=");
	out_kind(mt_error_class_names, NELEM(mt_error_class_names), e->class);
	out_lit(" ip=");
	out_hex(e->ip);
	out_lit(" code=");
	out_dec(e->code);
	out_lit(" type=");
	out_dec(e->type);
	out_lit(" count=");
	out_dec(e->count);
	out_lit(" msg=");
	out_sid(r, e->msg);
}

static void dump_mark(const struct mt_reader *r, const struct mt_mark *m)
{
	out_lit("MARK");
	out_where(m->time, m->pid, m->tid, m->cpu);
	out_lit(" kind=");
	out_kind(mt_mark_kind_names, NELEM(mt_mark_kind_names), m->kind);
	out_lit(" flags=");
	out_flags(NULL, 0, m->flags);
	out_lit(" value=");
	/* as perf prints them: offsets and payloads in hex, the rest decimal */
	if (m->kind == MT_MARK_PSB || m->kind == MT_MARK_PTWRITE)
		out_hex(m->value);
	else
		out_dec(m->value);
	out_lit(" ip=");
	out_hex(m->ip);
	out_lit(" name=");
	out_sid(r, m->name);
	out_lit(" text=");
	out_sid(r, m->text);
	if (m->kind == MT_MARK_REGION) {
		out_lit(" start=");
		out_time(m->start);
	}
}

static void dump_sample(const struct mt_reader *r, const struct mt_sample *s)
{
	uint32_t i;

	out_lit("SAMPLE");
	out_where(s->time, s->pid, s->tid, s->cpu);
	out_lit(" flags=");
	out_flags(NULL, 0, s->flags);
	out_lit(" period=");
	out_dec(s->period);
	out_lit(" event=");
	out_sid(r, s->event);
	out_lit(" nframes=");
	out_dec(s->nframes);
	out_lit(" frames=[");
	for (i = 0; i < s->nframes; i++) {
		if (i)
			out_lit(", ");
		out_loc(r, &s->frames[i]);
	}
	out_ch(']');
}

static void dump_span(const struct mt_reader *r, const struct mt_span *s)
{
	out_lit("SPAN start=");
	out_time(s->start);
	out_lit(" end=");
	out_time(s->end);
	out_lit(" pid=");
	out_id32(s->pid);
	out_lit(" tid=");
	out_id32(s->tid);
	out_lit(" depth=");
	if (s->depth < 0) {
		out_lit("-");
		out_dec((uint64_t)-(int64_t)s->depth);
	} else {
		out_dec((uint64_t)s->depth);
	}
	out_lit(" kind=");
	out_kind(mt_span_kind_names, NELEM(mt_span_kind_names), s->kind);
	out_lit(" flags=");
	out_flags(mt_span_flag_names, NELEM(mt_span_flag_names), s->flags);
	out_lit(" address=");
	out_hex(s->address);
	out_lit(" name=");
	out_sid(r, s->name);
	out_lit(" dso=");
	out_sid(r, s->dso);
}

static void dump_unknown(const struct mt_record *rec)
{
	size_t len = rec->raw_len - MT_REC_HDR, i;

	out_lit("UNKNOWN type=0x");
	out_hexw(rec->type, 2);
	out_lit(" len=");
	out_dec(len);
	out_lit(" body=");
	if (!len)
		out_ch('-');
	for (i = 0; i < len; i++) {
		unsigned char c = rec->raw[MT_REC_HDR + i];

		out_room(2);
		out[outlen++] = hexdig[c >> 4];
		out[outlen++] = hexdig[c & 15];
	}
}

static void dump_record(const struct mt_reader *r, const struct mt_record *rec)
{
	out_lit("0x");
	out_hexw(rec->offset, 8);
	out_ch(' ');
	switch (rec->type) {
	case MT_REC_END:
		out_lit("END records=");
		out_dec(rec->u.end.records);
		out_lit(" bytes=");
		out_dec(rec->u.end.bytes);
		break;
	case MT_REC_STRING:
		out_lit("STRING id=");
		out_dec(rec->u.string.id);
		out_ch(' ');
		out_quoted(rec->u.string.p, rec->u.string.len);
		break;
	case MT_REC_THREAD:
		out_lit("THREAD pid=");
		out_id32(rec->u.thread.pid);
		out_lit(" tid=");
		out_id32(rec->u.thread.tid);
		out_lit(" comm=");
		out_sid(r, rec->u.thread.comm);
		out_lit(" time=");
		out_time(rec->u.thread.time);
		break;
	case MT_REC_BRANCH:
		dump_branch(r, &rec->u.branch);
		break;
	case MT_REC_ERROR:
		dump_error(r, &rec->u.error);
		break;
	case MT_REC_MARK:
		dump_mark(r, &rec->u.mark);
		break;
	case MT_REC_SAMPLE:
		dump_sample(r, &rec->u.sample);
		break;
	case MT_REC_SPAN:
		dump_span(r, &rec->u.span);
		break;
	case MT_REC_META:
		out_lit("META key=");
		out_sid(r, rec->u.meta.key);
		out_lit(" value=");
		out_sid(r, rec->u.meta.value);
		break;
	default:
		dump_unknown(rec);
		break;
	}
	out_ch('\n');
}

static void dump_header(const struct mt_reader *r)
{
	out_lit("0x");
	out_hexw(0, 8);
	out_lit(" HEADER version=");
	out_dec(r->major);
	out_ch('.');
	out_dec(r->minor);
	out_ch('\n');
}

/* Dump the stream on fd; on bad input, die after printing what came before. */
static void dump(int fd, const char *name)
{
	struct mt_reader r;
	struct mt_record rec;
	int header_done = 0;
	int err;

	if ((err = mt_reader_init_fd(&r, fd, NULL, 0)))
		die_mt(err, "%s", name);
	for (;;) {
		err = mt_reader_next(&r, &rec);
		/* the reader takes the header in with the first record */
		if (!header_done && r.started) {
			dump_header(&r);
			header_done = 1;
		}
		if (err <= 0)
			break;
		dump_record(&r, &rec);
	}
	if (err < 0) {
		int e = errno; /* for MT_EIO: out_flush() may change it */

		out_flush();
		errno = e;
		die_reader(&r, err, name);
	}
	mt_reader_release(&r);
	out_flush();
}

int main(int argc, char **argv)
{
	enum { OPT_IDS = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, MT_OPT_HELP },
		{ "ids", no_argument, NULL, OPT_IDS },
		{ "version", no_argument, NULL, MT_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct mt_filter_io io = { 0 }; /* no -o: the dump goes to stdout */
	int ch;

	mt_set_progname(argv[0]);
	mt_set_manual();
	while ((ch = mt_getopt(argc, argv, "", longopts, usage_text)) != -1) {
		switch (ch) {
		case OPT_IDS:
			show_ids = 1;
			break;
		default:
			mt_option_default(ch, usage_text);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, usage_text);
	dump(io.in_fd, io.in_name);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
