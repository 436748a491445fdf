/* Unit tests for common/proc (lines of /proc/PID/maps, the online CPUs)
 * and mt_grow (common/buf). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "proc.h"
#include "unit.h"
#include "banned.h"

static void test_maps_file(void)
{
	struct mt_map m;

	CHECK_EQ(mt_maps_parse("55d0c0a00000-55d0c0a02000 r-xp 00001000 fd:01 1234"
			       "                       /usr/bin/my prog (x)\n", &m), 0);
	CHECK_EQ(m.start, 0x55d0c0a00000ull);
	CHECK_EQ(m.end, 0x55d0c0a02000ull);
	CHECK_EQ(m.pgoff, 0x1000);
	CHECK_EQ(m.exec, 1);
	/* a path with blanks and parentheses, without the newline */
	CHECK_EQ(m.path_len, strlen("/usr/bin/my prog (x)"));
	CHECK(!memcmp(m.path, "/usr/bin/my prog (x)", m.path_len));
}

static void test_maps_other(void)
{
	struct mt_map m;

	/* anonymous: no path, not executable */
	CHECK_EQ(mt_maps_parse("7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n", &m), 0);
	CHECK_EQ(m.exec, 0);
	CHECK_EQ(m.path_len, 0);
	CHECK_EQ(mt_maps_parse("7ffd1000-7ffd3000 r-xp 00000000 00:00 0  [vdso]", &m), 0);
	CHECK_EQ(m.path_len, 6);
	CHECK(!memcmp(m.path, "[vdso]", 6));
	CHECK_EQ(mt_maps_parse("garbage\n", &m), MT_ESYNTAX);
	CHECK_EQ(mt_maps_parse("1000-2000 r-xp 0\n", &m), MT_ESYNTAX);
	CHECK_EQ(mt_maps_parse("", &m), MT_ESYNTAX);
}

static void test_online_cpus(void)
{
	int *cpus = NULL;
	size_t n = 0, i;

	CHECK_EQ(mt_online_cpus(&cpus, &n), 0);
	CHECK(n >= 1);
	for (i = 1; i < n; i++)
		CHECK(cpus[i] > cpus[i - 1]);
	free(cpus);
}

static void test_grow(void)
{
	int *v = NULL;
	size_t cap = 0, i;

	CHECK_EQ(mt_grow(&v, &cap, 0, sizeof(*v)), 0);
	CHECK(v == NULL);
	CHECK_EQ(mt_grow(&v, &cap, 3, sizeof(*v)), 0);
	CHECK(cap >= 3);
	v[0] = 7;
	CHECK_EQ(mt_grow(&v, &cap, 100, sizeof(*v)), 0);
	CHECK(cap >= 100);
	CHECK_EQ(v[0], 7);
	for (i = 1; i < cap; i++)
		CHECK_EQ(v[i], 0); /* new elements zeroed */
	CHECK_EQ(mt_grow(&v, &cap, SIZE_MAX / 2, sizeof(*v)), MT_ENOMEM);
	CHECK(cap >= 100 && cap < SIZE_MAX / 2);
	free(v);
}

int main(void)
{
	RUN(test_maps_file);
	RUN(test_maps_other);
	RUN(test_online_cpus);
	RUN(test_grow);
	return unit_done();
}
