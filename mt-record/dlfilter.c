/*
 * mt-dlfilter.so: a perf script --dlfilter that writes the mt event stream
 * itself, so that perf formats no text for branches and synthesized events
 * and nothing parses it back (docs/perf.md, "The dlfilter").
 *
 *   perf script --itrace=bep --dlfilter PREFIX/lib/mt/mt-dlfilter.so \
 *       --dlarg PATH|fd=N ...
 *
 * The records are those mt-script-parse makes of the text of
 * `perf script --itrace=bep -F comm,pid,tid,time,flags,ip,addr,sym,symoff,
 * synth,dso,event,period` (mt-record's field set: no cpu column, so no cpu).
 * Decoder errors and lost data reach perf's stdout as text even with a
 * dlfilter: the filter takes that text out of stdout's buffer at each
 * sample and at the end, and writes its ERROR records in that place.
 *
 * It runs inside perf: it never exits; on an error it says why on stderr
 * and returns -1, which ends perf script with status 255.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include <perf/perf_dlfilter.h>

#include "err.h"
#include "perfline.h"
#include "quote.h"
#include "stream.h"
#include "tidmap.h"
#include "banned.h"

/* what perf looks up with dlsym (everything else is built hidden) */
#define EXPORT __attribute__((visibility("default")))

/* perf fills this in when it loads the filter */
EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

#define NAME "mt-dlfilter"
/* perf's attr.type of its synthesized events, and their attr.config */
#define SYNTH_TYPE ((__u32)INT_MAX + 1u)
enum {
	SYNTH_PTWRITE, SYNTH_MWAIT, SYNTH_PWRE, SYNTH_EXSTOP, SYNTH_PWRX,
	SYNTH_CBR, SYNTH_PSB
};
/* stdout's buffer: perf's text between two samples must fit in it
 * (--dlarg text-buffer=BYTES sets another size, for tests) */
#define TEXT_BUF_SIZE ((size_t)16 << 20)

/* a string of perf's (a symbol, DSO or comm, which perf keeps while the
 * map or thread lives) by its address; verified against the copy, since
 * an address can be reused for another string */
#define CACHE_BITS 12
struct cache_ent {
	const char *key;
	const char *copy; /* the writer's, NUL-terminated */
	size_t len;
	uint32_t id;
	int unknown_is_none;
};

static struct {
	int started, failed;
	int fd;
	struct mt_writer out;
	struct cache_ent cache[1u << CACHE_BITS];
	struct mt_tidmap threads;
	uint32_t *comm; /* by thread index: the comm id sent */
	size_t comm_cap;
	/* the last sample's thread: runs of samples are mostly one thread's */
	int32_t last_pid, last_tid;
	uint32_t last_index;
	int have_last;
	char *text_buf;
	size_t text_size;
	/* fd 1 while the filter runs: a memfd, so that text flushed out of
	 * stdout's buffer (more than TEXT_BUF_SIZE between two samples) is
	 * seen at the end, not lost; perf's own fd 1 kept in saved_stdout */
	int spill, saved_stdout;
	char *pending; /* a partial line of perf's text (rare) */
	size_t pending_len;
	/* the last sample's event name (perf's evsel name: stable) */
	const char *last_event;
	size_t last_nlen;
	int last_is_branch;
} st;

static void say(const char *msg, int err)
{
	if (err)
		fprintf(stderr, NAME ": %s: %s\n", msg, mt_strerror(err));
	else
		fprintf(stderr, NAME ": %s\n", msg);
}

/* ---- strings ---- */

static int intern_len(const char *s, size_t len, uint32_t *id)
{
	int err = mt_writer_intern(&st.out, s, len, id);

	if (err)
		say("writing the stream", err);
	return err;
}

/* perf prints "[unknown]" for a missing symbol or DSO: no string */
static const char unknown[] = "[unknown]";

/* The id of perf's string s, 0 for NULL, and for "[unknown]" when
 * unknown_is_none (a symbol or DSO: the text parser takes it for none). */
