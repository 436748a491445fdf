/*
 * mt-mkstream: write a small mt stream through the writer API, for the
 * mt-dump tests (tests/t/t02*-dump-*.sh, tests/cases/dump/).
 *
 * usage: mt-mkstream [--bad short|undef|critical] [--flip OFFSET]
 *                    [--repeat N]
 *
 * Without options the stream holds one record of every type, with the edge
 * cases of the text form: escapes, NONE values, unknown kinds and flag bits,
 * an unknown skippable type, a string redefinition, a body longer than its
 * version-1.0 size. --bad puts one malformed record after those (and a
 * valid META after it); --repeat N appends N branches (a large stream);
 * --flip OFFSET inverts the byte at OFFSET of the finished stream.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "die.h"
#include "err.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

static const char usage_text[] =
	"usage: mt-mkstream [--bad short|undef|critical] [--flip OFFSET]\n"
	"                   [--repeat N]\n";

static struct mt_writer w;

static int to_buf(void *ctx, const void *p, size_t n)
{
	return mt_buf_add(ctx, p, n);
}

static void check(int err, const char *what)
{
	if (err)
		die_mt(err, "%s", what);
}

static uint32_t str(const char *s)
{
	uint32_t id;

	check(mt_writer_intern(&w, s, strlen(s), &id), "intern");
	return id;
}

static void raw(unsigned type, const unsigned char *body, size_t len)
{
	unsigned char rec[MT_REC_HDR + 256];

	rec[0] = (unsigned char)type;
	mt_put24(rec + 1, (uint32_t)len);
	if (len)
		memcpy(rec + MT_REC_HDR, body, len);
	check(mt_write_raw(&w, rec, MT_REC_HDR + len), "raw record");
}

static void write_threads(void)
{
	struct mt_thread t;

	t.pid = 1234;
	t.tid = 1235;
	t.comm = str("a \"quoted\" \\ name\n\twith \xc3\xa9\x01\x7f\r!");
	t.time = 1234567891660ull;
	check(mt_write_thread(&w, &t), "thread");
	t.pid = t.tid = MT_NONE32;
	t.comm = 0;
	t.time = MT_NONE64;
	check(mt_write_thread(&w, &t), "thread");
}

static void write_branches(void)
{
	struct mt_branch b;

	memset(&b, 0, sizeof(b));
	b.time = 1234567891660ull;
	b.pid = 1234;
	b.tid = 1235;
	b.cpu = 3;
	b.kind = MT_BR_CALL;
	b.flags = MT_BF_BEGIN | MT_BF_INTX;
	b.from.ip = 0x401076;
	b.from.off = 0x26;
	b.from.sym = str("main");
	b.from.dso = str("/opt/demo/bp");
	b.to.ip = 0x401130;
	b.to.off = 0;
	b.to.sym = str("fib");
	b.to.dso = b.from.dso;
	check(mt_write_branch(&w, &b), "branch");

	/* everything unknown */
	b.time = MT_NONE64;
	b.pid = b.tid = b.cpu = MT_NONE32;
	b.kind = MT_BR_NONE;
	b.flags = 0;
	b.from.ip = 0;
	b.from.off = MT_NONE64;
	b.from.sym = b.from.dso = 0;
	b.to.ip = 0x7f0000001000;
	b.to.off = MT_NONE64;
	b.to.sym = str("tan@plt");
	b.to.dso = 0;
	check(mt_write_branch(&w, &b), "branch");

	/* a kind and flag bits from the future; an offset without symbol */
	b.time = 0;
	b.pid = b.tid = b.cpu = 0;
	b.kind = 42;
	b.flags = 0xffff;
	b.from.ip = 0xffffffffffffffffull;
	b.from.off = 0xfffffffffef9b000ull;
	b.from.sym = 0;
	b.from.dso = str("[kernel.kallsyms]");
	b.to.ip = 1;
	b.to.off = 1;
	b.to.sym = str("tan@plt");
	b.to.dso = str("/opt/demo/bp");
	check(mt_write_branch(&w, &b), "branch");

	b.time = 5000000001ull;
	b.pid = b.tid = 7;
	b.cpu = 0;
	b.kind = MT_BR_HWINT;
	b.flags = MT_BF_END | MT_BF_NOFLAGS;
	check(mt_write_branch(&w, &b), "branch");
}

