/*
 * Unit tests for common/nest: Perfetto's nesting rule (docs/fxt.md 2.6) on
 * the small cases the document names, each pop logged as
 * "NAME[start,end)@depth" ("-" for an end never given), each cut as
 * "cut(NAME@ts)".
 */
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "nest.h"
#include "unit.h"
#include "banned.h"

static char log_[512];

static void say(const char *s)
{
	size_t n = strlen(log_);

	snprintf(log_ + n, sizeof(log_) - n, "%s%s", n ? " " : "", s);
}

static void on_pop(void *ctx, struct mt_nest *n)
{
	const struct mt_nest_frame *f = &n->f[n->n];
	char s[64];

	if (f->end == MT_NEST_PENDING)
		snprintf(s, sizeof(s), "%c[%llu,-)@%zu",
			 *(char *)mt_nest_data(n, n->n),
			 (unsigned long long)f->start, n->n);
	else
		snprintf(s, sizeof(s), "%c[%llu,%llu)@%zu",
			 *(char *)mt_nest_data(n, n->n),
			 (unsigned long long)f->start,
			 (unsigned long long)f->end, n->n);
	say(s);
}

static void on_cut(void *ctx, struct mt_nest *n, size_t i, uint64_t ts)
{
	char s[32];

	snprintf(s, sizeof(s), "cut(%c@%llu)", *(char *)mt_nest_data(n, i),
		 (unsigned long long)ts);
	say(s);
}

static const struct mt_nest_ops ops = { .pop = on_pop, .cut = on_cut };
static struct mt_nest nest;

static void start(void)
{
	log_[0] = '\0';
	poison(&nest);
	mt_nest_init(&nest, 1, &ops, NULL);
}

static void finish(const char *want)
{
	mt_nest_clear(&nest);
	CHECK_STR(log_, want);
	mt_nest_release(&nest);
	CHECK_EQ(nest.n, 0);
}

/* a complete slice (dur 0: an instant) or, with dur MT_NEST_PENDING, a
 * begin; a dropped one is logged "drop(NAME in OVER)" */
static void slice(char name, uint64_t ts, uint64_t dur)
{
	size_t over;

	if (!mt_nest_close(&nest, ts, dur, &over)) {
		char s[32];

		snprintf(s, sizeof(s), "drop(%c in %c)", name,
			 *(char *)mt_nest_data(&nest, over));
		say(s);
		return;
	}
	CHECK_EQ(mt_nest_push(&nest, ts,
			      dur == MT_NEST_PENDING ? dur : ts + dur), 0);
	*(char *)mt_nest_data(&nest, nest.n - 1) = name;
}

static void end(uint64_t ts)
{
	size_t i;

	if (mt_nest_find_begun(&nest, ts, &i))
		mt_nest_set_end(&nest, i, ts);
	else
		say("ignored");
}

static void test_null(void)
{
	start();
	finish("");
	start();
	CHECK(mt_nest_close(&nest, 5, 0, NULL));
	CHECK(!mt_nest_find_begun(&nest, 5, NULL));
	finish("");
}

/* fxt.md 2.6: parent first nests the child; child first drops the parent */
static void test_parent_child(void)
{
	start();
	slice('p', 0, 20);
	slice('c', 0, 10);
	finish("c[0,10)@1 p[0,20)@0");
	start();
	slice('c', 0, 10);
	slice('p', 0, 20);
	slice('x', 5, 1);
	finish("drop(p in c) x[5,6)@1 c[0,10)@0");
	/* equal intervals nest in file order */
	start();
	slice('a', 0, 10);
	slice('b', 0, 10);
	finish("b[0,10)@1 a[0,10)@0");
}

/* half-open intervals; zero-length slices at one time stack */
static void test_edges(void)
{
	start();
	slice('a', 0, 10);
	slice('b', 10, 5);
	finish("a[0,10)@0 b[10,15)@0");
	start();
	slice('a', 0, 10);
	slice('z', 10, 0);
	finish("a[0,10)@0 z[10,10)@0");
	start();
	slice('y', 10, 0);
	slice('z', 10, 0);
	slice('b', 10, 5);
	finish("z[10,10)@1 y[10,10)@0 b[10,15)@0");
}

/* begun slices outliving the complete slice they began in are cut at its
 * end; an end takes the top-most begun slice */
static void test_begin_end(void)
{
	start();
	slice('a', 0, 10);
	slice('b', 2, MT_NEST_PENDING);
	slice('c', 3, MT_NEST_PENDING);
	slice('x', 12, 1);
	finish("cut(a@12) c[3,10)@2 b[2,10)@1 a[0,10)@0 x[12,13)@0");
	start();
	slice('b', 0, MT_NEST_PENDING);
	slice('k', 1, 50);
	end(5);
	end(6);
	slice('n', 60, MT_NEST_PENDING);
	/* at 6, b (ended at 5, below k) pops the top, k: the end finds
	 * no begun slice open */
	finish("k[1,51)@1 ignored b[0,5)@0 n[60,-)@0");
}

/* the quirk: a slice that ended below the top pops the top */
static void test_quirk(void)
{
	start();
	slice('b', 0, MT_NEST_PENDING);
	slice('k', 1, 50);
	end(5);
	/* b ended at 5, below k: y pops k, and nests beside it under b */
	slice('y', 6, 1);
	finish("k[1,51)@1 y[6,7)@1 b[0,5)@0");
	start();
	slice('a', 0, 100);
	slice('b', 1, MT_NEST_PENDING);
	slice('k', 2, 10);
	end(3);
	/* b ended below k; at 20 k has ended: k is popped, then b */
	slice('x', 20, 1);
	finish("k[2,12)@2 b[1,3)@1 x[20,21)@1 a[0,100)@0");
}

/* the walk stops early but sees what it must: a deep stack stays cheap */
static void test_deep(void)
{
	uint64_t i;

	start();
	for (i = 0; i < 10000; i++)
		slice('d', i, 20000 - 2 * i);
	CHECK_EQ(nest.n, 10000);
	CHECK(nest.steps < 3 * 10000);
	slice('o', 20001, 5);
	CHECK_EQ(nest.n, 1);
	mt_nest_clear(&nest);
	mt_nest_release(&nest);
}

int main(void)
{
	RUN(test_null);
	RUN(test_parent_child);
	RUN(test_edges);
	RUN(test_begin_end);
	RUN(test_quirk);
	RUN(test_deep);
	return unit_done();
}