static int intern_ptr(const char *s, int unknown_is_none, uint32_t *id)
{
	uintptr_t h = (uintptr_t)s;
	struct cache_ent *e;
	size_t len;
	int err;

	if (!s) {
		*id = 0;
		return 0;
	}
	e = &st.cache[(h * 0x9e3779b97f4a7c15ull) >> (64 - CACHE_BITS)];
	if (e->key == s && e->unknown_is_none == unknown_is_none &&
	    !memcmp(e->copy, s, e->len + 1)) {
		*id = e->id;
		return 0;
	}
	len = strlen(s);
	if (unknown_is_none && len == sizeof(unknown) - 1 &&
	    !memcmp(s, unknown, len)) {
		*id = 0;
		e->copy = unknown;
	} else {
		if ((err = intern_len(s, len, id)))
			return err;
		if (!*id)
			return 0;
		e->copy = mt_intern_str(&st.out.strings, *id, &len);
	}
	e->key = s;
	e->unknown_is_none = unknown_is_none;
	e->len = len;
	e->id = *id;
	return 0;
}

static int check(int err)
{
	if (err)
		say("writing the stream", err);
	return err;
}

/* ---- perf's text: decoder errors and lost data ---- */

/* Whether text went past stdout's buffer to fd 1 (then says so). */
static int spilled(void)
{
	struct stat sb;

	if (fstat(st.spill, &sb) || sb.st_size == 0)
		return 0;
	fprintf(stderr, NAME ": perf printed more than %zu bytes of text "
		"between two samples: their place in the stream is lost\n",
		st.text_size);
	return 1;
}

static int text_line(const char *p, size_t len)
{
	struct mt_perf_line l;
	struct mt_error e;
	const char *why;
	char shown[160];

	if (mt_perf_parse_line(p, len, &l, &why)) {
		if (spilled())
			return -1;
		fprintf(stderr, NAME ": perf printed a line that is not perf "
			"script output: %s: \"%s\"\n", why,
			mt_quote(shown, sizeof(shown), p, len));
		return -1;
	}
	switch (l.kind) {
	case MT_PL_BLANK:
		return 0;
	case MT_PL_ERROR:
	case MT_PL_LOST:
		mt_perf_error_record(&l, &e);
		if (intern_len(l.err_msg.p, l.err_msg.len, &e.msg))
			return -1;
		return check(mt_write_error(&st.out, &e)) ? -1 : 0;
	default:
		fprintf(stderr, NAME ": perf printed a line the dlfilter "
			"cannot place in the stream: \"%s\"\n",
			mt_quote(shown, sizeof(shown), p, len));
		return -1;
	}
}

/* The complete lines of p[0..n); returns how many bytes they take. */
static ssize_t text_lines(const char *p, size_t n)
{
	const char *start = p, *end = p + n, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (text_line(p, (size_t)(nl - p)))
			return -1;
		p = nl + 1;
	}
	return p - start;
}

/*
 * What perf printed to stdout since the last call: everything is in
 * stdout's buffer (set fully buffered and large in start()), between
 * glibc's _IO_write_base and _IO_write_ptr. Those bytes become records
 * here, in their place between the samples, and are taken out of the
 * buffer (__fpurge). A line cut at the end is kept for the next call.
 */
static int take_text(void)
{
	FILE *f = stdout;
	size_t n;
	ssize_t done;
	char *p;

	if (f->_IO_write_ptr == f->_IO_write_base)
		return 0;
	p = f->_IO_write_base;
	n = (size_t)(f->_IO_write_ptr - p);
	if (st.pending_len) {
		char *all = malloc(st.pending_len + n);

		if (!all) {
			say("out of memory", 0);
			return -1;
		}
		memcpy(all, st.pending, st.pending_len);
		memcpy(all + st.pending_len, p, n);
		free(st.pending);
		st.pending = all;
		p = all;
		n += st.pending_len;
		st.pending_len = 0;
	}
	done = text_lines(p, n);
	if (done < 0)
		return -1;
	if ((size_t)done < n) {
		char *rest = malloc(n - (size_t)done);

		if (!rest) {
			say("out of memory", 0);
			return -1;
		}
		memcpy(rest, p + done, n - (size_t)done);
		free(st.pending);
		st.pending = rest;
		st.pending_len = n - (size_t)done;
	} else {
		free(st.pending);
		st.pending = NULL;
	}
	__fpurge(f);
	return 0;
}

