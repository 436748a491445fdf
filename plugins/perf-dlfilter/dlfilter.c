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
 * With --dlarg sideband, perf also prints its MMAP, COMM, FORK and EXIT
 * records (--show-mmap-events --show-task-events): they write nothing,
 * but tell the filter when a resolution it keeps may no longer be perf's.
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
#include "threadname.h"
#include "tidtable.h"
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
/* stdout's buffer (--dlarg text-buffer=BYTES sets another size, for
 * tests); text past it is flushed to the spill memfd, read from there */
#define TEXT_BUF_SIZE ((size_t)16 << 20)
/* the spill memfd's mapped size: text flushed between two samples must
 * fit in it; the file starts again from 0 once SPILL_RESET is passed */
#define SPILL_SIZE ((size_t)1 << 30)
#define SPILL_RESET ((size_t)64 << 20)

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

/*
 * A location perf resolved (an ip, kind 0, or a branch target, kind 1:
 * perf looks them up slightly differently) for a thread, in the cpumode
 * of its sample, as the ids and offset loc() made of it. perf's answer
 * for the same thread and address changes only when its maps do, at a
 * MMAP, COMM (exec), FORK or EXIT record; with --dlarg sideband perf
 * prints those, each starts a new generation, and an entry is good only
 * in its own. User-space addresses only (the kernel's maps change without
 * a record of those: modules, BPF, text pokes).
 */
#define RES_BITS 13
struct res_ent {
	uint64_t addr, off;
	uint32_t gen; /* 0: empty */
	int32_t pid, tid;
	uint32_t sym, dso;
	uint8_t cpumode, kind;
};

/* A thread's name as the stream has it, and the generation perf's was
 * last checked in (0: never). */
struct thread_state {
	struct mt_thread_name name;
	uint32_t gen;
};

