/*
 * hostile: a traced process that attacks the mt-record tracing it
 * (issue 27's attacks, one a mode), for t1215. A worker thread calls
 * step() in a loop and checks what it returns; the main thread reads
 * commands from stdin, one character each:
 *	s	the worker parked (it calls nothing patched), every field of the
 *		shared memory (memfd:mt-patch) that mt-record reads written
 *		with values that would send its reads, loops and allocations
 *		astray: the header's bounds and counts, each function's cover
 *		(patched ones stay PATCHED, so that an undo trusting cover
 *		reads 4 KiB into its 32 bytes), path and name offsets, the
 *		strings without a NUL, each slot's head, start, comm and
 *		shadow-stack depth, the rings' records; prints "scribbled"
 *	S	the same memory (a session left by a killed mt-record) forged
 *		for the next attach: a table offset that wraps mt-record's
 *		copy's size, covers of 4 KiB; prints "forged"
 *	C	forged so, but the header left as it was: covers of 4 KiB
 *		only; prints "forged"
 *	R	that session's first patched entry put back as its table says
 *		it was (as an undo cut short by a SIGKILL leaves it); prints
 *		"restored N" (N entries, 0 or 1)
 *	g	the worker goes on
 *	c	prints "entry same" or "entry changed": step()'s first 16
 *		bytes against those before any attach
 *	q	(or end of input) stops, prints "bad B calls C", exits
 * Prints "ready" once the worker runs.
 *
 * With -m FILE, the runtime's memfd_create (the process exports syscall():
 * the runtime calls it) returns an O_PATH descriptor of FILE instead, a
 * file the process may not even read; with -r FILE a thread dup2s such a
 * descriptor over descriptors 3 to 63, again and again, from the start.
 * Neither may get FILE written.
 *
 * Build -O1 -fno-inline -rdynamic: step must stay a real call, syscall
 * the one the runtime binds to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shm.h"
#include "banned.h"

static volatile int stop, park, parked;
static long bad, calls;
static int opath = -1;  /* -m: the descriptor of FILE */
static int race_fd = -1; /* -r: the descriptor of FILE */

__attribute__((noinline)) long step(long k);
__attribute__((noinline)) long step(long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 5 + 3;
}

static long raw6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10),
			 "r"(r8), "r"(r9) : "rcx", "r11", "memory");
	return r;
}

/* libc's syscall(), but memfd_create gives FILE's O_PATH descriptor (-m) */
long syscall(long n, ...);
long syscall(long n, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_memfd_create && opath >= 0)
		return raw6(SYS_fcntl, opath, F_DUPFD_CLOEXEC, 3, 0, 0, 0);
	{
		long r = raw6(n, a[0], a[1], a[2], a[3], a[4], a[5]);

		if (r < 0 && r > -4096) {
			errno = (int)-r;
			return -1;
		}
		return r;
	}
}

static void *racer(void *arg)
{
	int k;

	(void)arg;
	while (!stop)
		for (k = 3; k < 64; k++)
			if (k != race_fd)
				dup2(race_fd, k);
	return NULL;
}

