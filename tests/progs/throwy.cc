/* tests/progs/throwy.cc (with throwy-c.c, C built with -fexceptions):
 * C++ exceptions thrown, passed through a C frame, rethrown and caught,
 * each function counting its own calls; prints the counts and a sum, so
 * a test compares them with the spans a tracer made. Built at several
 * optimisation levels: GCC moves the catch paths to main.cold or
 * f() [clone .cold], entered by a jump. */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" long c_middle(long (*fn)(long), long v);

static long n_thrower, n_passer, n_rethrower, n_catcher, n_leaf;

extern "C" __attribute__((noinline)) long leaf(long v)
{
	n_leaf++;
	return v * 3 + 1;
}

__attribute__((noinline)) long thrower(long v)
{
	n_thrower++;
	if (v % 3 == 0)
		throw std::runtime_error("three");
	if (v % 5 == 0)
		throw 5;
	return leaf(v);
}

__attribute__((noinline)) long passer(long v)
{
	n_passer++;
	return c_middle(thrower, v) + leaf(v);
}

__attribute__((noinline)) long rethrower(long v)
{
	n_rethrower++;
	try {
		return passer(v);
	} catch (int) {
		return leaf(-v);
	} catch (...) {
		if (v % 2)
			throw;
		return -1;
	}
}

__attribute__((noinline)) long catcher(long v)
{
	n_catcher++;
	try {
		return rethrower(v);
	} catch (const std::exception &e) {
		return -2 - leaf(v);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, sum = 0;

	for (long i = 0; i < n; i++)
		sum += catcher(i);
	printf("sum %ld\n", sum);
	printf("catcher %ld\nrethrower %ld\npasser %ld\nc_middle %ld\nthrower %ld\nleaf %ld\n",
	       n_catcher, n_rethrower, n_passer, n_passer, n_thrower, n_leaf);
	return 0;
}