/* ---- records ---- */

/* THREAD when a thread is first seen or its name changes */
static int see_thread(const struct perf_dlfilter_sample *s, const char *comm)
{
	uint32_t i, id;
	int is_new = 0;

	if (st.have_last && s->pid == st.last_pid && s->tid == st.last_tid) {
		i = st.last_index;
	} else if (mt_tidmap_get(&st.threads, (uint32_t)s->pid,
				 (uint32_t)s->tid, &i, &is_new)) {
		say("out of memory", 0);
		return -1;
	}
	st.have_last = 1;
	st.last_pid = s->pid;
	st.last_tid = s->tid;
	st.last_index = i;
	if (i >= st.comm_cap) {
		size_t cap = st.comm_cap ? st.comm_cap * 2 : 64;
		uint32_t *c = realloc(st.comm, cap * sizeof(*c));

		if (!c) {
			say("out of memory", 0);
			return -1;
		}
		st.comm = c;
		st.comm_cap = cap;
	}
	if (intern_ptr(comm, 0, &id))
		return -1;
	if (!is_new && (id == 0 || id == st.comm[i]))
		return 0;
	st.comm[i] = id;
	{
		struct mt_thread th = { (uint32_t)s->pid, (uint32_t)s->tid, id,
					s->time };

		return check(mt_write_thread(&st.out, &th)) ? -1 : 0;
	}
}

static int loc(const struct perf_dlfilter_al *al, uint64_t ip,
	       struct mt_loc *l)
{
	l->ip = ip;
	l->off = MT_NONE64;
	l->sym = l->dso = 0;
	if (!al)
		return 0;
	if (intern_ptr(al->sym, 1, &l->sym) || intern_ptr(al->dso, 1, &l->dso))
		return -1;
	if (l->sym)
		l->off = al->symoff;
	return 0;
}

static int branch(const struct perf_dlfilter_sample *s,
		  const struct perf_dlfilter_al *al, void *ctx)
{
	struct mt_branch b = {
		.time = s->time, .pid = (uint32_t)s->pid, .tid = (uint32_t)s->tid,
		.cpu = MT_NONE32,
	};
	const struct perf_dlfilter_al *to = NULL;

	if (s->flags)
		mt_perf_branch_flags(s->flags, &b.kind, &b.flags);
	else
		b.flags = MT_BF_NOFLAGS; /* perf prints no flags word */
	if (s->addr_correlates_sym)
		to = perf_dlfilter_fns.resolve_addr(ctx);
	if (loc(al, s->ip, &b.from) || loc(to, s->addr, &b.to))
		return -1;
	return check(mt_write_branch(&st.out, &b)) ? -1 : 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * perf's text of a synthesized event (builtin-script.c's
 * perf_sample__fprintf_synth_*). Its raw data is the payload struct of
 * tools/perf/util/event.h less its first 4 bytes of padding; perf prints
 * nothing for data shorter than the struct.
 */
