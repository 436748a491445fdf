/*
 * stacks-check: compare the call spans of an mt stream (mt-stacks' output)
 * with the spans gen-perf-script --truth says the simulation had.
 *
 * usage: stacks-check [--no-times] TRUTH STREAM
 *
 * TRUTH holds one span a line, tab-separated:
 *
 *   pid tid depth start_ns end_ns flags name
 *
 * flags is "-" or a comma list of "inferred" and "open"; name "[untraced]"
 * or "[syscall]" is a span of that kind, any other name a function.
 * STREAM ("-": standard input) is read for its SPAN records of kinds
 * function, untraced and syscall; other records and kinds are ignored. A
 * function span without a name is "[unknown]"; an untraced or syscall span
 * without one gets its kind's name.
 *
 * Per thread (pid, tid) the two are compared as multisets of (kind, name,
 * start, end, flags, depth), where the stream's depth (a signed 32-bit
 * number) may differ from the truth's by a constant: mt-stacks counts from
 * where the thread's trace began. That constant is the most common
 * difference over the spans that agree in everything but depth.
 *
 * --no-times compares everything but the times, for output whose times
 * moved (mt-stacks without --no-spread spreads events that share a
 * timestamp). Per thread the stream's depths are shifted so that its
 * shallowest span is as deep as the truth's; then, level by level (spans
 * of one depth never overlap), the spans in time order must agree one for
 * one in kind, name and flags, and each must nest in the same span of the
 * level above. Which span that is comes from the times of each side on
 * its own; where it cannot be told (a span [t, t] between one that ends at
 * t and one that starts at t) either will do. Ties in time keep the order
 * of the file: the truth is written in the order spans end, and spans of
 * one depth end in the order they start.
 *
 * With --no-times an [untraced] or [syscall] span is held to more: it must
 * be a child of the frame that was running when the trace stopped, and be
 * shown so. In the truth that frame is the first span of the level above
 * written after it (the frame ends after it, and no other span of its
 * level ends in between). In the stream it is the span of the level above
 * that holds it as Perfetto nests spans: starting at or before it (with
 * equal starts, earlier in the file) and ending after its start and not
 * before its end. A pseudo-span that touches its frame only at the frame's
 * end, nested by neither rule, does not match.
 *
 * Prints for each thread and then for all
 *   matched M of N truth spans, X extra spans in the output
 * and the first 20 mismatches in time order. Exit status: 0 if every truth
 * span is matched and nothing is extra, 1 if not or if an input is bad, 2
 * on a usage error, 3 on a system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "err.h"
#include "intern.h"
#include "stream.h"
#include "xalloc.h"
#include "banned.h"

#define SHOW_MAX 20

struct span {
	uint64_t start, end;
	uint32_t pid, tid;
	int64_t depth;		/* less the thread's offset if read */
	int32_t raw_depth;	/* as read */
	uint32_t name;		/* id in names */
	uint16_t flags;
	uint8_t kind;
	uint8_t extra;		/* a mismatch: 1 read, 0 from the truth */
	uint8_t nest;		/* a mismatch only in where it nests */
	size_t seq;		/* place in its file */
	/* --no-times: the spans of the level above it may nest in, as
	 * indexes [lo, hi) into that level; empty when none */
	size_t lo, hi;
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static struct mt_intern names;
static uint32_t name_unknown, name_untraced, name_syscall;

static uint32_t intern(const char *s, size_t len)
{
	uint32_t id;
	int err = mt_intern_get(&names, s, len, &id, NULL);

	if (err)
		die_mt(err, "interning a name");
	return id;
}

/* Make room for one more span (an empty array gets room too). */
static void spans_grow(struct spans *a)
{
	size_t cap = a->cap ? 2 * a->cap : 4096;

	if (a->n < a->cap)
		return;
	a->v = xrealloc(a->v, cap, sizeof(*a->v));
	a->cap = cap;
}

static struct span *spans_add(struct spans *a)
{
	spans_grow(a);
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	a->v[a->n].seq = a->n;
	return &a->v[a->n++];
}

/* ---- the truth file ---- */

