/*
 * stopper: a target for the mt-record tests. Calls outer() N times (-n,
 * default 300), outer calls work() twice; magic_trace_stop_indicator()
 * runs after iteration K (-s K), or after every iteration (-e); -u U
 * sleeps U microseconds after each iteration; -t runs the loop in a
 * thread started after -d D milliseconds (the main thread waits for it);
 * -l loops until killed; -T prints the nanoseconds one iteration took
 * (for the overhead benchmark).
 *
 * Build -O1 -fno-inline: every function here must stay a real call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static volatile unsigned long sink;
static int n_iter = 300, stop_at = -1, every, sleep_us, in_thread, delay_ms,
	forever, timing;

__attribute__((noinline)) void work(int i)
{
	sink += (unsigned long)i * 7;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int i)
{
	work(i);
	work(i + 1);
}

static void *loop(void *arg)
{
	int i;

	(void)arg;
	for (i = 1; forever || i <= n_iter; i++) {
		outer(i);
		if (every || i == stop_at)
			magic_trace_stop_indicator();
		if (sleep_us)
			usleep((useconds_t)sleep_us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int c;

	struct timespec t0, t1;

	while ((c = getopt(argc, argv, "n:s:eu:td:lT")) != -1) {
		switch (c) {
		case 'n': n_iter = atoi(optarg); break;
		case 's': stop_at = atoi(optarg); break;
		case 'e': every = 1; break;
		case 'u': sleep_us = atoi(optarg); break;
		case 't': in_thread = 1; break;
		case 'd': delay_ms = atoi(optarg); break;
		case 'l': forever = 1; break;
		case 'T': timing = 1; break;
		default: return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (in_thread) {
		pthread_t t;

		usleep((useconds_t)delay_ms * 1000);
		if (pthread_create(&t, NULL, loop, NULL))
			return 1;
		pthread_join(t, NULL);
	} else {
		loop(NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (timing)
		printf("ns_per_iteration=%.1f\n",
		       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
			(double)(t1.tv_nsec - t0.tv_nsec)) / n_iter);
	printf("done %lu\n", sink);
	return 0;
}
