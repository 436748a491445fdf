/* Recursion, a call through a function pointer and a longjmp out of a
 * recursion: the program of ptsynth's branch-equality test. */
#include <setjmp.h>
#include <stdlib.h>

static jmp_buf env;

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) static void dive(int n)
{
	if (n == 0)
		longjmp(env, 7);
	dive(n - 1);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

int (*volatile op)(int) = twice;

int main(int argc, char **argv)
{
	int r = fib(argc + 5);

	r += op(r);
	if (setjmp(env) == 0)
		dive(4);
	else
		r++;
	return r == 0 ? 1 : 0;
}