/* Next tab-separated field of *p (the rest of the line when last). */
static char *field(char **p, int last)
{
	char *s = *p, *tab;

	if (!s)
		return NULL;
	tab = last ? NULL : strchr(s, '\t');
	*p = tab ? tab + 1 : NULL;
	if (tab)
		*tab = '\0';
	return s;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_flags(const char *s, uint16_t *flags)
{
	if (!s)
		return -1;
	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (;;) {
		size_t n = strcspn(s, ",");
		uint16_t bit = 0;

		if (n == 8 && !memcmp(s, "inferred", 8))
			bit = MT_SF_INFERRED;
		else if (n == 4 && !memcmp(s, "open", 4))
			bit = MT_SF_OPEN;
		if (!bit || (*flags & bit))
			return -1;
		*flags |= bit;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

static _Noreturn void bad_line(const char *path, size_t lineno,
				const char *what)
{
	die(MT_EXIT_DATA, "%s:%zu: %s", path, lineno, what);
}

static void read_truth(const char *path, struct spans *a)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;

	if (!f)
		die_errno(MT_EXIT_DATA, "cannot open %s", path);
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct span *s = spans_add(a);
		char *p = line, *name;
		uint64_t pid, tid, depth;
		const char *dep;
		int neg;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != (size_t)len)
			bad_line(path, lineno, "NUL byte in line");
		if (parse_u64(field(&p, 0), &pid) || pid > UINT32_MAX ||
		    parse_u64(field(&p, 0), &tid) || tid > UINT32_MAX)
			bad_line(path, lineno, "bad pid or tid");
		dep = field(&p, 0);
		neg = dep && *dep == '-';
		if (!dep || parse_u64(dep + neg, &depth) ||
		    depth > (uint64_t)INT32_MAX + (uint64_t)neg)
			bad_line(path, lineno, "bad depth");
		s->depth = neg ? -(int64_t)depth : (int64_t)depth;
		s->raw_depth = (int32_t)s->depth;
		if (parse_u64(field(&p, 0), &s->start) ||
		    parse_u64(field(&p, 0), &s->end))
			bad_line(path, lineno, "bad start or end time");
		if (parse_flags(field(&p, 0), &s->flags))
			bad_line(path, lineno, "bad flags");
		name = field(&p, 1);
		if (!name || !*name)
			bad_line(path, lineno, "no name");
		s->pid = (uint32_t)pid;
		s->tid = (uint32_t)tid;
		s->name = intern(name, strlen(name));
		s->kind = s->name == name_untraced ? MT_SPAN_UNTRACED :
			  s->name == name_syscall  ? MT_SPAN_SYSCALL :
						     MT_SPAN_FUNCTION;
	}
	if (ferror(f))
		die_errno(MT_EXIT_SYSTEM, "error reading %s", path);
	free(line);
	fclose(f);
}

/* ---- the stream ---- */

static void read_stream(const char *path, struct spans *a)
{
	struct mt_reader r;
	struct mt_record rec;
	int fd = STDIN_FILENO, err;

	if (strcmp(path, "-") && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		die_errno(MT_EXIT_DATA, "cannot open %s", path);
	if ((err = mt_reader_init_fd(&r, fd, NULL, 0)))
		die_mt(err, "%s", path);
	while ((err = mt_reader_next(&r, &rec)) > 0) {
		const struct mt_span *in = &rec.u.span;
		struct span *s;
		const char *name;
		size_t len;

		if (rec.type != MT_REC_SPAN || in->kind < MT_SPAN_FUNCTION ||
		    in->kind > MT_SPAN_SYSCALL)
			continue;
		s = spans_add(a);
		s->start = in->start;
		s->end = in->end;
		s->pid = in->pid;
		s->tid = in->tid;
		s->raw_depth = in->depth;
		s->depth = s->raw_depth;
		s->flags = in->flags;
		s->kind = in->kind;
		name = mt_reader_str(&r, in->name, &len);
		if (name)
			s->name = intern(name, len);
		else
			s->name = in->kind == MT_SPAN_UNTRACED ? name_untraced :
				  in->kind == MT_SPAN_SYSCALL  ? name_syscall :
								 name_unknown;
	}
	if (err < 0)
		die_mt(err, "%s: offset %" PRIu64, path, mt_reader_offset(&r));
	mt_reader_release(&r);
	if (fd != STDIN_FILENO)
		close(fd);
}

/* ---- comparing ---- */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* Order by thread, then everything but depth, then depth. */
static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->pid, b->pid)) || (c = CMP(a->tid, b->tid)) ||
	    (c = CMP(a->start, b->start)) || (c = CMP(a->end, b->end)) ||
	    (c = CMP(a->kind, b->kind)) || (c = CMP(a->name, b->name)) ||
	    (c = CMP(a->flags, b->flags)))
		return c;
	return CMP(a->depth, b->depth);
}

static int same_but_depth(const struct span *a, const struct span *b)
{
	return a->start == b->start && a->end == b->end && a->kind == b->kind &&
	       a->name == b->name && a->flags == b->flags;
}

