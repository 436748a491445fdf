/*
 * patchwalk: stack walks and thread ends inside patched frames, printing
 * what a traced run must print the same: backtrace() from three frames
 * deep (the names of the frames it finds, by dladdr: built -rdynamic);
 * a thread that ends by pthread_exit two frames deep; a thread cancelled
 * while it loops in a function (a loop back to its entry: not patched)
 * that calls pthread_testcancel, called by cancel1.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "banned.h"

static volatile int spin;

__attribute__((noinline)) void walk3(void)
{
	void *pc[64];
	int n = backtrace(pc, 64), i;

	printf("backtrace:");
	for (i = 0; i < n; i++) {
		Dl_info d;

		if (dladdr(pc[i], &d) && d.dli_sname &&
		    (d.dli_sname[0] == 'w' || d.dli_sname[0] == 'm'))
			printf(" %s", d.dli_sname);
	}
	printf("\n");
}

__attribute__((noinline)) void walk2(void) { walk3(); __asm__ volatile(""); }
__attribute__((noinline)) void walk1(void) { walk2(); __asm__ volatile(""); }

__attribute__((noinline)) void exit2(void) { pthread_exit(NULL); }
__attribute__((noinline)) void exit1(void) { exit2(); __asm__ volatile(""); }
static void *exiter(void *a) { (void)a; exit1(); return NULL; }

__attribute__((noinline)) void spinner(void)
{
	for (;;) {
		spin++;
		pthread_testcancel();
	}
}
__attribute__((noinline)) void cancel1(void) { spinner(); __asm__ volatile(""); }
static void *spinning(void *a) { (void)a; cancel1(); return NULL; }

int main(void)
{
	pthread_t t;
	void *ret;

	walk1();
	if (pthread_create(&t, NULL, exiter, NULL) || pthread_join(t, &ret))
		return 1;
	printf("exited %s\n", ret == NULL ? "with NULL" : "?");
	if (pthread_create(&t, NULL, spinning, NULL))
		return 1;
	usleep(10000);
	if (pthread_cancel(t) || pthread_join(t, &ret))
		return 1;
	printf("cancelled %s\n", ret == PTHREAD_CANCELED ? "yes" : "no");
	return 0;
}