static void write_errors(void)
{
	struct mt_error e;

	memset(&e, 0, sizeof(e));
	e.time = MT_NONE64;
	e.pid = 1234;
	e.tid = 1235;
	e.cpu = MT_NONE32;
	e.class = MT_ERRC_DECODE;
	e.ip = 0x401080;
	e.code = 7;
	e.type = 1;
	e.msg = str("Overflow packet");
	check(mt_write_error(&w, &e), "error");
	e.time = 999999999;
	e.class = MT_ERRC_LOST;
	e.ip = 0;
	e.code = 0;
	e.type = 0;
	e.count = 12345;
	e.msg = 0;
	check(mt_write_error(&w, &e), "error");
	e.class = 9;
	check(mt_write_error(&w, &e), "error");
}

static void write_marks(void)
{
	struct mt_mark m;

	memset(&m, 0, sizeof(m));
	m.time = 1234567891661ull;
	m.pid = 1234;
	m.tid = 1235;
	m.cpu = 3;
	m.kind = MT_MARK_CBR;
	m.value = 2400;
	m.ip = 0x401076;
	m.name = str("cbr");
	m.text = str("cbr: 24 freq: 2400 MHz (100%)");
	check(mt_write_mark(&w, &m), "mark");
	m.kind = MT_MARK_PTWRITE;
	m.value = 0xdeadbeef;
	m.name = str("ptwrite");
	m.text = 0;
	check(mt_write_mark(&w, &m), "mark");
	m.kind = MT_MARK_PSB;
	m.value = 0x4000;
	m.ip = 0;
	m.name = str("psb");
	check(mt_write_mark(&w, &m), "mark");
	m.kind = MT_MARK_WALLCLOCK;
	m.value = 1700000000123456789ull;
	m.name = str("tod");
	check(mt_write_mark(&w, &m), "mark");
	m.time = MT_NONE64;
	m.pid = m.tid = m.cpu = MT_NONE32;
	m.kind = 77;
	m.flags = 3;
	m.value = 5;
	m.name = 0;
	check(mt_write_mark(&w, &m), "mark");
}

static void write_samples(void)
{
	struct mt_loc f[3];
	struct mt_sample s;

	f[0].ip = 0x401076;
	f[0].off = 0x26;
	f[0].sym = str("main");
	f[0].dso = str("/opt/demo/bp");
	f[1].ip = 0xffffffff81000000ull;
	f[1].off = MT_NONE64;
	f[1].sym = 0;
	f[1].dso = str("[kernel.kallsyms]");
	f[2].ip = 0x7f1234567890ull;
	f[2].off = MT_NONE64;
	f[2].sym = str("__libc_start_main");
	f[2].dso = str("/lib/x86_64-linux-gnu/libc.so.6");
	memset(&s, 0, sizeof(s));
	s.time = 1234567891662ull;
	s.pid = 1234;
	s.tid = 1235;
	s.cpu = 1;
	s.period = 1000000;
	s.event = str("cpu-clock");
	s.nframes = 3;
	s.frames = f;
	check(mt_write_sample(&w, &s), "sample");
	s.time = MT_NONE64;
	s.pid = s.tid = s.cpu = MT_NONE32;
	s.flags = 0x8001;
	s.period = 0;
	s.event = 0;
	s.nframes = 0;
	s.frames = NULL;
	check(mt_write_sample(&w, &s), "sample");
}

static void write_spans(void)
{
	struct mt_span s;

	memset(&s, 0, sizeof(s));
	s.start = 1234567891660ull;
	s.end = 1234567891662ull;
	s.pid = 1234;
	s.tid = 1235;
	s.depth = 0;
	s.kind = MT_SPAN_FUNCTION;
	s.flags = MT_SF_INFERRED | MT_SF_OPEN;
	s.address = 0x401000;
	s.name = str("main");
	s.dso = str("/opt/demo/bp");
	check(mt_write_span(&w, &s), "span");
	s.start = 0;
	s.end = MT_NONE64;
	s.pid = s.tid = MT_NONE32;
	s.depth = 4294967295u;
	s.kind = 99;
	s.flags = MT_SF_CLIPSTART | MT_SF_CLIPEND | 0x30;
	s.address = 0;
	s.name = s.dso = 0;
	check(mt_write_span(&w, &s), "span");
	s.end = 0;
	s.kind = MT_SPAN_GAP;
	s.flags = 0;
	check(mt_write_span(&w, &s), "span");
}

