/*
 * coro: coroutines on stacks of their own (makecontext, swapcontext), for
 * the patch backend: two coroutines take turns, each switching away from
 * inside calls of its own (inside -> yield_to), so that a thread's calls
 * on one stack are in progress while those of the other return. Prints a
 * checksum of what work() returned (the same however it is traced) and
 * the number of calls of each function.
 *
 * Build -O1 -fno-inline: every function here must stay a real call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "banned.h"

#define ROUNDS 500
#define STACK (256 * 1024)

static ucontext_t main_ctx, co[2];
static int cur, done;
static unsigned long sum, n_work, n_inside, n_yield;

__attribute__((noinline)) unsigned long work(unsigned long i)
{
	n_work++;
	__asm__ volatile("" ::: "memory");
	return i * 2654435761u % 1000003;
}

__attribute__((noinline)) void yield_to(int k)
{
	int from = cur;

	n_yield++;
	cur = k;
	if (swapcontext(&co[from], &co[k]))
		exit(1);
}

__attribute__((noinline)) void inside(int id, unsigned long i)
{
	n_inside++;
	sum += work(i * 2 + (unsigned long)id);
	yield_to(!id);
	sum += work(i * 3 + (unsigned long)id);
}

__attribute__((noinline)) void body(int id)
{
	unsigned long i;

	for (i = 0; i < ROUNDS; i++)
		inside(id, i);
	if (++done == 2)
		return; /* to main (uc_link) */
	yield_to(!id); /* the other one ends */
}

int main(void)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (getcontext(&co[k]))
			return 1;
		co[k].uc_stack.ss_sp = malloc(STACK);
		co[k].uc_stack.ss_size = STACK;
		co[k].uc_link = &main_ctx;
		if (!co[k].uc_stack.ss_sp)
			return 1;
		makecontext(&co[k], (void (*)(void))body, 1, k);
	}
	cur = 0;
	if (swapcontext(&main_ctx, &co[0]))
		return 1;
	printf("sum %lu work %lu inside %lu yield %lu\n", sum, n_work, n_inside, n_yield);
	return 0;
}
