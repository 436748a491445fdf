/*
 * hotleaf: one hot leaf and a few cold callers, for mt-record
 * --max-overhead (t1229). For SECONDS (argv[1], default 1) it calls
 * cold_a() and cold_b() in turn; cold_a calls leaf() 20,000 times (tens of
 * millions of calls a second untraced: traced, the recording would cost
 * the program more than its own work), cold_b calls it 10 times. Then it
 * prints how many times it called each: "cold_a N cold_b N leaf N sum S".
 * With "-n ROUNDS" it makes that many rounds (a cold_a and a cold_b
 * each) instead. With "-r" it prints "ready" once it runs (for
 * mt-record -p), and runs until its standard input ends.
 *
 * Build -O1 -fno-inline: the calls must stay calls.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

static unsigned long nleaf, na, nb;

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	nleaf++;
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) unsigned long cold_a(unsigned long k)
{
	unsigned long s = 0, i;

	na++;
	for (i = 0; i < 20000; i++)
		s += leaf(i + k);
	return s;
}

__attribute__((noinline)) unsigned long cold_b(unsigned long k)
{
	unsigned long s = 0, i;

	nb++;
	for (i = 0; i < 10; i++)
		s += leaf(i * k);
	return s;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int ready = argc > 1 && !strcmp(argv[1], "-r");
	long rounds = argc > 2 && !strcmp(argv[1], "-n") ? atol(argv[2]) : -1;
	double secs = argc > 1 && !ready && rounds < 0 ? atof(argv[1]) : 1, start = now();
	struct pollfd in = { 0, POLLIN, 0 };
	unsigned long sum = 0, k = 0;

	if (ready) {
		printf("ready\n");
		fflush(stdout);
	}
	for (;;) {
		sum += cold_a(k);
		sum += cold_b(k);
		k++;
		if (ready ? poll(&in, 1, 0) != 0 :
		    rounds >= 0 ? (long)k >= rounds : now() - start >= secs)
			break;
	}
	printf("cold_a %lu cold_b %lu leaf %lu sum %lu\n", na, nb, nleaf, sum);
	return 0;
}