/* Time order for the list of mismatches, missing before extra. */
static int cmp_time(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->start, b->start)) || (c = CMP(a->end, b->end)) ||
	    (c = CMP(a->pid, b->pid)) || (c = CMP(a->tid, b->tid)) ||
	    (c = CMP(a->extra, b->extra)))
		return c;
	return CMP(a->depth, b->depth);
}

/* qsort, which may not be given NULL even for no elements */
static void sort(void *v, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(v, n, size, cmp);
}

static int cmp_i64(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;

	return CMP(*a, *b);
}

static int cmp_thread(const struct span *a, const struct span *b)
{
	int c = CMP(a->pid, b->pid);

	return c ? c : CMP(a->tid, b->tid);
}

static int same_thread(const struct span *a, const struct span *b)
{
	return !cmp_thread(a, b);
}

/*
 * The stream's depth less the truth's that most spans agree on, pairing
 * spans equal in all else in depth order; 0 if none are equal. diff has
 * room for min(nt, no) values.
 */
static int64_t depth_offset(const struct span *t, size_t nt,
			    const struct span *o, size_t no, int64_t *diff)
{
	size_t i = 0, j = 0, nd = 0, best = 0;
	int64_t off = 0;

	while (i < nt && j < no) {
		int c = cmp_span(&t[i], &o[j]);

		if (same_but_depth(&t[i], &o[j]))
			diff[nd++] = o[j++].depth - t[i++].depth;
		else if (c < 0)
			i++;
		else
			j++;
	}
	sort(diff, nd, sizeof(*diff), cmp_i64);
	for (size_t k = 0; k < nd;) {
		size_t e = k;

		while (e < nd && diff[e] == diff[k])
			e++;
		if (e - k > best) {
			best = e - k;
			off = diff[k];
		}
		k = e;
	}
	return off;
}

static void put_time(uint64_t ns)
{
	printf("%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

static void put_name(const char *s, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void show(const struct span *s)
{
	static const char *const kinds[] = {
		"?", "function", "untraced", "syscall",
	};
	static const char *const flags[] = {
		"-", "inferred", "open", "inferred,open",
	};
	const char *name;
	size_t len;

	printf("%s %" PRIu32 "/%" PRIu32 " depth=%" PRId64,
	       s->extra ? "extra:  " : "missing:", s->pid, s->tid, s->depth);
	if (s->extra)
		printf(" (%" PRId32 " in the stream)", s->raw_depth);
	printf(" start=");
	put_time(s->start);
	printf(" end=");
	put_time(s->end);
	if (s->flags < 4)
		printf(" flags=%s", flags[s->flags]);
	else
		printf(" flags=0x%" PRIx16, s->flags);
	printf(" kind=%s name=", kinds[s->kind]);
	name = mt_intern_str(&names, s->name, &len);
	put_name(name ? name : "", name ? len : 0);
	if (s->nest)
		printf(" (nests in another span)");
	putchar('\n');
}

static void summary(const char *who, size_t matched, size_t ntruth,
		    size_t extra)
{
	printf("%s: matched %zu of %zu truth spans, "
	       "%zu extra spans in the output\n", who, matched, ntruth, extra);
}

/* ---- --no-times ---- */

/* Order by depth, then time, ties in file order. */
static int cmp_level(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->depth, b->depth)) || (c = CMP(a->start, b->start)) ||
	    (c = CMP(a->end, b->end)))
		return c;
	return CMP(a->seq, b->seq);
}

/* The spans of v[0..n) (sorted by cmp_level) at depth d: [*b, *e). */
static void level(const struct span *v, size_t n, int64_t d, size_t *b,
		  size_t *e)
{
	size_t i = 0;

	while (i < n && v[i].depth < d)
		i++;
	*b = i;
	while (i < n && v[i].depth == d)
		i++;
	*e = i;
}

/*
 * Set lo and hi of each span to the spans of the level above whose times
 * hold its own. A level's spans follow one another, so their starts and
 * ends both grow: those that start early enough are a prefix, those that
 * end late enough a suffix.
 */
