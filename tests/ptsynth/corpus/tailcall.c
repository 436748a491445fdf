/* Tail calls (built with -O2): a chain of functions that end in jumps to
 * the next, and a call through a pointer in tail position. */
volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	sink = x;
	return x + 1;
}

__attribute__((noinline)) int third(int x)
{
	sink = x;
	return leaf(x * 3);		/* jmp leaf */
}

__attribute__((noinline)) int second(int x)
{
	sink = x;
	return third(x + 2);		/* jmp third */
}

int (*volatile next_fn)(int) = second;

__attribute__((noinline)) int first(int x)
{
	sink = x;
	return next_fn(x - 1);		/* jmp *next_fn */
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 3; i++)
		r += first(i);
	return r == 0;
}
