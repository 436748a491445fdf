/*
 * attachme: a running process for the patch backend's -p tests. Starts T
 * threads (-t, 3 by default) that each call step() in a loop, which calls
 * leaf() twice and checks what they return; prints "ready" once they run,
 * then reads commands from stdin, a line each:
 *	spawn	starts one more thread
 *	hold	starts a thread in hold(), which returns at "release"
 *	release	has hold() return; prints "released" once it did
 *	load	loads the library -L names (dlopen), calls its plug_run 100
 *		times, prints "loaded SUM"
 *	peek	prints "clean" when the first bytes of step and leaf are
 *		those of its file, else "patched"
 *	stop	(or end of input) stops the threads and prints
 *		"N threads: ok" (or "bad" had a call returned wrong)
 * On stop it writes for each thread, on stderr, "TID in N any M": of the
 * calls of step it made, N began and ended while step was patched, M
 * began or ended so (the calls a recording made while attached must be
 * between the two).
 *
 * Build -O1 -fno-inline: step and leaf must stay real calls.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banned.h"

#define MAX_THREADS 16

static volatile int stop, bad, released;
static pthread_t holder;
static unsigned char step_file[8], leaf_file[8];

struct counts {
	pid_t tid;
	unsigned long in, any;
};

static struct counts counts[MAX_THREADS];
static pthread_t threads[MAX_THREADS];
static int nthreads;

__attribute__((noinline)) unsigned long leaf(unsigned long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 3 + 1;
}

__attribute__((noinline)) unsigned long step(unsigned long k)
{
	unsigned long r = leaf(k) + leaf(k + 1);

	__asm__ volatile("" ::: "memory");
	return r;
}

/* Whether f's first bytes are not those of its file. */
static int changed(const void *f, const unsigned char *file)
{
	const volatile unsigned char *code = f;
	int i;

	for (i = 0; i < 5; i++)
		if (code[i] != file[i])
			return 1;
	return 0;
}

/* f's first bytes as its file has them, into out (8 bytes). */
static int file_bytes(const void *f, unsigned char *out)
{
	unsigned long start, end, off, addr = (unsigned long)f;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd = open("/proc/self/exe", O_RDONLY), ok = 0;

	while (maps && fd >= 0 && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    addr >= start && addr < end) {
			ok = pread(fd, out, 8, (off_t)(addr - start + off)) == 8;
			break;
		}
	if (maps)
		fclose(maps);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A call in progress for as long as the test wants (a frame a detach
 * must give its return address back). */
__attribute__((noinline)) void hold(void)
{
	while (!released)
		usleep(1000);
	__asm__ volatile("" ::: "memory");
}

static void *hold_thread(void *arg)
{
	(void)arg;
	hold();
	return NULL;
}

static void *run(void *arg)
{
	struct counts *c = arg;
	unsigned long k = 0;

	c->tid = (pid_t)syscall(SYS_gettid);
	while (!stop) {
		int p0 = changed((const void *)step, step_file), p1;

		if (step(k) != 6 * k + 5)
			bad = 1;
		p1 = changed((const void *)step, step_file);
		c->in += p0 && p1;
		c->any += p0 || p1;
		k++;
		usleep(200);
	}
	return NULL;
}

static void spawn(void)
{
	if (nthreads == MAX_THREADS ||
	    pthread_create(&threads[nthreads], NULL, run, &counts[nthreads]))
		exit(1);
	nthreads++;
}

int main(int argc, char **argv)
{
	char line[64];
	const char *lib = NULL;
	int t = 3, c, i;

	while ((c = getopt(argc, argv, "L:t:")) != -1) {
		if (c == 'L') {
			lib = optarg;
		} else if (c != 't' || (t = atoi(optarg)) < 1 || t > MAX_THREADS) {
			fprintf(stderr, "usage: attachme [-L library] [-t threads]\n");
			return 2;
		}
	}
	if (!file_bytes((const void *)step, step_file) ||
	    !file_bytes((const void *)leaf, leaf_file))
		return 1;
	for (i = 0; i < t; i++)
		spawn();
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "spawn\n")) {
			spawn();
		} else if (!strcmp(line, "hold\n")) {
			if (pthread_create(&holder, NULL, hold_thread, NULL))
				return 1;
		} else if (!strcmp(line, "load\n") && lib) {
			unsigned long (*run)(unsigned long), sum = 0, k;
			void *h = dlopen(lib, RTLD_NOW);

			if (!h || !(*(void **)&run = dlsym(h, "plug_run")))
				return 1;
			for (k = 0; k < 100; k++)
				sum += run(k);
			printf("loaded %lu\n", sum);
			fflush(stdout);
		} else if (!strcmp(line, "release\n")) {
			released = 1;
			pthread_join(holder, NULL);
			printf("released\n");
			fflush(stdout);
		} else if (!strcmp(line, "peek\n")) {
			printf("%s\n", changed((const void *)step, step_file) ||
				       changed((const void *)leaf, leaf_file) ? "patched" : "clean");
			fflush(stdout);
		} else if (!strcmp(line, "stop\n")) {
			break;
		}
	}
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	printf("%d threads: %s\n", nthreads, bad ? "bad" : "ok");
	for (i = 0; i < nthreads; i++)
		fprintf(stderr, "%d in %lu any %lu\n", (int)counts[i].tid, counts[i].in,
			counts[i].any);
	return 0;
}
