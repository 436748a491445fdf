// A C++ exception thrown through a recursion whose frames have cleanups:
// each landing pad belongs to one activation of the same function.
#include <stdexcept>

static volatile int cleaned;

struct Guard {
	~Guard() { cleaned = cleaned + 1; }
};

__attribute__((noinline)) static void thrower(int n)
{
	Guard g;

	if (n == 0)
		throw std::runtime_error("deep");
	thrower(n - 1);
}

int main()
{
	try {
		thrower(2);
	} catch (const std::exception &) {
		return cleaned == 3 ? 0 : 1;
	}
	return 1;
}