static void *worker(void *arg)
{
	long k;

	(void)arg;
	for (k = 0; !stop; k++) {
		if (park) {
			parked = 1;
			while (park && !stop)
				;
			parked = 0;
		}
		if (step(k) != k * 5 + 3)
			__atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&calls, k + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The shared memory's header: the mapping of memfd:mt-patch. */
static struct mtp_header *shared(void)
{
	char line[512];
	unsigned long lo = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:mt-patch (deleted)") && sscanf(line, "%lx-", &lo) == 1)
			break;
		else
			lo = 0;
	fclose(f);
	return (struct mtp_header *)lo;
}

/* The first patched entry of h's table back as it was: 1, or 0. */
static int restore_one(struct mtp_header *h)
{
	struct mtp_func *fn = (struct mtp_func *)((char *)h + h->funcs_off);
	uint32_t i;
	int mem, done = 0;

	if ((mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
		return 0;
	for (i = 0; i < h->nfuncs && !done; i++)
		if (fn[i].status == MTP_FN_PATCHED && fn[i].cover <= MTP_MAX_COVER)
			done = pwrite(mem, fn[i].orig, fn[i].cover, (off_t)fn[i].where) ==
			       (ssize_t)fn[i].cover;
	close(mem);
	return done;
}

static void scribble(struct mtp_header *h, int forge)
{
	/* the bounds as mt-record made them, read before they are spoilt */
	uint64_t nfn = h->nfuncs > h->max_funcs ? h->max_funcs : h->nfuncs;
	uint64_t nth = h->nthreads > h->max_threads ? h->max_threads : h->nthreads;
	uint64_t nrec = h->ring_records, stride = h->thread_stride, i, k;
	char *base = (char *)h;
	struct mtp_func *fn = (struct mtp_func *)(base + h->funcs_off);
	unsigned r = 12345;

	for (i = 0; i < nfn; i++) {
		fn[i].cover = 4096;
		if (!forge) { /* (an undo reads no names) */
			fn[i].path = fn[i].name = 0xfffffff0u;
			fn[i].where ^= 0x10;
		}
	}
	if (forge == 2)
		return;
	if (forge) {
		/* a size that wraps: funcs_off + nfuncs * entry is 20 */
		h->funcs_off = (uint64_t)0 - nfn * sizeof(struct mtp_func) + 20;
		h->nthreads = 0;
		return;
	}
	memset(base + h->strings_off, 'A', h->strings_size);
	for (i = 0; i < nth; i++) {
		struct mtp_thread *t = (struct mtp_thread *)(base + h->threads_off + i * stride);
		struct mtp_rec *rec = (struct mtp_rec *)(t + 1);

		for (k = 0; k < nrec; k++) {
			r = r * 1103515245u + 12345u;
			rec[k].time = (uint64_t)r << 40 | r;
			rec[k].func = r % 3 ? (uint32_t)(r >> 3) % 8 : r;
			rec[k].kind = MTP_REC_KIND(1 + r % 4, (1ull << 50) / nrec);
		}
		if (t->depth_at)
			*(volatile uint32_t *)t->depth_at = 0xffffffffu;
		memset(t->comm, 'X', sizeof(t->comm));
		memset(t->prev_comm, 'Y', sizeof(t->prev_comm));
		t->head = 1ull << 50;
		t->start = ~0ull;
		t->prev_start = ~0ull;
		t->prev_tid = 1;
		t->gen++;
	}
	h->ring_records = 1ull << 40;
	h->threads_off = ~0ull >> 4;
	h->thread_stride = 0;
	h->max_threads = h->nthreads = h->nfuncs = h->nscan = ~0u;
	h->funcs_off = h->strings_off = h->scan_off = ~0ull >> 8;
	h->own_lo = 0;
	h->own_hi = ~0ull;
	h->clock = 77;
	h->threads_lost = ~0u;
	memset(h->error, 'E', sizeof(h->error));
}

int main(int argc, char **argv)
{
	unsigned char entry[16];
	pthread_t w, rc;
	int c, racing = 0;

	if (argc == 3 && (!strcmp(argv[1], "-m") || !strcmp(argv[1], "-r"))) {
		int fd = open(argv[2], O_PATH | O_CLOEXEC);

		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		racing = argv[1][1] == 'r';
		*(racing ? &race_fd : &opath) = fd;
		if (racing && pthread_create(&rc, NULL, racer, NULL))
			return 2;
	}
	memcpy(entry, (const void *)step, sizeof(entry));
	if (pthread_create(&w, NULL, worker, NULL))
		return 2;
	while (!__atomic_load_n(&calls, __ATOMIC_RELAXED))
		;
	printf("ready\n");
	fflush(stdout);
	while ((c = getchar()) != EOF && c != 'q') {
		struct mtp_header *h;

		switch (c) {
		case 's':
		case 'S':
		case 'C':
			park = 1;
			while (!parked)
				;
			if (!(h = shared())) {
				printf("no shared memory\n");
			} else {
				scribble(h, c == 'S' ? 1 : c == 'C' ? 2 : 0);
				printf(c == 's' ? "scribbled\n" : "forged\n");
			}
			break;
		case 'R':
			printf("restored %d\n", (h = shared()) ? restore_one(h) : 0);
			break;
		case 'g':
			park = 0;
			break;
		case 'c':
			printf("entry %s\n", memcmp(entry, (const void *)step, sizeof(entry)) ?
			       "changed" : "same");
			break;
		}
		fflush(stdout);
	}
	park = 0;
	stop = 1;
	pthread_join(w, NULL);
	if (racing)
		pthread_join(rc, NULL);
	printf("bad %ld calls %ld\n", bad, calls);
	return 0;
}
