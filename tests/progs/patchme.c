/*
 * patchme: functions whose first bytes exercise the patch runtime's
 * relocation (plugins/patch-runtime/patch.h), each called 10 times through
 * a pointer, the results summed and printed (a traced run prints the same):
 *   five      5 bytes, lea; ret: the jump replaces all of it
 *   four      4 bytes: too short, left alone
 *   jccfirst  test; jz rel8 (becomes jz rel32); mov
 *   loopback  a loop back to entry + 2: a branch into the bytes replaced,
 *             left alone
 *   ripfirst  a rip-relative load and store first
 *   callfirst a call rel32 first (of helper)
 *   ssefirst  movdqa of a rip-relative constant first (capstone 4 says
 *             its displacement is 2 bytes: it is 4)
 *   callind   push; mov; call *hp(%rip) (hp holds helper), the call last
 *             of the bytes replaced: it becomes jmp *hp with the return
 *             address pushed
 *   helper    mov; ret
 * With -T N it calls five N times and prints ns_per_iteration=NS on
 * stderr (make bench: what patching a 5-byte leaf costs). With -L it
 * prints "ready" and calls each of them every millisecond until killed
 * (a recorder attaches).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

int five(int), four(int), jccfirst(int), loopback(int), ripfirst(int),
	callfirst(int), ssefirst(int), callind(int), helper(int);
int counter;

__asm__(".text\n"
	".globl five\n.type five,@function\nfive:\n"
	"\tleal 1(%rdi,%rdi), %eax\n\tret\n.size five, .-five\n"
	".globl four\n.type four,@function\nfour:\n"
	"\tleal 1(%rdi), %eax\n\tret\n.size four, .-four\n"
	".globl jccfirst\n.type jccfirst,@function\njccfirst:\n"
	"\ttestl %edi, %edi\n\tjz 1f\n\tmovl $7, %eax\n\tret\n"
	"1:\tmovl $9, %eax\n\tret\n.size jccfirst, .-jccfirst\n"
	".globl loopback\n.type loopback,@function\nloopback:\n"
	"\tmovl %edi, %eax\n\tincl %eax\n2:\tsubl $1, %eax\n\tjg 2b\n\tret\n"
	".size loopback, .-loopback\n"
	".globl ripfirst\n.type ripfirst,@function\nripfirst:\n"
	"\tmovl counter(%rip), %eax\n\taddl %edi, %eax\n"
	"\tmovl %eax, counter(%rip)\n\tret\n.size ripfirst, .-ripfirst\n"
	".globl callfirst\n.type callfirst,@function\ncallfirst:\n"
	"\tcall helper\n\taddl %edi, %eax\n\tret\n.size callfirst, .-callfirst\n"
	".globl ssefirst\n.type ssefirst,@function\nssefirst:\n"
	"\tmovdqa sse_k(%rip), %xmm0\n\tmovd %xmm0, %eax\n\taddl %edi, %eax\n"
	"\tret\n.size ssefirst, .-ssefirst\n"
	".globl callind\n.type callind,@function\ncallind:\n"
	"\tpushq %rbx\n\tmovl %edi, %ebx\n\tcall *hp(%rip)\n\taddl %ebx, %eax\n"
	"\tpopq %rbx\n\tret\n.size callind, .-callind\n"
	".globl helper\n.type helper,@function\nhelper:\n"
	"\tmovl $40, %eax\n\tret\n.size helper, .-helper\n"
	".section .rodata\n.balign 16\nsse_k:\n\t.long 11, 0, 0, 0\n"
	".section .data.rel.local,\"aw\"\n.balign 8\nhp:\n\t.quad helper\n.text\n");

int (*volatile fns[])(int) = { five, four, jccfirst, loopback, ripfirst, callfirst,
				ssefirst, callind };

static int timed(long n)
{
	struct timespec a, b;
	long i, sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		sum += fns[0]((int)i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "ns_per_iteration=%.2f\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return sum == 0x7fffffff; /* keeps the loop */
}

int main(int argc, char **argv)
{
	long sum = 0;
	int i, k;

	if (argc == 3 && !strcmp(argv[1], "-T"))
		return timed(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "-L")) {
		struct timespec ms = { 0, 1000000 };

		printf("ready\n");
		fflush(stdout);
		for (i = 0;; i++) {
			for (k = 0; k < (int)(sizeof(fns) / sizeof(fns[0])); k++)
				sum = sum * 3 + fns[k](i);
			nanosleep(&ms, NULL);
		}
	}

	for (i = 0; i < 10; i++)
		for (k = 0; k < (int)(sizeof(fns) / sizeof(fns[0])); k++)
			sum = sum * 3 + fns[k](i);
	printf("sum %ld counter %d\n", sum, counter);
	return 0;
}