static void write_others(void)
{
	static const unsigned char body42[] = { 0x01, 0x02, 0xab };
	unsigned char meta[12];
	struct mt_meta m;

	raw(0x42, body42, sizeof(body42));
	raw(0x7f, NULL, 0);

	/* explicit ids, far from the interned ones; redefined, then empty */
	check(mt_write_string(&w, 1000, "first", 5), "string");
	m.key = str("perf.command");
	m.value = 1000;
	check(mt_write_meta(&w, &m), "meta");
	check(mt_write_string(&w, 1000, "second", 6), "string");
	check(mt_write_meta(&w, &m), "meta");
	check(mt_write_string(&w, 1001, "", 0), "string");
	m.value = 1001;
	check(mt_write_meta(&w, &m), "meta");

	/* a META from a later minor version: 4 bytes more than 1.0's */
	mt_put32(meta, m.key);
	mt_put32(meta + 4, 0);
	mt_put32(meta + 8, 0xffffffff);
	raw(MT_REC_META, meta, sizeof(meta));
}

static void write_bad(const char *bad)
{
	unsigned char body[MT_SIZE_BRANCH];
	struct mt_thread t;

	if (!strcmp(bad, "short")) {
		memset(body, 0, sizeof(body));
		raw(MT_REC_BRANCH, body, MT_SIZE_BRANCH - 1);
	} else if (!strcmp(bad, "undef")) {
		t.pid = t.tid = 1;
		t.comm = 999;
		t.time = 0;
		check(mt_write_thread(&w, &t), "thread");
	} else if (!strcmp(bad, "critical")) {
		memset(body, 0, 8);
		raw(0x80, body, 8);
	} else {
		die(MT_EXIT_USAGE, "unknown --bad kind: %s", bad);
	}
}

static void write_repeat(unsigned long n)
{
	struct mt_branch b;
	unsigned long i;

	if (!n)
		return;
	memset(&b, 0, sizeof(b));
	b.pid = b.tid = 42;
	b.cpu = 1;
	b.kind = MT_BR_JMP;
	b.from.off = b.to.off = 4;
	b.from.sym = str("loop");
	b.to.sym = b.from.sym;
	b.from.dso = b.to.dso = str("/opt/demo/bp");
	for (i = 0; i < n; i++) {
		b.time = 2000000000000ull + i;
		b.from.ip = 0x401000 + (i & 0xfff);
		b.to.ip = b.from.ip + 16;
		check(mt_write_branch(&w, &b), "branch");
	}
}

static unsigned long number(const char *s, const char *opt)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end)
		die(MT_EXIT_USAGE, "%s: not a number: %s", opt, s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bad", required_argument, NULL, 'b' },
		{ "flip", required_argument, NULL, 'f' },
		{ "repeat", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct mt_buf out = MT_BUF_INIT;
	const char *bad = NULL;
	unsigned long flip = 0, repeat = 0;
	int ch, do_flip = 0;
	struct mt_meta m;

	mt_set_progname(argv[0]);
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			bad = optarg;
			break;
		case 'f':
			flip = number(optarg, "--flip");
			do_flip = 1;
			break;
		case 'r':
			repeat = number(optarg, "--repeat");
			break;
		default:
			fputs(usage_text, stderr);
			return MT_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fputs(usage_text, stderr);
		return MT_EXIT_USAGE;
	}

	check(mt_writer_init_fn(&w, to_buf, &out), "writer");
	m.key = str("source");
	m.value = str("mt-mkstream");
	check(mt_write_meta(&w, &m), "meta");
	write_threads();
	write_branches();
	write_errors();
	write_marks();
	write_samples();
	write_spans();
	write_others();
	if (bad) {
		write_bad(bad);
		m.key = str("after");
		m.value = str("bad");
		check(mt_write_meta(&w, &m), "meta");
	}
	write_repeat(repeat);
	check(mt_writer_finish(&w), "finish");
	mt_writer_release(&w);

	if (do_flip) {
		if (flip >= out.len)
			die(MT_EXIT_USAGE, "--flip %lu: the stream has %zu bytes",
			    flip, out.len);
		out.p[flip] ^= 0xff;
	}
	if (fwrite(out.p, 1, out.len, stdout) != out.len)
		die_errno(MT_EXIT_SYSTEM, "write error on standard output");
	mt_buf_release(&out);
	close_stdout_or_die();
	return 0;
}
