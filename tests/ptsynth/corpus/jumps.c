/* longjmp and siglongjmp out of nested calls. */
#include <setjmp.h>
#include <signal.h>

static jmp_buf env;
static sigjmp_buf senv;
volatile int depth_seen;

__attribute__((noinline)) static void down(int n, int sig)
{
	depth_seen = n;
	if (n == 0) {
		if (sig)
			siglongjmp(senv, 2);
		longjmp(env, 1);
	}
	down(n - 1, sig);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int try_jump(void)
{
	if (setjmp(env))
		return 1;
	down(3, 0);
	return 0;
}

__attribute__((noinline)) static int try_sigjump(void)
{
	if (sigsetjmp(senv, 1))
		return 2;
	down(2, 1);
	return 0;
}

int main(void)
{
	return try_jump() + try_sigjump() == 3 ? 0 : 1;
}
