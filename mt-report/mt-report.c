/*
 * mt-report: calls, total and self time per function of an mt stream of
 * spans or an FXT file. See docs/mt-report.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "fxtread.h"
#include "../tests/helpers/fxtcheck.h" /* interim: until the FXT path streams */
#include "intern.h"
#include "names.h"
#include "quote.h"
#include "stream.h"
#include "tidmap.h"
#include "wire.h"
#include "banned.h"

#define USAGE "usage: mt-report [-v] [--by key] [--json] [-n rows] [--kind list] [--pid list] [--tid list] [-o output] [file]\n"

static struct mt_filter_io io;

/* ---- options ---- */

enum sort_key { BY_TOTAL, BY_SELF, BY_CALLS };
static enum sort_key by = BY_TOTAL;
static int json;
static size_t limit = SIZE_MAX;
static unsigned kinds = 1u << MT_SPAN_FUNCTION; /* bit per enum mt_span_kind */

/* A --pid or --tid list: numbers separated by commas; none: all. */
struct idlist {
	uint32_t *v;
	size_t n, cap;
};

static struct idlist pids, tids;

static void idlist_parse(struct idlist *l, const char *arg, const char *opt)
{
	const char *s = arg;

	do {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v >= MT_NONE32 || (*end && *end != ','))
			die(MT_EXIT_USAGE, "%s %s: expected numbers separated by commas",
			    opt, arg);
		grow_or_die(&l->v, &l->cap, l->n, sizeof(*l->v));
		l->v[l->n++] = (uint32_t)v;
		s = end + (*end == ',');
	} while (*s);
}

static int idlist_has(const struct idlist *l, uint32_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 1;
	return !l->n;
}

static void kinds_parse(const char *arg)
{
	const char *s = arg;

	kinds = 0;
	while (*s) {
		size_t n = strcspn(s, ","), k;

		if (n == 3 && !memcmp(s, "all", 3)) {
			kinds = ~0u;
		} else {
			for (k = 1; k < MT_SPAN_NKINDS; k++)
				if (strlen(mt_span_kind_names[k]) == n &&
				    !memcmp(s, mt_span_kind_names[k], n))
					break;
			if (k == MT_SPAN_NKINDS)
				die(MT_EXIT_USAGE, "--kind %s: expected kinds separated "
				    "by commas: function, untraced, syscall, kernel, "
				    "gap, interrupt, all", arg);
			kinds |= 1u << k;
		}
		s += n + (s[n] == ',');
	}
	if (!kinds)
		die(MT_EXIT_USAGE, "--kind %s: no kind given", arg);
}

/* ---- the calls, gathered from either input ---- */

/*
 * Every counted span of the input, 32 bytes each. Calls are nested by
 * their times, and the stream leaves the order of spans to the producer
 * (mt-stacks writes them when they end, but parents before children among
 * equal starts; mt-slice --match walks back through them): all of them
 * are held and sorted.
 */
struct call {
	uint64_t start, end;
	uint32_t thread; /* index in threads */
	uint32_t fn;     /* id in names */
	int32_t depth;   /* the input's: breaks ties of equal starts */
};

static struct call *calls;
static size_t ncalls, calls_cap;
static struct mt_tidmap threads;
static struct mt_intern names;
static uint64_t nspans, nother[MT_SPAN_NKINDS + 1], nfiltered, nunended;