static void synth_text(__u64 config, const unsigned char *r, __u32 n,
		       char *buf, size_t cap)
{
	uint64_t v;
	uint32_t w;

	buf[0] = '\0';
	switch (config) {
	case SYNTH_PTWRITE:
		if (n >= 12)
			snprintf(buf, cap, "IP: %u payload: %#llx",
				 le32(r) & 1, (unsigned long long)le64(r + 4));
		break;
	case SYNTH_MWAIT:
		if (n >= 12) {
			v = le64(r + 4);
			snprintf(buf, cap, "hints: %#x extensions: %#x",
				 (unsigned)(v & 0xff), (unsigned)(v >> 32 & 3));
		}
		break;
	case SYNTH_PWRE:
		if (n >= 12) {
			v = le64(r + 4);
			snprintf(buf, cap, "hw: %u cstate: %u sub-cstate: %u",
				 (unsigned)(v >> 7 & 1), (unsigned)(v >> 12 & 15),
				 (unsigned)(v >> 8 & 15));
		}
		break;
	case SYNTH_EXSTOP:
		if (n >= 4)
			snprintf(buf, cap, "IP: %u", le32(r) & 1);
		break;
	case SYNTH_PWRX:
		if (n >= 12) {
			v = le64(r + 4);
			snprintf(buf, cap, "deepest cstate: %u last cstate: %u "
				 "wake reason: %#x", (unsigned)(v & 15),
				 (unsigned)(v >> 4 & 15), (unsigned)(v >> 8 & 15));
		}
		break;
	case SYNTH_CBR:
		if (n >= 12) {
			unsigned cbr, max, freq;
			int len;

			w = le32(r);
			cbr = w & 0xff;
			max = w >> 16 & 0xff;
			freq = (le32(r + 4) + 500) / 1000;
			len = snprintf(buf, cap, "cbr: %2u freq: %4u MHz", cbr, freq);
			if (max && len > 0 && (size_t)len < cap)
				snprintf(buf + len, cap - (size_t)len, " (%3u%%)",
					 (5 + (1000 * cbr) / max) / 10);
		}
		break;
	case SYNTH_PSB:
		if (n >= 12)
			snprintf(buf, cap, "psb offs: %#llx",
				 (unsigned long long)le64(r + 4));
		break;
	}
}

static int mark(const struct perf_dlfilter_sample *s, const char *name,
		size_t nlen, void *ctx)
{
	struct perf_event_attr *attr = perf_dlfilter_fns.attr(ctx);
	struct mt_perf_line l;
	struct mt_mark m = {
		.time = s->time, .pid = (uint32_t)s->pid, .tid = (uint32_t)s->tid,
		.cpu = MT_NONE32, .ip = s->ip,
	};
	char text[256];

	text[0] = '\0';
	if (attr && attr->type == SYNTH_TYPE && s->raw_data)
		synth_text(attr->config, s->raw_data, s->raw_size, text,
			   sizeof(text));
	if (mt_perf_parse_synth(name, nlen, text, strlen(text), &l))
		return 1; /* not one: the caller says so */
	m.kind = l.mark_kind;
	m.value = l.mark_value;
	if (intern_len(name, nlen, &m.name) ||
	    intern_len(l.mark_text.p, l.mark_text.len, &m.text))
		return -1;
	return check(mt_write_mark(&st.out, &m)) ? -1 : 0;
}

/* ---- perf's entry points ---- */

EXPORT const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description =
			"Writes mt's event stream (branches, synthesized "
			"events, decoder errors) to --dlarg PATH or fd=N; "
			"perf prints nothing.";
	return "mt: perf script to the mt event stream";
}

static int open_output(const char *arg)
{
	if (!strncmp(arg, "fd=", 3)) {
		char *end;
		long fd;

		errno = 0;
		fd = strtol(arg + 3, &end, 10);
		if (errno || *end || end == arg + 3 || fd < 0 || fd > INT_MAX) {
			fprintf(stderr, NAME ": --dlarg %s: not a descriptor "
				"number\n", arg);
			return -1;
		}
		/* a descriptor of our own: fd=1 is perf's stdout, which
		 * start() redirects */
		if ((fd = fcntl((int)fd, F_DUPFD_CLOEXEC, 3)) < 0) {
			fprintf(stderr, NAME ": --dlarg %s: %s\n", arg,
				strerror(errno));
			return -1;
		}
		return (int)fd;
	}
	{
		int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

		if (fd < 0)
			fprintf(stderr, NAME ": %s: %s\n", arg, strerror(errno));
		return fd;
	}
}

