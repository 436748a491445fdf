/*
 * selfmod: a process whose code is no longer its file's. At start it
 * writes, over the first bytes of never(), a function it never calls, a
 * jump into the middle of aimed()'s first instruction (the file has no
 * branch there), prints "ready", then calls aimed() every millisecond
 * until its standard input ends, and prints "N calls: ok" (or "bad" had
 * aimed returned wrong).
 *
 * A patch of aimed() would cut that jump's target: a tracer that took
 * the file's branches for the process's would patch it. mt-record's
 * cache of branch targets (read from the file) must be refused here: the
 * process's code hashes otherwise, and the runtime reads it itself
 * (t1228).
 *
 * Build -O1: aimed stays a real call of one 4-byte instruction and more.
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "banned.h"

__attribute__((noinline)) long aimed(long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 7 + 3;
}

__attribute__((noinline)) void never(void)
{
	__asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}

int main(void)
{
	uintptr_t at = (uintptr_t)never, page = at & ~(uintptr_t)4095;
	size_t len = ((at + 5 + 4095) & ~(uintptr_t)4095) - page;
	unsigned char jmp[5] = { 0xe9 };
	int32_t rel = (int32_t)((intptr_t)((uintptr_t)aimed + 1) - (intptr_t)(at + 5));
	struct pollfd in = { 0, POLLIN, 0 };
	long n = 0, bad = 0;

	memcpy(jmp + 1, &rel, 4);
	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	memcpy((void *)at, jmp, sizeof(jmp));
	if (mprotect((void *)page, len, PROT_READ | PROT_EXEC)) {
		perror("mprotect");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (!poll(&in, 1, 1)) {
		bad += aimed(n) != n * 7 + 3;
		n++;
	}
	printf("%ld calls: %s\n", n, bad ? "bad" : "ok");
	return 0;
}