static void add_call(uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
		     int32_t depth, unsigned kind, const char *name, size_t len)
{
	struct call *c;
	uint32_t th;

	nspans++;
	if (!idlist_has(&pids, pid) || !idlist_has(&tids, tid)) {
		nfiltered++;
		return;
	}
	if (kind >= MT_SPAN_NKINDS || !(kinds & (1u << kind))) {
		nother[kind < MT_SPAN_NKINDS ? kind : MT_SPAN_NKINDS]++;
		return;
	}
	grow_or_die(&calls, &calls_cap, ncalls, sizeof(*calls));
	c = &calls[ncalls];
	if (mt_tidmap_get(&threads, pid, tid, &th, NULL) ||
	    mt_intern_get(&names, name, len, &c->fn, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	c->start = start;
	c->end = end < start ? start : end;
	c->thread = th;
	c->depth = depth;
	ncalls++;
}

/* ---- reading the input: the whole of it, inflated when gzip'd ---- */

static void read_all(int fd, struct mt_buf *b)
{
	for (;;) {
		ssize_t k;

		if (mt_buf_grow(b, 1 << 16))
			die(MT_EXIT_SYSTEM, "out of memory");
		k = read(fd, b->p + b->len, b->cap - b->len - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", io.in_name);
		if (!k)
			return;
		b->len += (size_t)k;
	}
}

/* Inflate the gzip members in in (as `cat a.gz b.gz` makes) into out. */
static void gunzip(const struct mt_buf *in, struct mt_buf *out)
{
	z_stream zs;
	int zerr = Z_OK;

	if (in->len > 0xffffffffu)
		die(MT_EXIT_DATA, "%s: gzip data of 4 GiB or more", io.in_name);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		die(MT_EXIT_SYSTEM, "out of memory");
	zs.next_in = (unsigned char *)in->p;
	zs.avail_in = (uInt)in->len;
	while (zs.avail_in) {
		if (mt_buf_grow(out, 1 << 18))
			die(MT_EXIT_SYSTEM, "out of memory");
		zs.next_out = (unsigned char *)out->p + out->len;
		zs.avail_out = (uInt)(out->cap - out->len - 1);
		zerr = inflate(&zs, Z_NO_FLUSH);
		out->len = (size_t)((char *)zs.next_out - out->p);
		if (zerr == Z_STREAM_END) {
			if (zs.avail_in && inflateReset(&zs) != Z_OK)
				die(MT_EXIT_DATA, "%s: bad gzip data", io.in_name);
		} else if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
			die(MT_EXIT_DATA, "%s: bad gzip data: %s", io.in_name,
			    zs.msg ? zs.msg : "inflate failed");
		} else if (zerr == Z_BUF_ERROR && zs.avail_out) {
			break;
		}
	}
	if (zerr != Z_STREAM_END)
		die(MT_EXIT_DATA, "%s: gzip data ends early", io.in_name);
	out->p[out->len] = '\0';
	inflateEnd(&zs);
}

/* ---- an mt stream ---- */

static void stream_calls(struct mt_reader *r)
{
	struct mt_record rec;
	int got;

	while ((got = mt_reader_next(r, &rec)) > 0) {
		const struct mt_span *s = &rec.u.span;
		const char *name;
		size_t len;

		if (rec.type != MT_REC_SPAN)
			continue;
		name = mt_reader_str(r, s->name, &len);
		if (!name) {
			name = "[unknown]";
			len = strlen(name);
		}
		add_call(s->pid, s->tid, s->start, s->end, s->depth, s->kind, name,
			 len);
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", io.in_name,
		       (unsigned long long)mt_reader_offset(r));
	mt_reader_release(r);
}

/* ---- an FXT file: the slices Perfetto would show ---- */

/*
 * FXT has no kinds: the pseudo-spans are known by the names mt-stacks
 * gives them and mt-fxt writes, and kernel frames by an "address" argument
 * in the kernel's half of the address space (mt-stacks' test).
 */
static unsigned fxt_kind(const struct mt_fxt_check *c,
			 const struct mt_fxt_slice *s, const char *name,
			 size_t len)
{
	size_t i;

	if (len == 9 && !memcmp(name, "[syscall]", 9))
		return MT_SPAN_SYSCALL;
	if (len == 10 && !memcmp(name, "[untraced]", 10))
		return MT_SPAN_UNTRACED;
	if (name[len - (len > 0)] == ']' &&
	    ((len > 12 && !memcmp(name, "[lost data: ", 12)) ||
	     (len > 15 && !memcmp(name, "[decode error: ", 15))))
		return MT_SPAN_GAP;
	for (i = 0; i < s->nargs; i++) {
		const struct mt_fxt_slice_arg *a = &c->args[s->arg0 + i];
		size_t n;
		const char *an = mt_fxt_check_str(c, a->name, &n);

		if (a->type == MT_FXT_ARG_POINTER && n == 7 &&
		    !memcmp(an, "address", 7) && a->u >= 0xffff800000000000ull)
			return MT_SPAN_KERNEL;
	}
	return MT_SPAN_FUNCTION;
}

static void fxt_fatal(const struct mt_fxt_check *c, int problem,
		      const char *what)
{
	if (c->count[problem])
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: %s", io.in_name,
		    (unsigned long long)c->ex[problem][0].offset, what);
}

static void fxt_calls(const struct mt_buf *b)
{
	struct mt_fxt_check c;
	size_t i;

	mt_fxt_check_init(&c);
	if (mt_fxt_check_mem(&c, b->p, b->len))
		die(MT_EXIT_SYSTEM, "out of memory");
	fxt_fatal(&c, MT_FXT_SIZE_ZERO, "record of size 0");
	fxt_fatal(&c, MT_FXT_TRUNCATED, "truncated record");
	if (io.verbose && mt_fxt_check_problems(&c))
		warn("%s: %llu events or records Perfetto would drop or misplace "
		     "(fxt-check lists them)", io.in_name,
		     (unsigned long long)mt_fxt_check_problems(&c));
	for (i = 0; i < c.nslices; i++) {
		const struct mt_fxt_slice *s = &c.slices[i];
		size_t len;
		const char *name = mt_fxt_check_str(&c, s->name, &len);

		if (s->ev_type == MT_FXT_EV_INSTANT)
			continue;
		if (s->dur < 0) {
			nunended++;
			continue;
		}
		add_call(s->pid, s->tid, (uint64_t)s->start,
			 (uint64_t)s->start + (uint64_t)s->dur, (int32_t)s->depth,
			 fxt_kind(&c, s, name, len), name, len);
	}
	mt_fxt_check_release(&c);
}

static void read_input(void)
{
	unsigned char magic[8];
	struct mt_buf raw = MT_BUF_INIT, inflated = MT_BUF_INIT;
	const struct mt_buf *b = &raw;
	size_t got = 0;
	struct mt_reader r;
	int err;

	while (got < sizeof(magic)) {
		ssize_t k = read(io.in_fd, magic + got, sizeof(magic) - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", io.in_name);
		if (!k)
			break;
		got += (size_t)k;
	}
	if (got < 2 || !((magic[0] == 0x1f && magic[1] == 0x8b) ||
			 (got == 8 && mt_get64(magic) == MT_FXT_MAGIC))) {
		/* an mt stream, read as it comes: the reader judges it */
		if ((err = mt_reader_init_fd(&r, io.in_fd, magic, got)))
			die_mt(err, "%s", io.in_name);
		stream_calls(&r);
		return;
	}
	if (mt_buf_add(&raw, magic, got))
		die(MT_EXIT_SYSTEM, "out of memory");
	read_all(io.in_fd, &raw);
	if (magic[0] == 0x1f && magic[1] == 0x8b) {
		gunzip(&raw, &inflated);
		mt_buf_release(&raw);
		b = &inflated;
	}
	if (b->len >= MT_MAGIC_LEN && !memcmp(b->p, MT_MAGIC, MT_MAGIC_LEN)) {
		mt_reader_init_mem(&r, b->p, b->len);
		stream_calls(&r);
	} else if (b->len >= 8 && mt_get64((const unsigned char *)b->p) ==
				       MT_FXT_MAGIC) {
		fxt_calls(b);
	} else {
		die(MT_EXIT_DATA, "%s: gzip data holding neither an mt stream nor "
		    "an FXT file", io.in_name);
	}
	mt_buf_release(b == &raw ? &raw : &inflated);
}

/* ---- nesting: per thread, in start order ---- */

struct fn {
	uint64_t calls, total, self;
	uint64_t min, median, p99, max;
	uint32_t onstack; /* open calls of it on the thread being walked */
	uint32_t id;
};

static struct fn *fns; /* by name id */

static int by_start(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* siblings starting together: the shorter first, so that the
	 * longer stays open for what nests in it */
	return x->end < y->end ? -1 : x->end > y->end;
}

/* c lies in p, p shallower; a span starting where a longer p ends is not
 * inside it (as mt-slice and Perfetto nest them). */
static int inside(const struct call *c, const struct call *p)
{
	return p->start <= c->start && c->end <= p->end && p->depth < c->depth &&
	       !(c->start == p->end && p->start < p->end);
}

struct open_call {
	const struct call *c;
	uint64_t children; /* inclusive time of its direct children */
};

static struct open_call *stk;
static size_t nstk, stk_cap;

static void pop(void)
{
	struct open_call *o = &stk[--nstk];
	uint64_t dur = o->c->end - o->c->start;
	struct fn *f = &fns[o->c->fn];

	f->self += dur > o->children ? dur - o->children : 0;
	f->onstack--;
}

static void walk(void)
{
	size_t i;

	qsort(calls, ncalls, sizeof(*calls), by_start);
	for (i = 0; i < ncalls; i++) {
		const struct call *c = &calls[i];
		struct fn *f = &fns[c->fn];
		uint64_t dur = c->end - c->start;

		while (nstk && (stk[nstk - 1].c->thread != c->thread ||
				!inside(c, stk[nstk - 1].c)))
			pop();
		if (nstk)
			stk[nstk - 1].children += dur;
		f->calls++;
		if (!f->onstack++)
			f->total += dur;
		grow_or_die(&stk, &stk_cap, nstk, sizeof(*stk));
		stk[nstk].c = c;
		stk[nstk++].children = 0;
	}
	while (nstk)
		pop();
}

/* ---- the distribution of a call's inclusive time: exact ---- */

static int by_fn_dur(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return dx < dy ? -1 : dx > dy;
}

/* The nearest-rank q/100 quantile of n sorted calls: the value of rank
 * ceil(q * n / 100). */
static uint64_t rank(const struct call *v, uint64_t n, unsigned q)
{
	uint64_t r = (n * q + 99) / 100;
	const struct call *c = &v[r ? r - 1 : 0];

	return c->end - c->start;
}

static void distributions(void)
{
	size_t i = 0;

	qsort(calls, ncalls, sizeof(*calls), by_fn_dur);
	while (i < ncalls) {
		struct fn *f = &fns[calls[i].fn];
		const struct call *v = &calls[i];

		f->min = rank(v, f->calls, 0);
		f->median = rank(v, f->calls, 50);
		f->p99 = rank(v, f->calls, 99);
		f->max = rank(v, f->calls, 100);
		i += f->calls;
	}
}

/* ---- output ---- */

static uint64_t key_of(const struct fn *f)
{
	return by == BY_SELF ? f->self : by == BY_CALLS ? f->calls : f->total;
}

static int by_key(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	uint64_t kx = key_of(x), ky = key_of(y);
	size_t lx, ly;
	const char *nx, *ny;
	int d;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	nx = mt_intern_str(&names, x->id, &lx);
	ny = mt_intern_str(&names, y->id, &ly);
	d = memcmp(nx, ny, lx < ly ? lx : ly);
	return d ? d : (lx > ly) - (lx < ly);
}

static void print_time(uint64_t ns)
{
	if (ns < 1000)
		printf(" %8llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		printf(" %8.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		printf(" %8.3f ms", (double)ns / 1e6);
	else
		printf(" %8.3f s ", (double)ns / 1e9);
}

/* A JSON string of the bytes: printable ASCII as it is (but \" and \\),
 * every other byte as \u00XX, so the output is ASCII whatever the name. */
static void json_bytes(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch > 0x7e)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_report(const struct fn *v, size_t n)
{
	size_t i;
	char *q = NULL;
	size_t qcap = 0;

	if (json)
		printf("{\"by\":\"%s\",\"functions\":[",
		       by == BY_SELF ? "self" : by == BY_CALLS ? "calls" : "total");
	else
		printf("%11s %11s %10s %11s %11s %11s %11s  %s\n", "total", "self",
		       "calls", "min", "median", "p99", "max", "function");
	for (i = 0; i < n; i++) {
		const struct fn *f = &v[i];
		size_t len;
		const char *name = mt_intern_str(&names, f->id, &len);

		if (json) {
			printf("%s\n{\"name\":", i ? "," : "");
			json_bytes(name, len);
			printf(",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,"
			       "\"min_ns\":%llu,\"median_ns\":%llu,\"p99_ns\":%llu,"
			       "\"max_ns\":%llu}",
			       (unsigned long long)f->calls,
			       (unsigned long long)f->total,
			       (unsigned long long)f->self,
			       (unsigned long long)f->min,
			       (unsigned long long)f->median,
			       (unsigned long long)f->p99,
			       (unsigned long long)f->max);
			continue;
		}
		print_time(f->total);
		print_time(f->self);
		printf(" %10llu", (unsigned long long)f->calls);
		print_time(f->min);
		print_time(f->median);
		print_time(f->p99);
		print_time(f->max);
		if (MT_QUOTE_SIZE(len) > qcap) {
			qcap = MT_QUOTE_SIZE(len);
			free(q);
			if (!(q = malloc(qcap)))
				die(MT_EXIT_SYSTEM, "out of memory");
		}
		printf("  %s\n", mt_quote(q, qcap, name, len));
	}
	if (json)
		printf("\n]}\n");
	free(q);
}

static void report(void)
{
	size_t nfns = mt_intern_count(&names), i, n = 0;
	struct fn *v;

	fns = calloc(nfns + 1, sizeof(*fns));
	if (!fns)
		die(MT_EXIT_SYSTEM, "out of memory");
	walk();
	distributions();
	v = malloc((nfns + 1) * sizeof(*v));
	if (!v)
		die(MT_EXIT_SYSTEM, "out of memory");
	for (i = 1; i <= nfns; i++) {
		fns[i].id = (uint32_t)i;
		v[n++] = fns[i];
	}
	qsort(v, n, sizeof(*v), by_key);
	print_report(v, n < limit ? n : limit);
	free(v);
	free(fns);
}

static void say_counts(void)
{
	unsigned k;

	fprintf(stderr, "%s: %s: %llu spans, %zu calls counted of %zu functions "
		"on %zu threads", mt_progname(), io.in_name,
		(unsigned long long)nspans, ncalls, mt_intern_count(&names),
		threads.n);
	for (k = 1; k < MT_SPAN_NKINDS; k++)
		if (nother[k])
			fprintf(stderr, ", %llu %s spans left out",
				(unsigned long long)nother[k], mt_span_kind_names[k]);
	if (nother[MT_SPAN_NKINDS])
		fprintf(stderr, ", %llu spans of unknown kinds left out",
			(unsigned long long)nother[MT_SPAN_NKINDS]);
	if (nfiltered)
		fprintf(stderr, ", %llu on other threads",
			(unsigned long long)nfiltered);
	if (nunended)
		fprintf(stderr, ", %llu slices that did not end left out",
			(unsigned long long)nunended);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	enum { OPT_BY = 256, OPT_JSON, OPT_KIND, OPT_PID, OPT_TID };
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, OPT_BY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "limit", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	mt_set_progname(argv[0]);
	mt_finish_on_interrupt();
	while ((c = getopt_long(argc, argv, "n:o:v", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BY:
			if (!strcmp(optarg, "total"))
				by = BY_TOTAL;
			else if (!strcmp(optarg, "self"))
				by = BY_SELF;
			else if (!strcmp(optarg, "calls"))
				by = BY_CALLS;
			else
				die(MT_EXIT_USAGE, "--by %s: expected total, self or "
				    "calls", optarg);
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'n': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-')
				die(MT_EXIT_USAGE, "-n %s: expected a number of rows",
				    optarg);
			limit = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
			break;
		}
		case OPT_KIND:
			kinds_parse(optarg);
			break;
		case OPT_PID:
			idlist_parse(&pids, optarg, "--pid");
			break;
		case OPT_TID:
			idlist_parse(&tids, optarg, "--tid");
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	mt_tidmap_init(&threads);
	mt_intern_init(&names);
	read_input();
	if (io.verbose)
		say_counts();
	if (!ncalls) {
		if (nspans)
			die(MT_EXIT_DATA, "%s: none of its %llu spans is counted "
			    "(see --kind, --pid, --tid)", io.in_name,
			    (unsigned long long)nspans);
		die(MT_EXIT_DATA, "%s: no spans", io.in_name);
	}
	report();
	free(calls);
	free(stk);
	free(pids.v);
	free(tids.v);
	mt_intern_release(&names);
	mt_tidmap_release(&threads);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
