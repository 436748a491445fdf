/* Signal handlers that call a function: one run by raise() (delivered as
 * the kill system call returns), one by a timer while the program spins
 * (delivered between two instructions: an asynchronous event). On a busy
 * machine the timer can expire before setitimer has returned (the tracer
 * slow to resume it): that alarm comes as the system call returns, and
 * the timer is armed again until one comes while spinning. */
#include <signal.h>
#include <sys/time.h>

static volatile int got;
static volatile sig_atomic_t ticked, spinning, missed;

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
	if (spinning)
		ticked = 1;
	else
		missed = 1;
}

__attribute__((noinline)) static void spin(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	struct sigaction sa = { .sa_handler = handler };
	struct itimerval it = { .it_value = { 0, 1000 } };
	int alarms = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, 0))
		return 1;
	raise(SIGUSR1);
	sa.sa_handler = on_alarm;
	if (sigaction(SIGALRM, &sa, 0))
		return 1;
	while (!ticked && alarms < 100) {
		missed = 0;
		if (setitimer(ITIMER_REAL, &it, 0))
			return 1;
		alarms++;
		spinning = 1;
		while (!ticked && !missed)
			spin();
		spinning = 0;
	}
	return ticked && got == SIGUSR1 + alarms * SIGALRM ? 0 : 1;
}
