/* The demo of magic-trace's README: a program that dlopens libm and calls
 * cos in a loop (a few iterations: every instruction is single-stepped). */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *libm = dlopen("libm.so.6", RTLD_NOW);
	double (*cosine)(double);
	double sum = 0;

	if (!libm)
		return 1;
	*(void **)&cosine = dlsym(libm, "cos");
	for (int i = 0; i < 4; i++)
		sum += cosine(i * 0.5);
	return sum > 100 ? 1 : 0;
}
