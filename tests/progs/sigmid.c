/*
 * sigmid: a thread that a signal handler interrupted just after the
 * first instruction of a function, for mt-record -p's test that it never
 * writes an entry a handler will return into the middle of. A thread
 * calls victim(), whose first instruction is the system call tgkill(its
 * own thread, SIGUSR1; 2 bytes): the handler runs as that call returns, its frame
 * keeping victim + 2, and spins until released. The main thread prints
 * "ready" once the handler runs, then reads stdin: at "release" the
 * handler returns, victim() returns, and it prints "ok N" (N what victim
 * returned, 7) and exits 0; had victim's first bytes changed under the
 * handler, the thread runs on in the middle of them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banned.h"

/* victim(pid, tid, sig), rax SYS_tgkill: the system call, then 7;
 * call_victim() sets rax and jumps there */
long call_victim(long pid, long tid, long sig);
__asm__(".text\n"
	".p2align 4\n"
	".globl victim\n.type victim,@function\nvictim:\n"
	"\tsyscall\n"           /* the handler runs as it returns: victim + 2 */
	"\tmovl $7, %eax\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tret\n"
	".size victim, .-victim\n"
	".p2align 4\n"
	".globl call_victim\n.type call_victim,@function\ncall_victim:\n"
	"\tmovl $234, %eax\n"   /* SYS_tgkill */
	"\tjmp victim\n"
	".size call_victim, .-call_victim\n");

static volatile int in_handler, released;
static long got;

static void on_usr1(int sig)
{
	(void)sig;
	in_handler = 1;
	while (!released)
		__asm__ volatile("pause" ::: "memory");
}

static void *caller(void *arg)
{
	(void)arg;
	got = call_victim(getpid(), syscall(SYS_gettid), SIGUSR1);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;
	char line[64];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	if (pthread_create(&t, NULL, caller, NULL))
		return 1;
	while (!in_handler)
		usleep(1000);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) && strcmp(line, "release\n"))
		;
	released = 1;
	pthread_join(t, NULL);
	printf("ok %ld\n", got);
	return got == 7 ? 0 : 1;
}
