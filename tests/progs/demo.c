/*
 * demo: the program `make demo` traces. It serves 200 made-up requests;
 * each is parsed, looked up in a table (a recursive binary search), and
 * answered with a cosine computed through libm, which it loads with
 * dlopen as the demo of magic-trace's README does. One request in 50 is
 * slow (it recomputes its answer many times): the timeline shows which
 * and why. The last slow one calls magic_trace_stop_indicator, so
 * `mt-record --trigger .` stops there.
 *
 * Build -O1 -fno-inline -fno-omit-frame-pointer: every function stays a
 * real call, and sampled stacks have their callers.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define NKEYS 1024

static int keys[NKEYS];
static double (*cosine)(double);
static volatile double sink;

__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int parse_request(int id, char *buf, size_t len)
{
	snprintf(buf, len, "GET /item/%d", id * 7 % NKEYS);
	return atoi(strrchr(buf, '/') + 1);
}

__attribute__((noinline)) static int lookup(int key, int lo, int hi)
{
	int mid = lo + (hi - lo) / 2;

	if (lo >= hi)
		return -1;
	if (keys[mid] == key)
		return mid;
	return keys[mid] < key ? lookup(key, mid + 1, hi) : lookup(key, lo, mid);
}

__attribute__((noinline)) static double compute(int slot, int rounds)
{
	double x = 0;

	for (int r = 0; r < rounds; r++)
		x += cosine(slot * 0.001 + r);
	return x;
}

__attribute__((noinline)) static void reply(int id, double v)
{
	char out[64];

	snprintf(out, sizeof(out), "%d %.3f", id, v);
	sink += (double)strlen(out);
}

__attribute__((noinline)) void handle_request(int id)
{
	char buf[64];
	int key = parse_request(id, buf, sizeof(buf));
	int slot = lookup(key, 0, NKEYS);

	reply(id, compute(slot, id % 50 == 49 ? 2000 : 20));
}

int main(void)
{
	void *libm = dlopen("libm.so.6", RTLD_NOW);

	if (!libm) {
		fprintf(stderr, "demo: %s\n", dlerror());
		return 1;
	}
	*(void **)&cosine = dlsym(libm, "cos");
	for (int i = 0; i < NKEYS; i++)
		keys[i] = i;
	for (int id = 0; id < 200; id++) {
		handle_request(id);
		if (id == 149)
			magic_trace_stop_indicator();
	}
	printf("demo: served 200 requests (%.0f)\n", sink);
	return 0;
}
