/*
 * pgme: a program built with gcc -pg (for gprof, and what uftrace
 * traces without patching): every function starts with push %rbp;
 * mov %rsp,%rbp, pushes of the registers it keeps, and a call of mcount
 * through the GOT. top calls mid and leaf, mid calls leaf 3 times; the
 * sum printed, and gmon.out's call graph, are the same traced.
 * With -n N: N iterations (default 1000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

int leaf(int), mid(int), top(int);

int leaf(int x)
{
	return x * 3 + 1;
}

int mid(int x)
{
	int s = 0, i;

	for (i = 0; i < 3; i++)
		s += leaf(x + i);
	return s;
}

int top(int x)
{
	return mid(x) + leaf(x);
}

int main(int argc, char **argv)
{
	long n = 1000, s = 0, i;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		n = atol(argv[2]);
	for (i = 0; i < n; i++)
		s += top((int)i);
	printf("sum %ld\n", s);
	return 0;
}
