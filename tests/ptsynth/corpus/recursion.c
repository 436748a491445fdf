/* Direct and mutual recursion, a few levels deep (PIE). */
__attribute__((noinline)) static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	int r = n == 0 ? 1 : is_odd(n - 1);

	__asm__ volatile("" ::: "memory");	/* keep the call a call */
	return r;
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	int r = n == 0 ? 0 : is_even(n - 1);

	__asm__ volatile("" ::: "memory");
	return r;
}

__attribute__((noinline)) static unsigned ackermann(unsigned m, unsigned n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

int main(void)
{
	return (is_even(9) + (int)ackermann(2, 2)) == 7 ? 0 : 1;
}
