/* tests/progs/throwy-c.c: a C frame (built with -fexceptions) that C++
 * exceptions pass through (throwy.cc). */
long c_middle(long (*fn)(long), long v);

__attribute__((noinline)) long c_middle(long (*fn)(long), long v)
{
	volatile long r = fn(v);

	return r + 1;
}
