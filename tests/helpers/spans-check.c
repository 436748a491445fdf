/*
 * spans-check STREAM: read the SPAN records of an mt stream the way
 * Perfetto's slice tracker reads complete events (docs/fxt.md
 * 2.5-2.6), per thread: sorted by start with ties in file order, half-open
 * intervals, a slice that ends when or before the next starts is closed,
 * a slice that ends after its enclosing one is dropped ("partial overlap").
 * Also checks that each span is deeper than the span it nests in (depths
 * are relative), and counts nesting deeper than 512. Prints a summary; exits 0 only when nothing
 * would be dropped or misplaced. Memory grows with the spans: a test tool.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "stream.h"
#include "xalloc.h"
#include "banned.h"

struct sp {
	uint64_t start, end;
	uint32_t pid, tid;
	int32_t depth;
	uint64_t order;
	char *name;
};

static int cmp(const void *a, const void *b)
{
	const struct sp *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void show(const char *what, const struct sp *s)
{
	fprintf(stderr, "%s: tid %u [%llu, %llu] depth %d %s\n", what, s->tid,
		(unsigned long long)s->start, (unsigned long long)s->end,
		s->depth, s->name);
}

int main(int argc, char **argv)
{
	struct mt_reader r;
	struct mt_record rec;
	struct sp *v = NULL, **stack = NULL;
	size_t n = 0, cap = 0, i, sp = 0;
	unsigned long long drops = 0, depth_bad = 0, too_deep = 0, shown = 0;
	FILE *f;
	char *buf;
	long len;
	int got;

	mt_set_progname(argv[0]);
	if (argc != 2)
		die(MT_EXIT_USAGE, "usage: spans-check STREAM");
	f = fopen(argv[1], "rb");
	if (!f)
		die_errno(MT_EXIT_SYSTEM, "%s", argv[1]);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		die(MT_EXIT_SYSTEM, "%s: read failed", argv[1]);
	fclose(f);
	mt_reader_init_mem(&r, buf, (size_t)len);
	while ((got = mt_reader_next(&r, &rec)) > 0) {
		const char *name;

		if (rec.type != MT_REC_SPAN)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = xrealloc(v, cap, sizeof(*v));
		}
		name = mt_reader_str(&r, rec.u.span.name, NULL);
		v[n].start = rec.u.span.start;
		v[n].end = rec.u.span.end;
		v[n].pid = rec.u.span.pid;
		v[n].tid = rec.u.span.tid;
		v[n].depth = rec.u.span.depth;
		v[n].order = n;
		v[n].name = xstrdup(name ? name : "-");
		n++;
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", argv[1],
		       (unsigned long long)mt_reader_offset(&r));
	qsort(v, n, sizeof(*v), cmp);
	stack = xmallocarray(n + 1, sizeof(*stack));
	for (i = 0; i < n; i++) {
		struct sp *s = &v[i];

		if (i && (s->tid != v[i - 1].tid || s->pid != v[i - 1].pid))
			sp = 0;
		while (sp && stack[sp - 1]->end <= s->start)
			sp--;
		if (sp && s->end > stack[sp - 1]->end) {
			drops++;
			if (shown++ < 10) {
				show("dropped (partial overlap)", s);
				show("  inside", stack[sp - 1]);
			}
			continue;
		}
		/* a child must be deeper than the span it nests in (it may be
		 * deeper by more when a zero-length parent was closed first) */
		if (sp && s->depth <= stack[sp - 1]->depth) {
			depth_bad++;
			if (shown++ < 10) {
				show("depth does not match the nesting", s);
				show("  inside", stack[sp - 1]);
			}
		}
		if (sp >= 512)
			too_deep++;
		stack[sp++] = s;
	}
	printf("spans-check: %zu spans, %llu dropped, %llu with a wrong depth, "
	       "%llu deeper than 512\n", n, drops, depth_bad, too_deep);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	free(stack);
	free(buf);
	mt_reader_release(&r);
	return drops || depth_bad ? 1 : 0;
}
