/*
 * struct mt_hwbp: a trigger made of hardware execute breakpoints, magic-
 * trace's way (perf_event_open of PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X):
 * the CPU's debug registers stop the target at one address, and the
 * kernel writes a sample (time, pid, tid) into a ring that the caller
 * polls. Unlike a uprobe it needs no privilege for the user's own
 * processes (perf_event_paranoid up to 2) and does not change the
 * target's code; unlike a uprobe it does not fire in virtual machines
 * whose hypervisor does not pass debug traps on (these test machines):
 * mt_hwbp_fires() tells.
 *
 * Threads. A breakpoint event belongs to one task. The engine opens one
 * per thread of the process and online CPU, each inherited (inherit=1) so
 * that the threads and processes each one starts later carry a copy; the
 * events of a CPU write into one ring (the kernel maps no inherited event
 * of a task that is not bound to a CPU). mt_hwbp_arm() reads
 * /proc/PID/task again until no thread is new, for threads started by
 * threads not armed yet (magic-trace #274: a breakpoint on the main
 * thread only); later threads all inherit. Never armed twice on purpose:
 * each inherited copy takes a debug register, and a thread that cannot
 * inherit its creator's copies cannot be created. (A thread started in
 * that window by a thread already armed has two: it reports two hits.)
 *
 * Ownership: the engine owns its file descriptors and mappings;
 * mt_hwbp_release() closes and unmaps them all. Nothing is printed and
 * nothing exits: functions return 0 or a positive result on success and
 * a negative MT_E* code (common/err.h) on failure; then b->what names the
 * operation that failed and errno holds the reason.
 *
 *   struct mt_hwbp b;
 *   mt_hwbp_arm(&b, pid, runtime_address);
 *   while ((r = mt_hwbp_wait(&b, 50, &mask, &hit)) == MT_HWBP_TIMEOUT)
 *           ;
 *   mt_hwbp_release(&b);
 */
#ifndef MT_HWBP_H
#define MT_HWBP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Whether execute breakpoints fire on this machine: puts one on a
 * function of the calling process, calls it and counts. 1: they fire;
 * 0: it was armed but never counted (a hypervisor that does not deliver
 * debug traps); a negative MT_E* code when none could be made (no
 * breakpoint PMU, perf_event_paranoid 3, seccomp), errno set.
 */
int mt_hwbp_fires(void);

/* mt_hwbp_wait() results (errors are negative) */
enum {
	MT_HWBP_TIMEOUT = 0,   /* the time ran out */
	MT_HWBP_HIT = 1,       /* the breakpoint fired: *hit is set */
	MT_HWBP_SIGNAL = 2     /* a signal handler ran */
};

/* A hit. */
struct mt_hwbp_hit {
	uint64_t time;  /* CLOCK_MONOTONIC nanoseconds */
	uint32_t pid, tid;
	uint64_t ip;
	uint64_t rdi, rsi; /* the first two arguments (x86-64), when has_args */
	int has_args;
};

struct mt_hwbp_ring;

/* Treat as opaque except `what`. */
struct mt_hwbp {
	char what[160];         /* the operation that failed last */
	pid_t pid;
	uint64_t addr;
	int *fds;               /* every event, one per thread and CPU */
	size_t nfds, capfds;
	uint32_t *tids;         /* the threads armed */
	size_t ntids, captids;
	struct mt_hwbp_ring *rings; /* one per online CPU */
	size_t nrings;
	size_t page_size;
};

/*
 * Puts an execute breakpoint at runtime address addr on every thread of
 * process pid (and, inherited, on the threads and processes they start
 * later). 0, or a negative MT_E* code: MT_EIO with errno from
 * perf_event_open (EACCES/EPERM: not allowed; ENOENT/EINVAL: no
 * breakpoint PMU; ENOSPC: no free debug register), MT_ENOENT when the
 * process is gone.
 */
int mt_hwbp_arm(struct mt_hwbp *b, pid_t pid, uint64_t addr);

/*
 * Waits up to timeout_ms (0: only looks) for a hit, with the signal mask
 * mask during the wait (NULL: unchanged). MT_HWBP_HIT sets *hit to the
 * earliest hit not yet taken, and takes it: the breakpoints stay armed,
 * and each call returns the next hit, in time order.
 */
int mt_hwbp_wait(struct mt_hwbp *b, int timeout_ms, const sigset_t *mask,
		 struct mt_hwbp_hit *hit);

/* Closes every event (the breakpoints go) and frees; b is reusable. */
void mt_hwbp_release(struct mt_hwbp *b);

#endif
