/*
 * tests/progs/forky.c: a process that starts children every way glibc
 * has (fork, fork then exec, vfork then exec, vfork then _exit,
 * posix_spawn, system, popen) between calls of work() of its own, which
 * the children call too. Prints how many times the parent called work()
 * and step(): a tracer of the parent must count those, once each, and
 * nothing of the children under the parent's name.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "banned.h"

extern char **environ;
static long works, steps;

__attribute__((noinline)) long work(long v);
__attribute__((noinline)) long work(long v)
{
	works++;
	return v * 7 + 1;
}

__attribute__((noinline)) static long step(long v)
{
	steps++;
	return work(v) + work(v + 1);
}

static void reap(pid_t p)
{
	int st;

	if (p > 0)
		waitpid(p, &st, 0);
}

int main(void)
{
	char *const argv_true[] = { "true", NULL };
	long sum = 0;
	pid_t p;
	FILE *f;

	sum += step(1);
	if (!(p = fork())) {
		work(2);
		work(3);
		_exit(0);
	}
	reap(p);
	sum += step(2);
	if (!(p = fork())) {
		work(4);
		execve("/bin/true", argv_true, environ);
		_exit(127);
	}
	reap(p);
	sum += step(3);
	if (!(p = vfork())) {
		execve("/bin/true", argv_true, environ);
		_exit(127);
	}
	reap(p);
	sum += step(4);
	if (!(p = vfork()))
		_exit(0);
	reap(p);
	sum += step(5);
	if (!posix_spawn(&p, "/bin/true", NULL, NULL, argv_true, environ))
		reap(p);
	sum += step(6);
	if (system("true") != 0)
		sum = -1;
	sum += step(7);
	if ((f = popen("true", "r")))
		pclose(f);
	sum += step(8);
	printf("sum %ld\nstep %ld\nwork %ld\n", sum, steps, works);
	return 0;
}
