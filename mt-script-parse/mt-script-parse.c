/*
 * mt-script-parse: perf script text on stdin, the mt event stream on stdout.
 * See docs/mt-script-parse.1 and docs/format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "output.h"
#include "bytes.h"
#include "err.h"
#include "mtline.h"
#include "perfline.h"
#include "quote.h"
#include "stream.h"
#include "threadname.h"
#include "tidtable.h"
#include "lines.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE "usage: mt-script-parse [-kv] [-j threads] [-o output] [file]\n"

static const char *in_name; /* for messages (mt_filter_open_or_die) */
static struct mt_writer out;

/* Stop on bad input (exit MT_EXIT_DATA): the records of the lines before
 * it are written first, and the stream ends without its END record, so a
 * reader has all of them and knows the stream was cut. */
static void cut_stream(void)
{
	(void)mt_writer_flush(&out);
}
#define die_data(...) (cut_stream(), die(MT_EXIT_DATA, __VA_ARGS__))
static int keep_going;
static int bad_line; /* the current line holds a NUL byte in a name */

/* Input bytes as a message shows them (mt_quote, cut to about 120
 * characters); the result lasts until the next call. */
static const char *shown(const char *p, size_t len)
{
	static char buf[128];

	return mt_quote(buf, sizeof(buf), p, len);
}

/* ---- statistics: nothing is dropped silently ---- */

struct skip {
	const char *reason; /* static text, or an interned event name */
	int unknown_event;
	unsigned long long count;
};

static unsigned long long nlines, nmalformed;
static struct skip skips[64];
static size_t nskips;
static unsigned long long nskips_other; /* reasons past the table */

static void count_skip(const char *reason, int unknown_event)
{
	size_t i;

	for (i = 0; i < nskips; i++) {
		if (skips[i].unknown_event == unknown_event &&
		    (skips[i].reason == reason || !strcmp(skips[i].reason, reason))) {
			skips[i].count++;
			return;
		}
	}
	if (nskips == sizeof(skips) / sizeof(skips[0])) {
		nskips_other++;
		return;
	}
	if (unknown_event) {
		/* one warning per unknown event name */
		warn("%s: skipping samples of unknown event '%s'", in_name,
		     reason);
		reason = xstrdup(reason);
	}
	skips[nskips].reason = reason;
	skips[nskips].unknown_event = unknown_event;
	skips[nskips].count = 1;
	nskips++;
}

static void report(int verbose)
{
	unsigned long long skipped = nmalformed + nskips_other;
	size_t i;

	for (i = 0; i < nskips; i++)
		skipped += skips[i].count;
	if (!verbose && !skipped)
		return;
	fprintf(stderr, "%s: %s: %llu lines read, %llu records written",
		mt_progname(), in_name, nlines,
		(unsigned long long)out.nrecords);
	if (skipped)
		fprintf(stderr, ", %llu lines skipped:", skipped);
	fputc('\n', stderr);
	if (nmalformed)
		fprintf(stderr, "  %llu malformed lines (--keep-going)\n", nmalformed);
	for (i = 0; i < nskips; i++)
		fprintf(stderr, "  %llu %s%s%s\n", skips[i].count,
			skips[i].unknown_event ? "samples of unknown event '" : "",
			skips[i].reason, skips[i].unknown_event ? "'" : " lines");
	if (nskips_other)
		fprintf(stderr, "  %llu lines for other reasons\n", nskips_other);
}

/* ---- strings ---- */

/* The strings of one field seen lately, by a hash of their length and
 * their first and last 8 bytes: a branch's symbols and DSOs come back
 * over and over, and these compares are cheaper than the intern table's
 * hash of the whole name. A slot holds the last string that hashed to it:
 * a cache only, the intern table has every string. */
#define CACHE_BITS 10
struct cache {
	struct {
		const char *p; /* the writer's copy */
		size_t len;
		uint32_t id;
	} e[1u << CACHE_BITS];
};

static struct cache sym_cache, dso_cache, misc_cache;

static inline unsigned cache_slot(const char *p, size_t len)
{
	uint64_t a = 0, b = 0;

	if (len >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + len - 8, 8);
	} else {
		memcpy(&a, p, len);
	}
	a ^= (b << 7 | b >> 57) ^ len;
	return (unsigned)((a * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS));
}