static void nest_ranges(struct span *v, size_t n)
{
	size_t pb = 0, pe = 0, b, e;

	for (size_t i = 0; i < n; i = e) {
		level(v, n, v[i].depth, &b, &e);
		if (b && v[b - 1].depth == v[b].depth - 1)
			level(v, n, v[b].depth - 1, &pb, &pe);
		else
			pb = pe = b;
		for (size_t k = b; k < e; k++) {
			size_t lo = pb, hi = pe;
			struct span *s = &v[k];

			/* lo: first that ends at or after s; hi: past the last
			 * that starts at or before s */
			while (lo < hi) {
				size_t m = lo + (hi - lo) / 2;

				if (v[m].end < s->end)
					lo = m + 1;
				else
					hi = m;
			}
			hi = pe;
			for (size_t l = pb; l < hi;) {
				size_t m = l + (hi - l) / 2;

				if (v[m].start <= s->start)
					l = m + 1;
				else
					hi = m;
			}
			if (lo >= hi || v[lo].start > s->start ||
			    v[hi - 1].end < s->end)
				lo = hi = pb;	/* none, or a level that overlaps */
			s->lo = lo - pb;
			s->hi = hi - pb;
		}
	}
}

/* Order by place in the file. */
static int cmp_seq(const void *pa, const void *pb)
{
	const struct span *const *a = pa, *const *b = pb;

	return CMP((*a)->seq, (*b)->seq);
}

static int is_pseudo(const struct span *s)
{
	return s->kind == MT_SPAN_UNTRACED || s->kind == MT_SPAN_SYSCALL;
}

/* Where the level at depth d of v[0..n) (sorted by cmp_level) starts:
 * what the lo and hi of the spans below it count from. */
static size_t level_start(const struct span *v, size_t n, int64_t d)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (v[m].depth < d)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/*
 * The truth's pseudo-spans: lo and hi name the one span they nest in, the
 * first of the level above in file order after them; none when no such
 * span follows.
 */
static void nest_pseudo_by_order(struct span *v, size_t n)
{
	struct span **ord = xmallocarray(n + 1, sizeof(*ord));
	size_t *wait = xmallocarray(n + 1, sizeof(*wait)), nwait = 0;

	for (size_t i = 0; i < n; i++)
		ord[i] = &v[i];
	sort(ord, n, sizeof(*ord), cmp_seq);
	/* the pseudo-spans still waiting for their frame; few at a time */
	for (size_t i = 0; i < n; i++) {
		struct span *s = ord[i];
		size_t k = 0;

		for (size_t w = 0; w < nwait; w++) {
			struct span *p = &v[wait[w]];

			if (p->depth == s->depth + 1) {
				size_t b = level_start(v, n, s->depth);

				p->lo = (size_t)(s - v) - b;
				p->hi = p->lo + 1;
			} else {
				wait[k++] = wait[w];
			}
		}
		nwait = k;
		if (is_pseudo(s)) {
			s->lo = s->hi = 0;
			wait[nwait++] = (size_t)(s - v);
		}
	}
	free(ord);
	free(wait);
}

/*
 * The stream's pseudo-spans: of the spans of the level above whose times
 * hold them (lo, hi from nest_ranges), only the one Perfetto nests them in
 * (half-open intervals, ties in file order); none when there is none.
 */
static void nest_pseudo_by_time(struct span *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct span *s = &v[i];
		size_t b, lo = s->lo, hi = s->hi;

		if (!is_pseudo(s))
			continue;
		s->lo = s->hi = 0;
		if (lo >= hi)
			continue;
		b = level_start(v, n, s->depth - 1);
		for (size_t k = lo; k < hi; k++) {
			const struct span *p = &v[b + k];

			if (p->start <= s->start && s->start < p->end &&
			    s->end <= p->end &&
			    (p->start < s->start || p->seq < s->seq)) {
				s->lo = k;
				s->hi = k + 1;
				break;
			}
		}
	}
}

static int64_t min_depth(const struct span *v, size_t n)
{
	int64_t d = n ? v[0].depth : 0;

	for (size_t i = 1; i < n; i++)
		if (v[i].depth < d)
			d = v[i].depth;
	return d;
}

static int same_nest(const struct span *a, const struct span *b)
{
	if (a->lo >= a->hi || b->lo >= b->hi)
		return a->lo >= a->hi && b->lo >= b->hi;
	return (a->lo > b->lo ? a->lo : b->lo) < (a->hi < b->hi ? a->hi : b->hi);
}

/*
 * One thread without times: level by level, one for one. Mismatches go to
 * bad; returns the number matched and sets *off to the depth offset.
 */
