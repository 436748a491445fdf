/*
 * sysloop: a running process whose threads check, every round, that
 * what the kernel gives them is what it would give untraced, for the
 * patch backend's -p tests (a thread mt-record borrows or steps is put
 * back exactly). Four threads (the sleeper's or, with -x, the setxid
 * one: its SIGSETXID ends the sleeper's waits with EINTR):
 *	main	calls work() in a loop with errno set to EXDEV and checks
 *		that work() returns right and errno is still EXDEV; takes
 *		SIGUSR2 (a handler that counts it)
 *	sleeper	calls work(), then sleeps in system calls that the kernel restarts through
 *		the thread's restart block when a stop interrupts them:
 *		poll(empty pipe, 1 ms) must return 0, nanosleep(200 us) 0,
 *		futex wait(1 ms) -1 ETIMEDOUT
 *	sender	sends SIGUSR2 to main (tgkill), the next only once the last
 *		was taken: one not taken in 10 s is lost
 *	setxid	calls setresuid(-1, -1, -1): glibc has every thread take
 *		its SIGSETXID and waits for all of them
 * and a thread that reads stdin. With -s the sleeper is the main thread
 * and the only one but the reader's (the thread mt-record borrows).
 * Prints "ready" once they run, then reads stdin; at "stop" (or its end)
 * it stops them and prints one line:
 *	"ok work W sleeps S signals G setxid X"	(counts of each)
 * or "bad: WHAT" for the first thing that was wrong. Exits 0 when ok.
 *
 * Build -O1 -fno-inline -pthread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static volatile int stop;
static char bad[256];
static volatile unsigned long works, sleeps, setxids;
static volatile unsigned long sent, got;
static pid_t main_tid;

static void fail(const char *what, unsigned long round, long rc, int err)
{
	if (!bad[0])
		snprintf(bad, sizeof(bad), "%s (round %lu: returned %ld, errno %d %s)", what,
			 round, rc, err, strerror(err));
	stop = 1;
}

__attribute__((noinline)) unsigned long work(unsigned long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 3 + 1;
}

static void on_usr2(int sig)
{
	int e = errno;

	(void)sig;
	got++;
	errno = e;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	int p[2];
	unsigned long n;
	static int word;

	(void)arg;
	if (pipe(p))
		return NULL;
	for (n = 0; !stop; n++) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		struct timespec t = { 0, 200000 }, ms = { 0, 1000000 };
		long rc;

		if (work(n) != n * 3 + 1)
			fail("work() returned wrong", n, 0, 0);
		errno = 0;
		if ((rc = poll(&pf, 1, 1)) != 0)
			fail("poll of an empty pipe for 1 ms", n, rc, errno);
		errno = 0;
		if ((rc = nanosleep(&t, NULL)) != 0)
			fail("nanosleep of 200 us", n, rc, errno);
		errno = 0;
		rc = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ms, NULL, 0);
		if (rc != -1 || errno != ETIMEDOUT)
			fail("futex wait of 1 ms", n, rc, errno);
		sleeps++;
	}
	return NULL;
}

static void *sender(void *arg)
{
	(void)arg;
	while (!stop) {
		double t0;

		if (syscall(SYS_tgkill, getpid(), main_tid, SIGUSR2))
			fail("tgkill", sent, -1, errno);
		sent++;
		t0 = now();
		while (got != sent && !stop)
			if (now() - t0 > 10) {
				fail("SIGUSR2 not taken in 10 s", sent, 0, 0);
				return NULL;
			}
		usleep(100);
	}
	return NULL;
}

static void *setxid(void *arg)
{
	(void)arg;
	while (!stop) {
		if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1))
			fail("setresuid", setxids, -1, errno);
		setxids++;
		usleep(500);
	}
	return NULL;
}

/* main's loop: rounds of it (0: until the stop) */
static void worker(unsigned long rounds)
{
	unsigned long n;

	for (n = 0; !stop && (!rounds || n < rounds); n++) {
		unsigned long r;

		errno = EXDEV;
		r = work(n);
		if (errno != EXDEV)
			fail("errno changed around work()", n, (long)r, errno);
		if (r != n * 3 + 1)
			fail("work() returned wrong", n, (long)r, 0);
		works++;
	}
}

static void *reader(void *arg)
{
	char line[64];

	(void)arg;
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "stop\n"))
		;
	stop = 1;
	return NULL;
}

/* The line at the end, and the exit status. */
static int report(void)
{
	if (bad[0]) {
		printf("bad: %s\n", bad);
		return 1;
	}
	printf("ok work %lu sleeps %lu signals %lu setxid %lu\n", works, sleeps, got,
	       setxids);
	return 0;
}

int main(int argc, char **argv)
{
	int x = argc > 1 && !strcmp(argv[1], "-x");
	int alone = argc > 1 && !strcmp(argv[1], "-s");
	struct sigaction sa;
	sigset_t usr2;
	pthread_t ts[3];
	void *(*const fns[3])(void *) = { x ? setxid : sleeper, sender, reader };
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	main_tid = (pid_t)syscall(SYS_gettid);
	/* only main takes SIGUSR2 */
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	if (alone) {
		if (pthread_create(&ts[2], NULL, reader, NULL)) {
			printf("bad: pthread_create\n");
			return 1;
		}
		printf("ready\n");
		fflush(stdout);
		sleeper(NULL);
		return report();
	}
	for (i = 0; i < 3; i++)
		if (pthread_create(&ts[i], NULL, fns[i], NULL)) {
			printf("bad: pthread_create\n");
			return 1;
		}
	pthread_sigmask(SIG_UNBLOCK, &usr2, NULL);
	while (!stop && (!(sleeps || setxids) || !got))
		worker(1000);
	printf("ready\n");
	fflush(stdout);
	worker(0);
	for (i = 0; i < 2; i++)
		pthread_join(ts[i], NULL);
	return report();
}
