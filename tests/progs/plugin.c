/*
 * libmtplug.so: a library loaded with dlopen after the patch backend
 * started (tests/progs/dlopener, attachme's "load"): plug_run calls
 * plug_leaf twice.
 *
 * Build -O1 -fno-inline -fPIC -shared: both must stay real calls.
 */
__attribute__((noinline)) unsigned long plug_leaf(unsigned long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 5 + 3;
}

__attribute__((noinline)) unsigned long plug_run(unsigned long k)
{
	unsigned long r = plug_leaf(k) + plug_leaf(k + 1);

	__asm__ volatile("" ::: "memory");
	return r;
}
