/* Signal handlers that call a function: one run by raise() (delivered as
 * the kill system call returns), one by a timer while the program spins
 * (delivered between two instructions: an asynchronous event). */
#include <signal.h>
#include <sys/time.h>

static volatile int got;
static volatile sig_atomic_t ticked;

__attribute__((noinline)) static void note(int sig)
{
	got += sig;
}

static void handler(int sig)
{
	note(sig);
}

static void on_alarm(int sig)
{
	note(sig);
	ticked = 1;
}

__attribute__((noinline)) static void spin(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	struct sigaction sa = { .sa_handler = handler };
	struct itimerval it = { .it_value = { 0, 1000 } };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, 0))
		return 1;
	raise(SIGUSR1);
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, 0) || setitimer(ITIMER_REAL, &it, 0))
		return 1;
	while (!ticked)
		spin();
	return got == SIGUSR1 + SIGALRM ? 0 : 1;
}
