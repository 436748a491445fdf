// A C++ program whose functions have the names that demangling is about
// (namespaces, overloads, a template, operator(), a lambda), for the
// tests of one naming: t0913, t1120, t1121. Built by the tests with
// g++ -O1 -fno-inline -fno-omit-frame-pointer -g. names N calls each
// function N times (default 200); app::Server::lookup(unsigned long)
// spins, so that a sampling profiler sees it.
#include <cstdio>
#include <cstdlib>

namespace app {
struct Server {
	unsigned long base;
	__attribute__((noinline)) unsigned long lookup(unsigned long k);
	__attribute__((noinline)) unsigned long lookup(const char *name);
	__attribute__((noinline)) unsigned long handle(int n);
};

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get() const { return v + 1; }
};

struct Hasher {
	__attribute__((noinline)) unsigned long operator()(unsigned long x) const
	{
		return x * 2654435761u;
	}
};

unsigned long Server::lookup(unsigned long k)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < 20000; i++)
		x = x + k * i;
	return x + base;
}

unsigned long Server::lookup(const char *name)
{
	return name[0] + base;
}

unsigned long Server::handle(int n)
{
	Box<long> b = { n };
	Hasher h;

	return lookup((unsigned long)b.get()) + lookup("x") + h((unsigned long)n);
}
} // namespace app

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;
	app::Server s = { 1 };
	unsigned long t = 0;
	auto each = [&](int i) __attribute__((noinline)) { return s.handle(i); };

	for (int i = 0; i < n; i++)
		t += each(i);
	printf("%lu\n", t);
	return 0;
}