EXPORT int start(void **data, void *ctx)
{
	char **argv;
	int argc = 0, err;
	uint32_t k, v;

	*data = NULL;
	argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;
	st.text_size = TEXT_BUF_SIZE;
	if (argc == 2 && !strncmp(argv[1], "text-buffer=", 12)) {
		char *end;

		errno = 0;
		st.text_size = strtoul(argv[1] + 12, &end, 10);
		if (errno || *end || st.text_size < 2 || st.text_size > TEXT_BUF_SIZE)
			argc = 0;
		else
			argc = 1;
	}
	if (argc != 1 || !argv || !argv[0][0]) {
		say("usage: perf script --dlfilter mt-dlfilter.so "
		    "--dlarg PATH|fd=N [--dlarg text-buffer=BYTES]", 0);
		return -1;
	}
	if ((st.fd = open_output(argv[0])) < 0)
		return -1;
	/* perf's text goes to this buffer until take_text() takes it */
	st.text_buf = malloc(st.text_size); /* never freed: stdout keeps it */
	if (!st.text_buf || fflush(stdout) ||
	    setvbuf(stdout, st.text_buf, _IOFBF, st.text_size)) {
		say("cannot set up the buffer of perf's stdout", 0);
		return -1;
	}
	st.spill = memfd_create("mt-dlfilter-stdout", MFD_CLOEXEC);
	st.saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (st.spill < 0 || st.saved_stdout < 0 ||
	    dup2(st.spill, STDOUT_FILENO) < 0) {
		fprintf(stderr, NAME ": cannot set up perf's stdout: %s\n",
			strerror(errno));
		return -1;
	}
	mt_tidmap_init(&st.threads);
	if ((err = mt_writer_init_fd(&st.out, st.fd))) {
		say("starting the stream", err);
		return -1;
	}
	st.started = 1;
	if (intern_len("source", 6, &k) || intern_len("perf script", 11, &v))
		return -1;
	{
		struct mt_meta m = { k, v };

		if (check(mt_write_meta(&st.out, &m)))
			return -1;
	}
	return 0;
}

EXPORT int filter_event(void *data, const struct perf_dlfilter_sample *s, void *ctx)
{
	const struct perf_dlfilter_al *al;
	const char *ev = s->event ? s->event : "";
	int r;

	if (st.failed)
		return -1;
	if (take_text())
		goto fail;
	al = perf_dlfilter_fns.resolve_ip(ctx);
	if (see_thread(s, al ? al->comm : NULL))
		goto fail;
	if (ev != st.last_event) {
		st.last_event = ev;
		st.last_nlen = mt_perf_event_name_len(ev, strlen(ev));
		st.last_is_branch = st.last_nlen == 8 && !memcmp(ev, "branches", 8);
	}
	if (st.last_is_branch)
		r = branch(s, al, ctx);
	else
		r = mark(s, ev, st.last_nlen, ctx);
	if (r > 0) {
		char shown[128];

		fprintf(stderr, NAME ": samples of event '%s' are not handled "
			"(it writes branches and synthesized events only)\n",
			mt_quote(shown, sizeof(shown), ev, strlen(ev)));
	}
	if (r)
		goto fail;
	return 1;
fail:
	st.failed = 1;
	return -1;
}

EXPORT int stop(void *data, void *ctx)
{
	int err, ret = 0;

	if (!st.started)
		return 0;
	if (!st.failed && take_text())
		ret = -1;
	if (!st.failed && !ret && st.pending_len) {
		/* perf's last line had no newline */
		if (text_line(st.pending, st.pending_len))
			ret = -1;
	}
	if (!st.failed && !ret && spilled())
		ret = -1;
	fflush(stdout);
	dup2(st.saved_stdout, STDOUT_FILENO);
	close(st.spill);
	close(st.saved_stdout);
	if (!st.failed && !ret && (err = mt_writer_finish(&st.out))) {
		say("writing the stream", err);
		ret = -1;
	}
	mt_writer_release(&st.out);
	mt_tidmap_release(&st.threads);
	free(st.comm);
	free(st.pending);
	if (close(st.fd) && !ret) {
		fprintf(stderr, NAME ": closing the stream: %s\n", strerror(errno));
		ret = -1;
	}
	st.started = 0;
	return st.failed ? -1 : ret;
}
