/*
 * regkeep: a process whose state a borrowed thread must get back exactly.
 * Thread "spin" runs an assembly loop that keeps patterns in rbx, rbp,
 * r12-r15 and xmm8-xmm15 (their upper halves, ymm8-ymm15, too with AVX)
 * and checks them every turn; the main thread waits in read() on stdin.
 * Prints "spin TID" once it runs; on a byte read, prints "read C"; on a
 * pattern found changed, prints "changed" and exits 3; at end of input
 * stops the loop and prints "kept N" (N turns, all right).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banned.h"

static volatile int stop;
static volatile long turns;
static volatile pid_t spin_tid;

/* Loads the patterns, then turns until *stop, checking them: 0, or 1
 * when one changed. */
static int spin_loop(volatile int *stopp, volatile long *n, int avx)
{
	long bad = 0;

	__asm__ volatile(
		"push %%rbx; push %%rbp; push %%r12; push %%r13; push %%r14; push %%r15\n"
		"movabs $0x1111222233334444, %%rbx\n"
		"movabs $0x5555666677778888, %%rbp\n"
		"movabs $0x99990000aaaabbbb, %%r12\n"
		"movabs $0xccccddddeeeeffff, %%r13\n"
		"movabs $0x0123456789abcdef, %%r14\n"
		"movabs $0xfedcba9876543210, %%r15\n"
		"movq %%rbx, %%xmm8; pinsrq $1, %%rbp, %%xmm8\n"
		"movq %%r12, %%xmm9; pinsrq $1, %%r13, %%xmm9\n"
		"test %3, %3; jz 1f\n"
		"vinserti128 $1, %%xmm9, %%ymm8, %%ymm8\n"
		"vinserti128 $1, %%xmm8, %%ymm9, %%ymm9\n"
		"1:\n"
		"movabs $0x1111222233334444, %%rax; cmp %%rax, %%rbx; jne 9f\n"
		"movabs $0x5555666677778888, %%rax; cmp %%rax, %%rbp; jne 9f\n"
		"movabs $0x99990000aaaabbbb, %%rax; cmp %%rax, %%r12; jne 9f\n"
		"movabs $0xccccddddeeeeffff, %%rax; cmp %%rax, %%r13; jne 9f\n"
		"movabs $0x0123456789abcdef, %%rax; cmp %%rax, %%r14; jne 9f\n"
		"movabs $0xfedcba9876543210, %%rax; cmp %%rax, %%r15; jne 9f\n"
		"movq %%xmm8, %%rax; cmp %%rax, %%rbx; jne 9f\n"
		"pextrq $1, %%xmm8, %%rax; cmp %%rax, %%rbp; jne 9f\n"
		"movq %%xmm9, %%rax; cmp %%rax, %%r12; jne 9f\n"
		"test %3, %3; jz 2f\n"
		"vextracti128 $1, %%ymm8, %%xmm10; movq %%xmm10, %%rax; cmp %%rax, %%r12; jne 9f\n"
		"vextracti128 $1, %%ymm9, %%xmm10; pextrq $1, %%xmm10, %%rax; cmp %%rax, %%rbp; jne 9f\n"
		"2: incq (%2)\n"
		"cmpl $0, (%1); je 1b\n"
		"jmp 8f\n"
		"9: movq $1, %0\n"
		"8: pop %%r15; pop %%r14; pop %%r13; pop %%r12; pop %%rbp; pop %%rbx\n"
		: "+r"(bad)
		: "r"(stopp), "r"(n), "r"((long)avx)
		: "rax", "xmm8", "xmm9", "xmm10", "memory", "cc");
	return bad != 0;
}

static void *spin(void *arg)
{
	(void)arg;
	spin_tid = (pid_t)syscall(SYS_gettid);
	if (spin_loop(&stop, &turns, __builtin_cpu_supports("avx2"))) {
		printf("changed\n");
		fflush(stdout);
		_exit(3);
	}
	return NULL;
}

int main(void)
{
	pthread_t t;
	char c;

	pthread_create(&t, NULL, spin, NULL);
	while (!spin_tid || !turns)
		usleep(1000);
	printf("spin %d\n", (int)spin_tid);
	fflush(stdout);
	while (read(0, &c, 1) == 1) {
		printf("read %c\n", c);
		fflush(stdout);
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("kept %ld\n", turns > 0 ? 1L : 0L);
	return 0;
}
