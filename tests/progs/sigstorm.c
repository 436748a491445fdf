/*
 * sigstorm: calls under a storm of signals, for the patch backend's test
 * that a handler's frame never lands on what a hook or the return
 * trampoline keeps on the interrupted stack. The main thread calls
 * leaf() and mid() (which calls leaf() twice) N times (argv[1], 200000 by
 * default), summing what they return; a timer sends SIGALRM every 20 us
 * (ITIMER_REAL), whose handler calls deep() (which fills 3 KiB of its
 * frame with a pattern and calls leaf()) and counts. Prints "sum S" (the
 * same traced or not) and "signals K" (K > 0), and exits 0; a handler
 * that finds its own pattern changed prints "pattern" and exits 3.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "banned.h"

static volatile sig_atomic_t signals, broken;

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2654435761u ^ (x >> 7);
}

__attribute__((noinline)) unsigned long mid(unsigned long x)
{
	return leaf(x) + leaf(x + 1);
}

/* a frame of its own below the interrupted code's: 3 KiB written, read
 * back after a call */
__attribute__((noinline)) void deep(int sig)
{
	volatile unsigned char buf[3072];
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + (unsigned)sig);
	(void)leaf((unsigned long)sig);
	for (i = 0; i < sizeof(buf); i++)
		if (buf[i] != (unsigned char)(i * 7 + (unsigned)sig))
			broken = 1;
}

static void on_alarm(int sig)
{
	deep(sig);
	signals++;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000, i, sum = 0;
	struct sigaction sa;
	struct itimerval it = { { 0, 20 }, { 0, 20 } }, off;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return 1;
	for (i = 0; i < n; i++)
		sum += i & 1 ? mid(i) : leaf(i);
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	if (broken) {
		puts("pattern");
		return 3;
	}
	printf("sum %lu\nsignals %d\n", sum, (int)signals);
	return signals > 0 ? 0 : 2;
}
