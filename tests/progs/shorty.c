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
 *   packed    3 bytes, the next function right after it: no padding,
 *             left alone
 *   next      lea; ret, right after packed
 *   aimed     3 bytes, padding that a branch of jumper aims at: left
 *             alone
 *   jumper    jumps into aimed's padding when called with 0 (never)
 * These are what compilers make of an empty function (the stop indicator
 * of magic_trace.h, `void f(void) {}`) and of one-line accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void one(void);
int three(int), four(int), fallthru(int), packed(int), next(int),
	aimed(int), jumper(int);

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
	".size jumper, .-jumper\n");

void (*volatile one_p)(void) = one;
int (*volatile fns[])(int) = { three, four, fallthru, packed, next, aimed, jumper };

int main(int argc, char **argv)
{
	long sum = 0, n = 1000, i;
	int k;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		n = atol(argv[2]);
	for (i = 0; i < n; i++) {
		one_p();
		for (k = 0; k < (int)(sizeof(fns) / sizeof(fns[0])); k++)
			sum = sum * 3 + fns[k]((int)i + 1);
	}
	printf("sum %ld\n", sum);
	return 0;
}
