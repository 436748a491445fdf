// Templates: instances of one function template for several types, a
// class template's method, a recursive template.
#include <cstddef>

namespace corpus {

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T twice() const { return v + v; }
};

template <typename T> __attribute__((noinline)) T sum(const T *p, std::size_t n)
{
	T s = T();

	for (std::size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

template <int N> struct Fact {
	__attribute__((noinline)) static long get() { return N * Fact<N - 1>::get(); }
};

template <> struct Fact<0> {
	__attribute__((noinline)) static long get() { return 1; }
};

} // namespace corpus

int main()
{
	int a[] = { 1, 2, 3 };
	double b[] = { 0.5, 1.5 };
	corpus::Box<long> box{ 21 };

	long r = corpus::sum(a, 3) + (long)corpus::sum(b, 2) + box.twice() +
		 corpus::Fact<4>::get();
	return r == 6 + 2 + 42 + 24 ? 0 : 1;
}
