/* Unit tests for common/tidtable: a caller's slot per thread, by index. */
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "tidtable.h"
#include "unit.h"
#include "banned.h"

struct th {
	uint32_t pid, tid;
	char name[20];
};

static void test_empty(void)
{
	struct mt_tidtable t;

	poison(&t);
	mt_tidtable_init(&t, sizeof(struct th));
	CHECK_EQ(mt_tidtable_count(&t), 0);
	mt_tidtable_release(&t);
	CHECK_EQ(mt_tidtable_count(&t), 0);
	CHECK_EQ(t.elem, sizeof(struct th));
	mt_tidtable_release(&t);
}

static void test_order(void)
{
	struct mt_tidtable t;
	struct th *a, *b, *c;
	int is_new;

	poison(&t);
	mt_tidtable_init(&t, sizeof(struct th));
	CHECK_EQ(mt_tidtable_get(&t, 10, 11, &a, &is_new), 0);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(a->pid, 0); /* zeroed */
	CHECK_EQ(a->name[19], 0);
	a->pid = 10;
	a->tid = 11;
	CHECK_EQ(mt_tidtable_get(&t, 10, 12, &b, &is_new), 0);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(mt_tidtable_count(&t), 2);
	CHECK(b == mt_tidtable_at(&t, 1));
	/* the last thread again, then the first: is_new 0 both ways */
	CHECK_EQ(mt_tidtable_get(&t, 10, 12, &c, &is_new), 0);
	CHECK_EQ(is_new, 0);
	CHECK(c == b);
	CHECK_EQ(mt_tidtable_get(&t, 10, 11, &a, &is_new), 0);
	CHECK_EQ(is_new, 0);
	CHECK(a == mt_tidtable_at(&t, 0));
	CHECK_EQ(a->tid, 11);
	/* the same tid in another process is another thread */
	CHECK_EQ(mt_tidtable_get(&t, 20, 11, &c, NULL), 0);
	CHECK_EQ(mt_tidtable_count(&t), 3);
	mt_tidtable_release(&t);
	CHECK_EQ(mt_tidtable_count(&t), 0);
}

static void test_many(void)
{
	struct mt_tidtable t;
	struct th *p;
	uint32_t k;
	int is_new, bad = 0;

	mt_tidtable_init(&t, sizeof(struct th));
	for (k = 0; k < 100000; k++) {
		if (mt_tidtable_get(&t, k / 7, k * 3 + 1, &p, &is_new) ||
		    !is_new || p->pid || p->tid ||
		    p != mt_tidtable_at(&t, mt_tidtable_count(&t) - 1))
			bad++;
		p->pid = k / 7;
		p->tid = k * 3 + 1;
	}
	/* after every move of the array, every slot kept its contents */
	for (k = 0; k < 100000; k++) {
		if (mt_tidtable_get(&t, k / 7, k * 3 + 1, &p, &is_new) ||
		    is_new || p != mt_tidtable_at(&t, k) || p->pid != k / 7 ||
		    p->tid != k * 3 + 1)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(mt_tidtable_count(&t), 100000);
	mt_tidtable_release(&t);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_order);
	RUN(test_many);
	return unit_done();
}
