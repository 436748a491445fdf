/* Unit tests for common/fscreds (a thread's filesystem credentials): this
 * process's read from /proc, the thread's own, and, as root, a thread
 * taking nobody's: it can no longer read a file of root's mode 0600, the
 * process's other threads keep theirs (raw system calls, one thread),
 * and it gets its own back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "fscreds.h"
#include "unit.h"
#include "banned.h"

static void test_self(void)
{
	struct mt_fscreds a, b = MT_FSCREDS_INIT;

	poison(&a);
	mt_fscreds_init(&a);
	CHECK(a.groups == NULL && a.ngroups == 0);
	CHECK_EQ(mt_fscreds_of(&a, getpid()), 0);
	CHECK_EQ(mt_fscreds_self(&b), 0);
	CHECK_EQ(a.uid, geteuid()); /* the fsuid follows the euid */
	CHECK_EQ(a.gid, getegid());
	CHECK(mt_fscreds_equal(&a, &b));
	CHECK_EQ(mt_fscreds_set(&b), 0); /* its own: allowed to anyone */
	mt_fscreds_release(&a);
	mt_fscreds_release(&b);
	CHECK(b.groups == NULL && b.ngroups == 0);
}

static void test_errors(void)
{
	struct mt_fscreds c = MT_FSCREDS_INIT;

	CHECK_EQ(mt_fscreds_of(&c, INT_MAX), MT_ENOENT);
	CHECK(c.groups == NULL && c.ngroups == 0);
}

static void test_equal(void)
{
	gid_t g1[] = { 1, 2 }, g2[] = { 1, 3 };
	struct mt_fscreds a = { 5, 6, g1, 2 }, b = { 5, 6, g1, 2 };

	CHECK(mt_fscreds_equal(&a, &b));
	b.groups = g2;
	CHECK(!mt_fscreds_equal(&a, &b));
	b.groups = g1;
	b.ngroups = 1;
	CHECK(!mt_fscreds_equal(&a, &b));
	b.ngroups = 2;
	b.uid = 7;
	CHECK(!mt_fscreds_equal(&a, &b));
}

static char secret[] = "/tmp/test-fscreds.XXXXXX";

/* The fsuid of thread tid of this process, as the kernel says it. */
static long fsuid_of(pid_t tid)
{
	char path[64], line[256];
	long r = -1, a, b, c, d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld %ld %ld %ld", &a, &b, &c, &d) == 4)
			r = d;
	fclose(f);
	return r;
}

struct as_nobody {
	pid_t main_tid;
	struct mt_fscreds main_before; /* the main thread's */
	int set, opened, main_fsuid, main_same, own_back, opened_after;
};

static void *nobody_thread(void *arg)
{
	struct as_nobody *n = arg;
	struct mt_fscreds own = MT_FSCREDS_INIT, nobody = { 65534, 65534, NULL, 0 };
	int fd;

	if (mt_fscreds_self(&own))
		return NULL;
	n->set = mt_fscreds_set(&nobody);
	fd = open(secret, O_RDONLY | O_CLOEXEC);
	n->opened = fd >= 0;
	if (fd >= 0)
		close(fd);
	n->main_fsuid = (int)fsuid_of(n->main_tid);
	{
		struct mt_fscreds m = MT_FSCREDS_INIT; /* /proc/TID/status: a thread's */

		n->main_same = !mt_fscreds_of(&m, n->main_tid) &&
			       mt_fscreds_equal(&m, &n->main_before);
		mt_fscreds_release(&m);
	}
	n->own_back = mt_fscreds_set(&own);
	fd = open(secret, O_RDONLY | O_CLOEXEC);
	n->opened_after = fd >= 0;
	if (fd >= 0)
		close(fd);
	mt_fscreds_release(&own);
	return NULL;
}

static void test_thread_as_nobody(void)
{
	struct as_nobody n = { 0, MT_FSCREDS_INIT, -1, -1, -1, -1, -1, -1 };
	struct mt_fscreds own = MT_FSCREDS_INIT;
	gid_t g[] = { 4242 };
	pthread_t th;
	int fd;

	if (geteuid() != 0)
		return; /* taking another's credentials needs root */
	fd = mkstemp(secret);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd); /* mode 0600, root's */
	n.main_tid = (pid_t)syscall(SYS_gettid);
	/* a group for the thread to drop (nobody has none), so that a
	 * setgroups of every thread (glibc's) would show */
	CHECK_EQ(mt_fscreds_self(&own), 0);
	n.main_before = own;
	n.main_before.groups = g;
	n.main_before.ngroups = 1;
	CHECK_EQ(mt_fscreds_set(&n.main_before), 0);
	CHECK_EQ(pthread_create(&th, NULL, nobody_thread, &n), 0);
	pthread_join(th, NULL);
	CHECK_EQ(n.set, 0);
	CHECK_EQ(n.opened, 0);      /* as nobody: EACCES */
	CHECK_EQ(n.main_fsuid, 0);  /* the other thread kept root's */
	CHECK_EQ(n.main_same, 1);   /* and its groups */
	CHECK_EQ(n.own_back, 0);
	CHECK_EQ(n.opened_after, 1);
	CHECK_EQ(fsuid_of(n.main_tid), 0);
	CHECK_EQ(mt_fscreds_set(&own), 0);
	mt_fscreds_release(&own);
	remove(secret);
}

int main(void)
{
	RUN(test_self);
	RUN(test_errors);
	RUN(test_equal);
	RUN(test_thread_as_nobody);
	return unit_done();
}
