/* Two libraries loaded in turn at the same address: libdlswap-a.so, its
 * function swap_a called, closed; then libdlswap-b.so, of the same layout,
 * in the hole a left, swap_b at swap_a's address. The same addresses then
 * name other symbols: what a reader that keeps resolutions must see
 * (tests/t/t0805, the dlfilter's --dlarg sideband). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int call(const char *dir, const char *lib, const char *fn)
{
	char path[PATH_MAX];
	int (*f)(int);
	void *h;
	int r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		return -1;
	}
	*(void **)&f = dlsym(h, fn);
	if (!f)
		return -1;
	for (int i = 0; i < 3; i++)
		r += f(i);
	printf("%s %p\n", fn, *(void **)&f);
	dlclose(h);
	return r;
}

int main(void)
{
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	char *slash;

	if (n <= 0)
		return 1;
	dir[n] = '\0';
	if (!(slash = strrchr(dir, '/')))
		return 1;
	*slash = '\0';
	if (call(dir, "libdlswap-a.so", "swap_a") < 0 ||
	    call(dir, "libdlswap-b.so", "swap_b") < 0)
		return 1;
	return 0;
}