static size_t compare_untimed(struct span *t, size_t nt, struct span *o,
			      size_t no, struct spans *bad, int64_t *off)
{
	size_t matched = 0, i = 0, j = 0;

	*off = nt && no ? min_depth(o, no) - min_depth(t, nt) : 0;
	for (size_t k = 0; k < no; k++)
		o[k].depth -= *off;
	sort(t, nt, sizeof(*t), cmp_level);
	sort(o, no, sizeof(*o), cmp_level);
	nest_ranges(t, nt);
	nest_ranges(o, no);
	nest_pseudo_by_order(t, nt);
	nest_pseudo_by_time(o, no);
	while (i < nt || j < no) {
		int c = i == nt ? 1 : j == no ? -1 : CMP(t[i].depth, o[j].depth);
		struct span *x;

		if (!c && t[i].kind == o[j].kind && t[i].name == o[j].name &&
		    t[i].flags == o[j].flags && same_nest(&t[i], &o[j])) {
			matched++;
			i++;
			j++;
			continue;
		}
		if (c <= 0) {
			x = spans_add(bad);
			*x = t[i];
			x->nest = !c && t[i].kind == o[j].kind &&
				  t[i].name == o[j].name && t[i].flags == o[j].flags;
			i++;
		}
		if (c >= 0) {
			x = spans_add(bad);
			*x = o[j];
			x->extra = 1;
			x->nest = !c && bad->v[bad->n - 2].nest;
			j++;
		}
	}
	return matched;
}

/* Compare thread by thread; returns whether all matched. */
static int compare(struct spans *truth, struct spans *out, int no_times)
{
	struct spans bad = { NULL, 0, 0 };
	size_t i = 0, j = 0, all_matched = 0, all_extra = 0;
	int64_t *diff;

	sort(truth->v, truth->n, sizeof(truth->v[0]), cmp_span);
	sort(out->v, out->n, sizeof(out->v[0]), cmp_span);
	diff = xmallocarray(truth->n < out->n ? truth->n : out->n, sizeof(*diff));
	while (i < truth->n || j < out->n) {
		const struct span *first;
		struct span *t, *o;
		size_t nt = 0, no = 0, a = 0, b = 0, matched = 0;
		int64_t off;
		char who[64];

		/* the next thread, in (pid, tid) order */
		if (i < truth->n &&
		    (j == out->n || cmp_thread(&truth->v[i], &out->v[j]) <= 0))
			first = &truth->v[i];
		else
			first = &out->v[j];
		t = truth->v + i;
		o = out->v + j;
		while (i + nt < truth->n && same_thread(&t[nt], first))
			nt++;
		while (j + no < out->n && same_thread(&o[no], first))
			no++;
		if (no_times) {
			matched = compare_untimed(t, nt, o, no, &bad, &off);
			a = nt;
			b = no;
		} else {
			off = depth_offset(t, nt, o, no, diff);
			for (size_t k = 0; k < no; k++)
				o[k].depth -= off;	/* keeps the order */
		}
		while (a < nt || b < no) {
			int c = a == nt ? 1 :
				b == no ? -1 :
					  cmp_span(&t[a], &o[b]);

			if (!c) {
				matched++;
				a++;
				b++;
				continue;
			}
			*spans_add(&bad) = c < 0 ? t[a++] : o[b++];
			bad.v[bad.n - 1].extra = c > 0;
		}
		snprintf(who, sizeof(who),
			 "thread %" PRIu32 "/%" PRIu32
			 " (depth offset %" PRId64 ")",
			 first->pid, first->tid, off);
		summary(who, matched, nt, no - matched);
		all_matched += matched;
		all_extra += no - matched;
		i += nt;
		j += no;
	}
	free(diff);
	sort(bad.v, bad.n, sizeof(bad.v[0]), cmp_time);
	if (bad.n)
		printf("first mismatches (of %zu), in time order:\n", bad.n);
	for (size_t k = 0; k < bad.n && k < SHOW_MAX; k++)
		show(&bad.v[k]);
	summary("all threads", all_matched, truth->n, all_extra);
	free(bad.v);
	return all_matched == truth->n && !all_extra;
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: stacks-check [--no-times] TRUTH STREAM\n");
	exit(MT_EXIT_USAGE);
}

int main(int argc, char **argv)
{
	struct spans truth = { NULL, 0, 0 }, out = { NULL, 0, 0 };
	int ok, no_times = 0;

	mt_set_progname(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "--no-times")) {
		no_times = 1;
		argc--;
		argv++;
	}
	if (argc != 3 || (argv[1][0] == '-' && argv[1][1]))
		usage();
	spans_grow(&truth);
	spans_grow(&out);
	mt_intern_init(&names);
	name_unknown = intern("[unknown]", 9);
	name_untraced = intern("[untraced]", 10);
	name_syscall = intern("[syscall]", 9);

	read_truth(argv[1], &truth);
	read_stream(argv[2], &out);
	ok = compare(&truth, &out, no_times);

	free(truth.v);
	free(out.v);
	mt_intern_release(&names);
	close_stdout_or_die();
	return ok ? 0 : MT_EXIT_DATA;
}