static uint32_t intern(struct cache *c, const struct mt_slice *s)
{
	uint32_t id;
	unsigned i;
	int err;

	if (!s->len)
		return 0;
	i = cache_slot(s->p, s->len);
	if (c->e[i].len == s->len && mt_bytes_equal(c->e[i].p, s->p, s->len))
		return c->e[i].id;
	err = mt_writer_intern(&out, s->p, s->len, &id);
	if (err == MT_EINVAL) {
		/* a NUL byte: binary data, not text */
		if (!keep_going)
			die_data("%s:%llu: not perf script output: "
				 "a NUL byte in a name", in_name, nlines);
		bad_line = 1;
		return 0;
	}
	if (err)
		die_mt(err, "%s: line %llu", in_name, nlines);
	c->e[i].p = mt_intern_str(&out.strings, id, &c->e[i].len);
	c->e[i].id = id;
	return id;
}

static uint32_t intern_str(const char *s)
{
	struct mt_slice sl = { s, strlen(s) };

	return intern(&misc_cache, &sl);
}

static void loc(const struct mt_perf_loc *in, struct mt_loc *l)
{
	l->ip = in->ip;
	l->off = in->off;
	l->sym = intern(&sym_cache, &in->sym);
	l->dso = intern(&dso_cache, &in->dso);
}

/* Whether the record built from the current line may be written. */
static int line_ok(void)
{
	if (!bad_line)
		return 1;
	bad_line = 0;
	if (nmalformed++ < 5)
		warn("%s:%llu: skipping malformed line: a NUL byte in a name",
		     in_name, nlines);
	return 0;
}

static void check(int err)
{
	if (err)
		die_mt(err, "%s: line %llu: writing the stream", in_name, nlines);
}

/* ---- threads ---- */

static struct mt_tidtable thread_names; /* of struct mt_thread_name */