static struct {
	int started, failed;
	int fd;
	struct mt_writer out;
	struct cache_ent cache[1u << CACHE_BITS];
	/* --dlarg sideband: perf prints its side-band records, so the
	 * resolutions below are kept for the generation they were made in */
	int sideband;
	uint32_t gen;
	struct res_ent res[1u << RES_BITS];
	struct mt_tidtable threads; /* of struct thread_state */
	char *text_buf;
	size_t text_size;
	/* fd 1 while the filter runs: a memfd, so that text flushed out of
	 * stdout's buffer (more than text_size between two samples) is kept
	 * there in order; mapped, so that seeing whether there is any is a
	 * load (spill_map[spill_pos], zero until perf writes there); perf's
	 * own fd 1 kept in saved_stdout */
	int spill, saved_stdout;
	const char *spill_map;
	size_t spill_pos;
	char *pending; /* a partial line of perf's text (rare) */
	size_t pending_len, pending_cap;
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

/* A new generation: every kept resolution and thread name is checked
 * with perf again. */
static void new_generation(void)
{
	struct thread_state *t;
	size_t i;

	if (++st.gen == 0) {
		memset(st.res, 0, sizeof(st.res));
		for (i = 0; i < mt_tidtable_count(&st.threads); i++) {
			t = mt_tidtable_at(&st.threads, i);
			t->gen = 0;
		}
		st.gen = 1;
	}
}

static int text_line(const char *p, size_t len)
{
	struct mt_perf_line l;
	struct mt_error e;
	const char *why;
	char shown[160];

	if (mt_perf_parse_line(p, len, &l, &why)) {
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
	case MT_PL_COMM:
	case MT_PL_SKIP:
		/* a side-band record perf printed for us: perf's maps or
		 * threads changed (other records print only if asked for) */
		if (!st.sideband || (l.kind == MT_PL_SKIP &&
				     !strstr(l.skip_reason, "PERF_RECORD")))
			break;
		new_generation();
		return 0;
	default:
		break;
	}
	fprintf(stderr, NAME ": perf printed a line the dlfilter cannot "
		"place in the stream: \"%s\"\n", mt_quote(shown, sizeof(shown), p, len));
	return -1;
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

/* Appends p[0..n) to the pending text. */
static int add_pending(const char *p, size_t n)
{
	if (st.pending_len + n > st.pending_cap) {
		size_t cap = st.pending_cap ? st.pending_cap : 4096;
		char *q;

		while (cap < st.pending_len + n)
			cap *= 2;
		if (!(q = realloc(st.pending, cap))) {
			say("out of memory", 0);
			return -1;
		}
		st.pending = q;
		st.pending_cap = cap;
	}
	memcpy(st.pending + st.pending_len, p, n);
	st.pending_len += n;
	return 0;
}

/*
 * Text perf's stdout flushed to fd 1 (the spill memfd) since the last
 * call, appended to the pending text: it came after that and before what
 * is in the buffer now. The file restarts from 0 once it is large.
 */
static int take_spill(void)
{
	off_t end = lseek(st.spill, 0, SEEK_CUR);

	if (end < 0 || (size_t)end < st.spill_pos) {
		say("reading perf's text", end < 0 ? errno : EIO);
		return -1;
	}
	if ((size_t)end > SPILL_SIZE) {
		fprintf(stderr, NAME ": perf printed more than %zu MiB of text "
			"between two samples\n", SPILL_SIZE >> 20);
		return -1;
	}
	if (add_pending(st.spill_map + st.spill_pos, (size_t)end - st.spill_pos))
		return -1;
	st.spill_pos = (size_t)end;
	if (st.spill_pos >= SPILL_RESET) {
		if (ftruncate(st.spill, 0) || ftruncate(st.spill, (off_t)SPILL_SIZE) ||
		    lseek(st.spill, 0, SEEK_SET)) {
			say("reading perf's text", errno);
			return -1;
		}
		st.spill_pos = 0;
	}
	return 0;
}

/*
 * What perf printed to stdout since the last call: in stdout's buffer
 * (set fully buffered in start()), between glibc's _IO_write_base and
 * _IO_write_ptr, after what the buffer's flushes wrote to the spill memfd
 * (rare: more than the buffer between two samples; seen by a load, the
 * memfd's next byte no longer 0). Those bytes become records here, in
 * their place between the samples, and are taken out of the buffer
 * (__fpurge). A line cut at the end is kept for the next call.
 */
static int take_text(void)
{
	FILE *f = stdout;
	size_t n;
	ssize_t done;
	char *p;

	if (st.spill_map[st.spill_pos]) {
		if (take_spill())
			return -1;
	} else if (f->_IO_write_ptr == f->_IO_write_base) {
		return 0;
	}
	p = f->_IO_write_base;
	n = (size_t)(f->_IO_write_ptr - p);
	if (st.pending_len) {
		if (add_pending(p, n))
			return -1;
		p = st.pending;
		n = st.pending_len;
	}
	done = text_lines(p, n);
	if (done < 0)
		return -1;
	if (p == st.pending) {
		memmove(st.pending, st.pending + done, n - (size_t)done);
		st.pending_len = n - (size_t)done;
	} else if (add_pending(p + done, n - (size_t)done)) {
		return -1;
	}
	__fpurge(f);
	return 0;
}

/* ---- records ---- */

/* What perf resolved the sample's ip to, asked once a sample. */
struct sample_ctx {
	const struct perf_dlfilter_sample *s;
	void *ctx;
	const struct perf_dlfilter_al *ip_al;
	int have_ip_al;
};

static const struct perf_dlfilter_al *ip_al(struct sample_ctx *c)
{
	if (!c->have_ip_al) {
		c->ip_al = perf_dlfilter_fns.resolve_ip(c->ctx);
		c->have_ip_al = 1;
	}
	return c->ip_al;
}

/* THREAD when a thread is first seen or its name changes; with the side
 * band, a known thread's name is checked once a generation (a COMM
 * record begins one). */
static int see_thread(struct sample_ctx *c)
{
	const struct perf_dlfilter_sample *s = c->s;
	const struct perf_dlfilter_al *al;
	struct thread_state *t;
	uint32_t id;
	int is_new;

	if (mt_tidtable_get(&st.threads, (uint32_t)s->pid, (uint32_t)s->tid,
			    &t, &is_new)) {
		say("out of memory", 0);
		return -1;
	}
	if (st.sideband && !is_new && t->gen == st.gen)
		return 0;
	t->gen = st.gen;
	al = ip_al(c);
	if (intern_ptr(al ? al->comm : NULL, 0, &id))
		return -1;
	if (!mt_thread_name_due(&t->name, id))
		return 0;
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

enum { RES_IP, RES_ADDR };

/* The kept resolution's slot for (kind, addr) of the sample's thread;
 * NULL when such resolutions are not kept. */
static struct res_ent *res_slot(const struct perf_dlfilter_sample *s,
				uint8_t kind, uint64_t addr)
{
	uint64_t h;

	if (!st.sideband || s->cpumode != PERF_RECORD_MISC_USER ||
	    addr >> 63)
		return NULL;
	h = (addr ^ (uint64_t)(uint32_t)s->tid << 40 ^ kind) *
	    0x9e3779b97f4a7c15ull;
	return &st.res[h >> (64 - RES_BITS)];
}

/* l for addr (kind RES_IP: the sample's ip, else its target), from the
 * kept resolution or perf's. */
static int resolve(struct sample_ctx *c, uint8_t kind, uint64_t addr,
		   struct mt_loc *l)
{
	const struct perf_dlfilter_sample *s = c->s;
	struct res_ent *e = res_slot(s, kind, addr);
	const struct perf_dlfilter_al *al;

	if (e && e->gen == st.gen && e->addr == addr && e->tid == s->tid &&
	    e->pid == s->pid && e->kind == kind && e->cpumode == s->cpumode) {
		l->ip = addr;
		l->sym = e->sym;
		l->dso = e->dso;
		l->off = e->off;
		return 0;
	}
	al = kind == RES_IP ? ip_al(c) : perf_dlfilter_fns.resolve_addr(c->ctx);
	if (loc(al, addr, l))
		return -1;
	if (e) {
		e->addr = addr;
		e->off = l->off;
		e->gen = st.gen;
		e->pid = s->pid;
		e->tid = s->tid;
		e->sym = l->sym;
		e->dso = l->dso;
		e->cpumode = s->cpumode;
		e->kind = kind;
	}
	return 0;
}

static int branch(struct sample_ctx *c)
{
	const struct perf_dlfilter_sample *s = c->s;
	struct mt_branch b = {
		.time = s->time, .pid = (uint32_t)s->pid, .tid = (uint32_t)s->tid,
		.cpu = MT_NONE32,
	};

	if (s->flags)
		mt_perf_branch_flags(s->flags, &b.kind, &b.flags);
	else
		b.flags = MT_BF_NOFLAGS; /* perf prints no flags word */
	if (resolve(c, RES_IP, s->ip, &b.from))
		return -1;
	if (!s->addr_correlates_sym) {
		b.to.ip = s->addr;
		b.to.off = MT_NONE64;
		b.to.sym = b.to.dso = 0;
	} else if (resolve(c, RES_ADDR, s->addr, &b.to)) {
		return -1;
	}
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
	st.sideband = 0;
	st.gen = 1;
	for (int i = 1; argv && i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "sideband")) {
			st.sideband = 1;
			continue;
		}
		errno = 0;
		if (strncmp(argv[i], "text-buffer=", 12) ||
		    (st.text_size = strtoul(argv[i] + 12, &end, 10), errno) ||
		    *end || st.text_size < 2 || st.text_size > TEXT_BUF_SIZE) {
			argc = 0;
			break;
		}
	}
	if (argc < 1 || !argv || !argv[0][0]) {
		say("usage: perf script --dlfilter mt-dlfilter.so "
		    "--dlarg PATH|fd=N [--dlarg sideband] "
		    "[--dlarg text-buffer=BYTES]", 0);
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
	st.spill_pos = 0;
	st.spill_map = MAP_FAILED;
	if (st.spill >= 0 && !ftruncate(st.spill, (off_t)SPILL_SIZE))
		st.spill_map = mmap(NULL, SPILL_SIZE, PROT_READ, MAP_SHARED,
				    st.spill, 0);
	st.saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (st.spill < 0 || st.spill_map == MAP_FAILED || st.saved_stdout < 0 ||
	    dup2(st.spill, STDOUT_FILENO) < 0) {
		fprintf(stderr, NAME ": cannot set up perf's stdout: %s\n",
			strerror(errno));
		return -1;
	}
	mt_tidtable_init(&st.threads, sizeof(struct thread_state));
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
	struct sample_ctx c = { s, ctx, NULL, 0 };
	const char *ev = s->event ? s->event : "";
	int r;

	if (st.failed)
		return -1;
	if (take_text())
		goto fail;
	if (see_thread(&c))
		goto fail;
	if (ev != st.last_event) {
		st.last_event = ev;
		st.last_nlen = mt_perf_event_name_len(ev, strlen(ev));
		st.last_is_branch = st.last_nlen == 8 && !memcmp(ev, "branches", 8);
	}
	if (st.last_is_branch)
		r = branch(&c);
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
	fflush(stdout);
	dup2(st.saved_stdout, STDOUT_FILENO);
	close(st.spill);
	close(st.saved_stdout);
	munmap((void *)st.spill_map, SPILL_SIZE);
	if (!st.failed && !ret && (err = mt_writer_finish(&st.out))) {
		say("writing the stream", err);
		ret = -1;
	}
	mt_writer_release(&st.out);
	mt_tidtable_release(&st.threads);
	free(st.pending);
	if (close(st.fd) && !ret) {
		fprintf(stderr, NAME ": closing the stream: %s\n", strerror(errno));
		ret = -1;
	}
	st.started = 0;
	return st.failed ? -1 : ret;
}
