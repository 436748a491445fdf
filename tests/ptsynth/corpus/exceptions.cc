// C++ exceptions thrown through frames with destructors (cleanup landing
// pads), and caught two levels up.
#include <stdexcept>

static volatile int cleaned;

struct Guard {
	~Guard() { cleaned = cleaned + 1; }
};

__attribute__((noinline)) static void inner()
{
	Guard g;

	throw std::runtime_error("deep");
}

__attribute__((noinline)) static void middle()
{
	Guard g;

	inner();
}

__attribute__((noinline)) static void outer()
{
	Guard g;

	middle();
}

__attribute__((noinline)) static int catcher()
{
	try {
		outer();
	} catch (const std::exception &) {
		return 1;
	}
	return 0;
}

int main()
{
	return catcher() == 1 && cleaned == 3 ? 0 : 1;
}