/* Send THREAD when a thread is first seen or its name changes. */
static void see_thread(uint32_t pid, uint32_t tid, const struct mt_slice *comm,
		       uint64_t time)
{
	struct mt_thread_name *t;
	uint32_t id;

	if (pid == MT_NONE32 && tid == MT_NONE32)
		return;
	if (mt_tidtable_get(&thread_names, pid, tid, &t, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	id = comm->len ? intern(&misc_cache, comm) : 0;
	if (!mt_thread_name_due(t, id))
		return;
	{
		struct mt_thread th = { pid, tid, id, time };

		if (line_ok())
			check(mt_write_thread(&out, &th));
	}
}

/* ---- samples: a header line, then tab-indented frames ---- */

static struct mt_sample sample;
static struct mt_loc *frames;
static size_t frames_cap;
static int in_sample;

static void add_frame(const struct mt_perf_loc *l)
{
	if (sample.nframes == frames_cap) {
		if (frames_cap >= UINT32_MAX)
			die(MT_EXIT_SYSTEM, "out of memory");
		grow_or_die(&frames, &frames_cap, sample.nframes, sizeof(*frames));
	}
	loc(l, &frames[sample.nframes++]);
}

static void end_sample(void)
{
	if (!in_sample)
		return;
	sample.frames = frames;
	if (line_ok())
		check(mt_write_sample(&out, &sample));
	in_sample = 0;
}

/* ---- the wall clock ---- */

static int have_wallclock;

/* "2026-11-29 20:48:28.592622740", local time as perf printed it */
static void wallclock(const struct mt_perf_line *l)
{
	char buf[64];
	struct tm tm;
	const char *rest;
	uint64_t frac = 0, scale = 1000000000;
	time_t secs;

	have_wallclock = 1;
	if (l->tod.len >= sizeof(buf) || l->time == MT_NONE64)
		return;
	memcpy(buf, l->tod.p, l->tod.len);
	buf[l->tod.len] = '\0';
	memset(&tm, 0, sizeof(tm));
	rest = strptime(buf, "%Y-%m-%d %H:%M:%S", &tm);
	if (!rest)
		return;
	if (*rest == '.')
		for (rest++; *rest >= '0' && *rest <= '9' && scale > 1; rest++) {
			scale /= 10;
			frac += (uint64_t)(*rest - '0') * scale;
		}
	tm.tm_isdst = -1;
	secs = mktime(&tm);
	if (secs == (time_t)-1 || secs < 0)
		return;
	{
		struct mt_mark m = {
			.time = l->time, .pid = l->pid, .tid = l->tid,
			.cpu = l->cpu, .kind = MT_MARK_WALLCLOCK,
			.value = (uint64_t)secs * 1000000000ull + frac,
			.name = intern_str("tod"),
			.text = intern(&misc_cache, &l->tod),
		};

		if (line_ok())
			check(mt_write_mark(&out, &m));
	}
}

/* ---- mt-record's own lines ---- */

/*
 * "# mt: KIND ..." lines, which mt-record writes among perf's (common/mtline.h,
 * docs/mt-script-parse.1). Returns 1 when the line was one (handled or
 * counted), 0 if not.
 */
static int mt_line(const char *p, size_t len)
{
	struct mt_mt_line ml;
	struct mt_mark *m = &ml.mark;

	switch (mt_parse_mt_line(p, len, &ml)) {
	case MT_MTLINE_NOT:
		return 0;
	case MT_MTLINE_UNKNOWN:
		count_skip("unknown '# mt:' kind", 0);
		return 1;
	case MT_MTLINE_BAD:
		if (!keep_going)
			die_data("%s:%llu: malformed '# mt:' line: \"%s\"",
				 in_name, nlines, shown(p, len));
		if (nmalformed++ < 5)
			warn("%s:%llu: skipping malformed '# mt:' line", in_name, nlines);
		return 1;
	}
	m->name = intern_str(ml.name);
	if (ml.text.len)
		m->text = intern(&misc_cache, &ml.text);
	if (m->kind == MT_MARK_WALLCLOCK)
		have_wallclock = 1;
	check(mt_write_mark(&out, m));
	return 1;
}

/* ---- one line ---- */

/*
 * The current line is not perf script output, for the reason why: die
 * showing text[0..len) (when text is not NULL), or with -k warn about the
 * first five such lines and count them all.
 */
static void reject(const char *why, const char *text, size_t len)
{
	if (!keep_going) {
		if (text)
			die_data("%s:%llu: not perf script output: %s: \"%s\"",
				 in_name, nlines, why, shown(text, len));
		die_data("%s:%llu: not perf script output: %s",
			 in_name, nlines, why);
	}
	if (nmalformed++ < 5)
		warn("%s:%llu: skipping malformed line: %s", in_name, nlines,
		     why);
}

/* The ids of the last line's target when it was a branch: a hinted
 * source (mt-script-parse/lines.h) has them. */
static uint32_t last_to_sym, last_to_dso;

static void emit_branch(const struct mt_perf_line *l)
{
	struct mt_branch b = {
		.time = l->time, .pid = l->pid, .tid = l->tid, .cpu = l->cpu,
		.kind = l->br_kind, .flags = l->br_flags,
	};

	if (l->from_hinted && last_to_sym && last_to_dso) {
		b.from.ip = l->from.ip;
		b.from.off = l->from.off;
		b.from.sym = last_to_sym;
		b.from.dso = last_to_dso;
	} else {
		/* (a name with a NUL byte has no id: refused again) */
		loc(&l->from, &b.from);
	}
	if (l->to_hinted) {
		b.to.ip = l->to.ip;
		b.to.off = l->to.off;
		b.to.sym = b.from.sym;
		b.to.dso = b.from.dso;
	} else {
		loc(&l->to, &b.to);
	}
	last_to_sym = b.to.sym;
	last_to_dso = b.to.dso;
	if (line_ok())
		check(mt_write_branch(&out, &b));
}

static void emit_error(const struct mt_perf_line *l)
{
	struct mt_error e;

	mt_perf_error_record(l, &e);
	e.msg = intern(&misc_cache, &l->err_msg);
	if (line_ok())
		check(mt_write_error(&out, &e));
}

static void emit_mark(const struct mt_perf_line *l)
{
	struct mt_mark m = {
		.time = l->time, .pid = l->pid, .tid = l->tid, .cpu = l->cpu,
		.kind = l->mark_kind, .value = l->mark_value,
		.ip = l->has_loc ? l->loc.ip : 0,
		.name = intern(&misc_cache, &l->event_name),
		.text = intern(&misc_cache, &l->mark_text),
	};

	if (line_ok())
		check(mt_write_mark(&out, &m));
}

/* A uprobe hit: its entry is a call to the probed function, its return a
 * return from it to the return address. */
static void emit_probe(const struct mt_perf_line *l)
{
	struct mt_branch b = {
		.time = l->time, .pid = l->pid, .tid = l->tid, .cpu = l->cpu,
		.kind = l->probe_return ? MT_BR_RETURN : MT_BR_CALL,
		.flags = MT_BF_PROBE,
		.from = { 0, MT_NONE64, 0, 0 },
		.to = { 0, MT_NONE64, 0, 0 },
	};
	uint32_t func = intern(&sym_cache, &l->probe_func);

	if (!l->probe_return) {
		if (l->has_loc)
			loc(&l->loc, &b.to);
		else
			b.to.ip = l->probe_func_addr;
		if (!b.to.sym) {
			b.to.sym = func;
			b.to.off = 0;
		}
	} else {
		b.from.ip = l->probe_func_addr;
		b.from.sym = func;
		b.from.off = l->probe_func_addr ? 0 : MT_NONE64;
		if (l->has_loc) {
			loc(&l->loc, &b.to);
			b.from.dso = b.to.dso;
		} else {
			b.to.ip = l->probe_ret_addr;
		}
	}
	if (line_ok())
		check(mt_write_branch(&out, &b));
}

/* A sample's header line: its frames follow. */
static void start_sample(const struct mt_perf_line *l)
{
	sample.time = l->time;
	sample.pid = l->pid;
	sample.tid = l->tid;
	sample.cpu = l->cpu;
	sample.flags = 0;
	sample.period = l->period;
	sample.event = intern(&misc_cache, &l->event_name);
	sample.nframes = 0;
	in_sample = 1;
	if (l->has_loc)
		add_frame(&l->loc);
}

static void skip(const struct mt_perf_line *l)
{
	if (l->skip_reason == MT_PL_UNKNOWN_EVENT) {
		char name[256];

		/* quoted once: the warning and the summary show it */
		count_skip(mt_quote(name, sizeof(name), l->event_name.p,
				    l->event_name.len), 1);
	} else {
		count_skip(l->skip_reason, 0);
	}
}

/* A call-chain frame line: the open sample's next frame. */
static void frame_line(const struct mt_perf_line *l)
{
	if (!in_sample) {
		if (!keep_going)
			die_data("%s:%llu: call-chain frame line outside a sample",
				 in_name, nlines);
		nmalformed++;
		return;
	}
	add_frame(&l->loc);
}

/* The record of a parsed line. */
static void record(const struct mt_perf_line *l)
{
	if (l->kind == MT_PL_FRAME) {
		frame_line(l);
		return;
	}
	end_sample();
	if (l->tod.len && !have_wallclock)
		wallclock(l);
	if (l->kind != MT_PL_BLANK && l->kind != MT_PL_SKIP && l->kind != MT_PL_ERROR &&
	    l->kind != MT_PL_COMM)
		see_thread(l->pid, l->tid, &l->comm, l->time);

	switch (l->kind) {
	case MT_PL_BLANK:
	case MT_PL_FRAME:
		break;
	case MT_PL_BRANCH:
		emit_branch(l);
		break;
	case MT_PL_ERROR:
	case MT_PL_LOST:
		emit_error(l);
		break;
	case MT_PL_MARK:
		emit_mark(l);
		break;
	case MT_PL_PROBE:
		emit_probe(l);
		break;
	case MT_PL_SAMPLE:
		start_sample(l);
		break;
	case MT_PL_COMM:
		/* perf prints synthesized COMMs at time 0 */
		see_thread(l->pid, l->tid, &l->comm, l->time ? l->time : MT_NONE64);
		break;
	case MT_PL_SKIP:
		skip(l);
		break;
	}
}


/* Line nlines, s->p[0..len), without its line end, and its parse. */
static void line(const struct sp_line *s)
{
	struct mt_perf_line parsed;
	const struct mt_perf_line *lp = &s->l;
	const char *why = s->why;
	int ret = s->ret;

	if (s->len && s->p[0] == '#' && mt_line(s->p, s->len)) {
		end_sample();
		return;
	}
	if (!s->parsed) {
		ret = mt_perf_parse_line(s->p, s->len, &parsed, &why);
		lp = &parsed;
	}
	if (ret) {
		reject(why, s->p, s->len);
		return;
	}
	record(lp);
}

/* ---- input ---- */

/* Input that is already an mt stream passes through unchanged. */
static void pass_through(int fd, const char *head, size_t nhead)
{
	static char buf[1 << 16];
	size_t got;

	write_or_die(STDOUT_FILENO, head, nhead);
	while ((got = read_or_die(fd, buf, sizeof(buf), in_name)) > 0)
		write_or_die(STDOUT_FILENO, buf, got);
}

static int show_progress;

/* Each line, in order (mt-script-parse/lines.h): refusals of what cannot
 * be a line of perf's, and lines. */
static void on_line(const struct sp_line *s)
{
	char why[192];

	nlines++;
	switch (s->what) {
	case SP_TOO_LONG:
		snprintf(why, sizeof(why), "a line longer than " SP_MAX_LINE_TEXT
			 ", from byte offset %llu", (unsigned long long)s->off);
		reject(why, s->p, s->len);
		break;
	case SP_BARE_CR:
		snprintf(why, sizeof(why), "a carriage return not followed by a "
			 "newline, at byte offset %llu (CR-only line ends? tr "
			 "'\\r' '\\n' makes them newlines)", (unsigned long long)s->off);
		reject(why, s->p, s->len);
		break;
	case SP_LINE:
		line(s);
		break;
	}
	if (show_progress && !(nlines & 0xfffff))
		fprintf(stderr, "\r%s: %llu lines", mt_progname(), nlines);
}

static void parse(int fd, int threads)
{
	char head[MT_MAGIC_LEN];
	size_t nhead = 0;
	size_t got;

	show_progress = mt_progress_enabled();
	mt_pipe_grow(fd);
	/* an mt stream, or text */
	while (nhead < sizeof(head) &&
	       (got = read_or_die(fd, head + nhead, sizeof(head) - nhead, in_name)) > 0)
		nhead += got;
	if (nhead == MT_MAGIC_LEN && !memcmp(head, MT_MAGIC, MT_MAGIC_LEN)) {
		pass_through(fd, head, nhead);
		mt_writer_release(&out);
		close_stdout_or_die();
		exit(MT_EXIT_OK);
	}
	sp_run(fd, in_name, head, nhead, threads, on_line);
	if (show_progress && nlines > 0xfffff)
		fputs("\r\033[K", stderr);
	end_sample();
}

/* The parser threads: the CPUs online, up to 3 (past that, the calling
 * thread's writing of the stream is the bound). */
static int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 3 ? 3 : (int)n;
}

static int threads_arg(const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1 || n > 64)
		die(MT_EXIT_USAGE, "-j %s: expected a number of threads from 1 to 64",
		    arg);
	return (int)n;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "keep-going", no_argument, NULL, 'k' },
		{ "threads", required_argument, NULL, 'j' },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct mt_filter_io io = { 0 };
	int c, err, threads = default_threads();

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	while ((c = mt_getopt(argc, argv, "j:ko:v", longopts, USAGE)) != -1) {
		switch (c) {
		case 'j':
			threads = threads_arg(optarg);
			break;
		case 'k':
			keep_going = 1;
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	output_binary_or_die("an mt stream");
	in_name = io.in_name;
	mt_tidtable_init(&thread_names, sizeof(struct mt_thread_name));
	if ((err = mt_writer_init_fd(&out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	{
		struct mt_meta m = { intern_str("source"), intern_str("perf script") };

		check(mt_write_meta(&out, &m));
	}
	parse(io.in_fd, threads);
	if ((err = mt_writer_finish(&out)))
		die_mt(err, "%s: writing the stream", in_name);
	report(io.verbose);
	mt_writer_release(&out);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
