/*
 * busy: a running process for the patch backend's attach tests that a
 * tracer must never harm. T threads (-t, 8 by default) call work() in a
 * loop and check what it returns; one more allocates and frees in a loop
 * (malloc's lock held much of the time); the main thread reads commands
 * from stdin, one character each, in a read() that a SIGUSR1 (whose
 * handler has no SA_RESTART; the other threads block it, so the signal is
 * the main thread's) ends with EINTR, which it counts and says:
 *	p	prints "alive CALLS" (CALLS: work's calls so far)
 *	q	(or end of input) stops the threads, prints
 *		"bad B eintr E signals S" (B: wrong results) and exits
 * Prints "ready" once every thread runs, "eintr N" after each EINTR.
 *
 * Build -O1 -fno-inline: work must stay a real call.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define MAX_THREADS 64

static volatile int stop;
static volatile sig_atomic_t signals;
static long bad, calls[MAX_THREADS + 1];

__attribute__((noinline)) long work(long k);
__attribute__((noinline)) long work(long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 3 + 1;
}

static void block_usr1(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static void *worker(void *arg)
{
	long i = (long)arg, k, n = 0;

	block_usr1();
	for (k = 0; !stop; k++) {
		if (work(k + i) != (k + i) * 3 + 1)
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
		n++;
		if (!(n & 1023))
			__atomic_store_n(&calls[i], n, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&calls[i], n, __ATOMIC_RELAXED);
	return NULL;
}

static void *allocator(void *arg)
{
	unsigned r = 1;

	(void)arg;
	block_usr1();
	while (!stop) {
		size_t n = 16 + (r = r * 1103515245u + 12345u) % 4000;
		char *p = malloc(n);

		if (!p)
			abort();
		memset(p, (int)(r >> 8), n);
		if ((unsigned char)p[n - 1] != (unsigned char)(r >> 8))
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
		free(p);
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	signals++;
}

static long total(int n)
{
	long t = 0;
	int i;

	for (i = 0; i < n; i++)
		t += __atomic_load_n(&calls[i], __ATOMIC_RELAXED);
	return t;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS + 1];
	struct sigaction sa;
	int n = 8, i, eintr = 0;
	char c;

	if (argc > 2 && !strcmp(argv[1], "-t"))
		n = atoi(argv[2]);
	if (n < 1 || n > MAX_THREADS)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1; /* no SA_RESTART: read() ends with EINTR */
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	pthread_create(&th[n], NULL, allocator, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		ssize_t r = read(0, &c, 1);

		if (r < 0 && errno == EINTR) {
			printf("eintr %d\n", ++eintr);
			fflush(stdout);
			continue;
		}
		if (r <= 0 || c == 'q')
			break;
		if (c == 'p') {
			printf("alive %ld\n", total(n));
			fflush(stdout);
		}
	}
	stop = 1;
	for (i = 0; i <= n; i++)
		pthread_join(th[i], NULL);
	printf("bad %ld eintr %d signals %d\n", bad, eintr, (int)signals);
	return 0;
}
