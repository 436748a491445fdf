/*
 * shorty: functions shorter than the 5-byte jump an entry patch writes,
 * each called N times (-n N, default 1000) through a pointer, the
 * results summed and printed (a traced run prints the same):
 *   one       1 byte (ret), then alignment padding of no-ops
 *   three     3 bytes (lea; ret), then no-ops
 *   four      4 bytes (lea; ret), then int3s
 *   fallthru  4 bytes, no ret: it runs on over its padding of no-ops
 *             into tail (which returns)
 *   tail      ret
 *   packed    4 bytes, the next function right after it: no padding
 *             after it, a hop through the padding before it (below)
 *   tiny      1 byte (ret), right after packed and right before next:
 *             no padding, too short for a hop, left alone
 *   next      lea; ret, right after tiny
 *   aimed     3 bytes, padding that a branch of jumper aims at: left
 *             alone
 *   jumper    jumps into aimed's padding when called with 0 (never)
 * and functions whose first instructions are shorter than 5 bytes before
 * a branch target, patched with a hop (a 2-byte jmp back to a 5-byte one
 * in the padding before them):
 *   loopy     a 2-byte mov, then a loop back to entry + 2 (glibc's
 *             sem_trywait, pthread_rwlock_tryrdlock)
 *   runon     3 bytes, no ret: runs on over its padding, through loopy's
 *             hop, into loopy
 *   into3     jumps to entry3 + 3 (glibc's mempcpy into memmove)
 *   entry3    a 3-byte mov, the target, then add; ret
 * With -w it prints "ready", then runs rounds of 1000 until SIGUSR1,
 * and prints "bad N rounds R": N the rounds whose sum was not the first
 * one's (for mt-record -p, attached and detached while it runs).
 * These are what compilers make of an empty function (the stop indicator
 * of magic_trace.h, `void f(void) {}`) and of one-line accessors.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void one(void), tiny(void);
int three(int), four(int), fallthru(int), packed(int), next(int),
	aimed(int), jumper(int), loopy(int), runon(int), into3(int), entry3(int);

__asm__(".text\n"
	".p2align 4\n"
	".globl one\n.type one,@function\none:\n"
	"\tret\n.size one, .-one\n"
	".p2align 4\n"
	".globl three\n.type three,@function\nthree:\n"
	"\tleal 3(%rdi), %eax\n\tret\n.size three, .-three\n"
	".p2align 4\n"
	".globl four\n.type four,@function\nfour:\n"
	"\tleal 4(%rdi,%rdi), %eax\n\tret\n.size four, .-four\n"
	".fill 12, 1, 0xcc\n"
	".p2align 4\n"
	".globl fallthru\n.type fallthru,@function\nfallthru:\n"
	"\tleal 5(%rdi,%rdi), %eax\n.size fallthru, .-fallthru\n"
	".p2align 4\n"
	".globl tail\n.type tail,@function\ntail:\n"
	"\tret\n.size tail, .-tail\n"
	".p2align 4\n"
	".globl packed\n.type packed,@function\npacked:\n"
	"\tleal 6(%rdi), %eax\n\tret\n.size packed, .-packed\n"
	".globl tiny\n.type tiny,@function\ntiny:\n"
	"\tret\n.size tiny, .-tiny\n"
	".globl next\n.type next,@function\nnext:\n"
	"\tleal 7(%rdi), %eax\n\tret\n.size next, .-next\n"
	".p2align 4\n"
	".globl aimed\n.type aimed,@function\naimed:\n"
	"\tleal 8(%rdi), %eax\n\tret\n"
	".size aimed, .-aimed\n"
	"aimed_pad:\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n"
	".p2align 4\n"
	".globl jumper\n.type jumper,@function\njumper:\n"
	"\ttestl %edi, %edi\n\tjz aimed_pad\n\tleal 9(%rdi), %eax\n\tret\n"
	".size jumper, .-jumper\n"
	".p2align 4\n"
	".globl runon\n.type runon,@function\nrunon:\n"
	"\tleal 1(%rdi), %edi\n.size runon, .-runon\n"
	".p2align 4\n"
	".globl loopy\n.type loopy,@function\nloopy:\n"
	"\tmovl %edi, %eax\n1:\tsubl $3, %eax\n\tjg 1b\n\taddl %edi, %eax\n\tret\n"
	".size loopy, .-loopy\n"
	".p2align 4\n"
	".globl into3\n.type into3,@function\ninto3:\n"
	"\tleal 100(%rdi), %eax\n\tjmp entry3_3\n.size into3, .-into3\n"
	".p2align 4\n"
	".globl entry3\n.type entry3,@function\nentry3:\n"
	"\tmovq %rdi, %rax\nentry3_3:\n\taddl %edi, %eax\n\tret\n"
	".size entry3, .-entry3\n");

void (*volatile one_p)(void) = one, (*volatile tiny_p)(void) = tiny;
int (*volatile fns[])(int) = { three, four, fallthru, packed, next, aimed, jumper,
				loopy, runon, into3, entry3 };

static long rounds(long n)
{
	long sum = 0, i;
	int k;

	for (i = 0; i < n; i++) {
		one_p();
		tiny_p();
		for (k = 0; k < (int)(sizeof(fns) / sizeof(fns[0])); k++)
			sum = sum * 3 + fns[k]((int)i + 1);
	}
	return sum;
}

/* -w: rounds until SIGUSR1 (no system call in the loop: mt-record -p
 * stops the thread anywhere in it); prints how many were wrong */
static volatile sig_atomic_t done;

static void on_usr1(int sig)
{
	(void)sig;
	done = 1;
}

static int watch(void)
{
	long first = rounds(1000), bad = 0, n = 1;

	signal(SIGUSR1, on_usr1);
	printf("ready\n");
	fflush(stdout);
	while (!done) {
		bad += rounds(1000) != first;
		n++;
	}
	printf("bad %ld rounds %ld\n", bad, n);
	return 0;
}

int main(int argc, char **argv)
{
	long n = 1000;

	if (argc == 2 && !strcmp(argv[1], "-w"))
		return watch();
	if (argc == 3 && !strcmp(argv[1], "-n"))
		n = atol(argv[2]);
	printf("sum %ld\n", rounds(n));
	return 0;
}
