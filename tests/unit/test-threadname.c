/* Unit tests for common/threadname: when a THREAD record is due. */
#include <stdint.h>
#include <string.h>

#include "threadname.h"
#include "unit.h"
#include "banned.h"

/* First sight: due, whatever the name, 0 too. */
static void test_first(void)
{
	struct mt_thread_name t, u;

	memset(&t, 0, sizeof(t));
	CHECK_EQ(mt_thread_name_due(&t, 7), 1);
	CHECK_EQ(t.name, 7);
	memset(&u, 0, sizeof(u));
	CHECK_EQ(mt_thread_name_due(&u, 0), 1);
	CHECK_EQ(u.name, 0);
	/* then a name is due once */
	CHECK_EQ(mt_thread_name_due(&u, 0), 0);
	CHECK_EQ(mt_thread_name_due(&u, 3), 1);
	CHECK_EQ(mt_thread_name_due(&u, 3), 0);
}

/* A new name is due; the same one, or none, is not, and leaves it. */
static void test_change(void)
{
	struct mt_thread_name t;

	memset(&t, 0, sizeof(t));
	CHECK_EQ(mt_thread_name_due(&t, 7), 1);
	CHECK_EQ(mt_thread_name_due(&t, 7), 0);
	CHECK_EQ(mt_thread_name_due(&t, 0), 0);
	CHECK_EQ(t.name, 7);
	CHECK_EQ(mt_thread_name_due(&t, 9), 1);
	CHECK_EQ(t.name, 9);
	CHECK_EQ(mt_thread_name_due(&t, 7), 1);
	CHECK_EQ(mt_thread_name_due(&t, 7), 0);
}

int main(void)
{
	RUN(test_first);
	RUN(test_change);
	return unit_done();
}
