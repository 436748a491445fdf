/*
 * outer: a target for the uprobe tests. main calls outer() N times (300 by
 * default), outer calls work() twice; with -s K it calls stop_here(i) at
 * iteration K; with -t T it runs the loop in T threads started one after
 * another; with -w it waits for a byte on stdin before starting (so a
 * recorder can attach); with -l it loops until killed, printing on SIGUSR1
 * the first byte of work's code as it sees it and as its file has it;
 * with -T it prints the time an iteration took (to measure what probes
 * cost); with -d D it calls deep() D+1 times nested. Built with -DFAKE_GO
 * it has a .gopclntab section, which makes it a Go program to the uprobe
 * engine.
 *
 * Build -O1 -fno-inline: every function here must stay a real call.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#ifdef FAKE_GO
/* what marks a Go program to the uprobe engine (as to mt_symtab) */
__attribute__((used, section(".gopclntab"))) static const char gopclntab[16];
#endif

static volatile unsigned long sink;
static volatile sig_atomic_t peek;
static int n_iter = 300, stop_at = -1, n_threads, forever, timing;

__attribute__((noinline)) void work(int i)
{
	sink += (unsigned long)i * 7;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void stop_here(int i)
{
	sink += (unsigned long)i;
	__asm__ volatile("" ::: "memory");
}

/* the iteration number goes through work's argument; the recording
 * shows only calls, so tests count them */
__attribute__((noinline)) void outer(int i)
{
	work(i);
	if (i == stop_at)
		stop_here(i);
	work(i + 1);
	__asm__ volatile("" ::: "memory");
}

/* recursion deeper than the kernel's 64 nested return probes */
__attribute__((noinline)) int deep(int n)
{
	int r = n ? deep(n - 1) + 1 : 0;

	__asm__ volatile("" ::: "memory");
	return r;
}

static void on_usr1(int sig)
{
	(void)sig;
	peek = 1;
}

/* The first byte of work as the process sees it and as its file has it:
 * a uprobe makes them differ (int3, 0xcc, or a jump). */
static void print_peek(void)
{
	unsigned char mem = *(volatile unsigned char *)(void *)work, file = 0;
	unsigned long start, end, off, addr = (unsigned long)(void *)work;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd = open("/proc/self/exe", O_RDONLY);

	while (maps && fd >= 0 && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    addr >= start && addr < end) {
			if (pread(fd, &file, 1, (off_t)(addr - start + off)) != 1)
				file = 0;
			break;
		}
	if (maps)
		fclose(maps);
	if (fd >= 0)
		close(fd);
	printf("%02x %02x\n", mem, file);
	fflush(stdout);
}

static void *loop(void *arg)
{
	int i;

	(void)arg;
	do {
		for (i = 0; i < n_iter; i++)
			outer(i);
		if (peek) {
			print_peek();
			peek = 0;
		}
		if (forever)
			usleep(1000);
	} while (forever);
	return NULL;
}

int main(int argc, char **argv)
{
	int c, depth = -1, wait_stdin = 0;

	struct timespec t0, t1;

	while ((c = getopt(argc, argv, "d:ln:s:Tt:w")) != -1) {
		switch (c) {
		case 'd':
			depth = atoi(optarg);
			break;
		case 'l':
			forever = 1;
			break;
		case 'n':
			n_iter = atoi(optarg);
			break;
		case 's':
			stop_at = atoi(optarg);
			break;
		case 'T':
			timing = 1;
			break;
		case 't':
			n_threads = atoi(optarg);
			break;
		case 'w':
			wait_stdin = 1;
			break;
		default:
			fprintf(stderr, "usage: outer [-lTw] [-d depth] [-n iterations] "
				"[-s stop] [-t threads]\n");
			return 2;
		}
	}
	signal(SIGUSR1, on_usr1);
	if (wait_stdin) {
		char b;

		printf("ready\n");
		fflush(stdout);
		if (read(0, &b, 1) < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (depth >= 0) {
		printf("%d\n", deep(depth));
		return 0;
	}
	if (n_threads > 0) {
		for (c = 0; c < n_threads; c++) {
			pthread_t t;

			if (pthread_create(&t, NULL, loop, NULL) ||
			    pthread_join(t, NULL))
				return 1;
		}
		return 0;
	}
	loop(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (timing)
		fprintf(stderr, "ns per iteration: %.0f\n",
			((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n_iter);
	return 0;
}
