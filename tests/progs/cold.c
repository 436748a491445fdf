/*
 * tests/progs/cold.c: a hot function whose unlikely branch GCC (-O2) moves
 * to a part of its own, hot.cold, entered by a jump with hot's locals at
 * the stack pointer (hot.cold's first instruction calls slow: a patch or a
 * return probe there would take t[0] for a return address). Computes
 * hot() ROUNDS times, USECS microseconds apart, and prints the sum and how
 * many rounds differed from the first: a tracer must change neither.
 *   cold [N [ROUNDS [USECS]]]   (10000, 20, 0)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

__attribute__((noinline)) static void fill(long *t, int n)
{
	for (int i = 0; i < n; i++)
		t[i] = i * 7 + 3;
}

__attribute__((noinline, cold)) static long slow(long v, long t)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return (long)strlen(buf) * t;
}

__attribute__((noinline)) long hot(const long *v, int n);
__attribute__((noinline)) long hot(const long *v, int n)
{
	long t[4], sum = 0;

	fill(t, 4);
	for (int i = 0; i < n; i++) {
		if (__builtin_expect(v[i] % 97 == 5, 0))
			sum += slow(v[i], t[i & 3]);
		else
			sum += v[i] ^ t[i & 3];
	}
	return sum + t[0] + t[1] + t[2] + t[3];
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 20;
	int usecs = argc > 3 ? atoi(argv[3]) : 0;
	long *v, first = 0, total = 0;
	int differ = 0;

	if (n < 1 || rounds < 1 || !(v = malloc(sizeof(*v) * (size_t)n)))
		return 2;
	for (int i = 0; i < n; i++)
		v[i] = (i * 31) % 1000;
	for (int r = 0; r < rounds; r++) {
		long s = hot(v, n);

		if (!r)
			first = s;
		differ += s != first;
		total += s;
		if (usecs)
			usleep((useconds_t)usecs);
	}
	printf("%ld %d\n", total, differ);
	free(v);
	return 0;
}
