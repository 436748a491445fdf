/*
 * abandon PID TID STAGE: mt-record's way of borrowing a thread
 * (mt-record/patch/inject.h), then killed by SIGKILL where it stands, as
 * mt-record may be: thread TID of process PID held and borrowed (its
 * state noted, the signal frame written below its red zone) and, by
 * STAGE: 0 nothing more; 1 one system call made (getpid), the thread
 * left at the `ret' that leads to rt_sigreturn; 2 a system call made with
 * the thread's signals blocked, then put back (inject_take_back) before
 * the kill. The thread must go on exactly as it was each time (t1211).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "die.h"
#include "err.h"
#include "inject.h"
#include "banned.h"

int main(int argc, char **argv)
{
	struct inject in;
	pid_t pid, tid;
	size_t i;
	int stage;

	mt_set_progname("abandon");
	if (argc != 4)
		die(MT_EXIT_USAGE, "usage: abandon PID TID STAGE");
	pid = (pid_t)atoi(argv[1]);
	tid = (pid_t)atoi(argv[2]);
	stage = atoi(argv[3]);
	if (inject_open(&in, pid, 0))
		die(MT_EXIT_DATA, "no process %d", (int)pid);
	if (!inject_stop_all(&in))
		die(MT_EXIT_DATA, "process %d ended", (int)pid);
	for (i = 0; i < in.n && in.t[i].tid != tid; i++)
		;
	if (i == in.n)
		die(MT_EXIT_DATA, "no thread %d", (int)tid);
	if (i) {
		struct inject_thread t = in.t[i];

		in.t[i] = in.t[0];
		in.t[0] = t;
	}
	inject_release_others(&in);
	if (inject_borrow(&in))
		die_errno(MT_EXIT_SYSTEM, "inject_borrow");
	if (stage >= 1 && inject_syscall(&in, SYS_getpid, 0, 0, 0, 0, 0, 0) != pid)
		die(MT_EXIT_SYSTEM, "getpid in the process did not return its pid");
	if (stage >= 2 && inject_take_back(&in, 0, 0))
		die(MT_EXIT_SYSTEM, "inject_take_back");
	kill(getpid(), SIGKILL);
	return 1;
}
