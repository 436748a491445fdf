/*
 * A running process held with ptrace, as debuggers hold one (x86-64):
 * every thread stopped (those started meanwhile too), one of them borrowed
 * to make system calls and run code, put back after, its memory written
 * (through /proc/PID/mem, which writes code too), every thread let go.
 * For mt-record -p with the patch backend (docs/patch.md). struct inject
 * is its caller's; failures die through die.h (system) after putting a
 * thread's registers back, unless said otherwise.
 *
 * Needs what ptrace of the process needs (the same user where
 * kernel.yama.ptrace_scope allows it, else CAP_SYS_PTRACE). Should
 * mt-record be killed, the kernel lets every thread go; a thread it had
 * borrowed (inject_borrow()) goes back to where it was by itself.
 */
#ifndef MT_RECORD_INJECT_H
#define MT_RECORD_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* the interrupted places inject_interrupted() keeps a thread */
#define INJECT_INTR 4

/* the signals one thread's stops may hold back at once; one more is
 * delivered as it comes */
#define INJECT_HELD 4

struct inject_thread {
	pid_t tid;
	int nheld;      /* signals its stops held back, given back when it
			 * goes, each with its own siginfo (held, 128 bytes
			 * each: a siginfo_t) */
	int at_delivery; /* it is stopped in the delivery of the last one
			  * (given back by PTRACE_DETACH's signal there) */
	unsigned char held[INJECT_HELD][128];
	uint64_t ip;    /* where it stopped */
	uint64_t fs_base; /* its thread pointer */
	uint64_t sp;      /* its stack pointer */
	uint64_t intr[INJECT_INTR]; /* inject_interrupted(): where signal */
	int nintr;                  /* handlers interrupted it, how many */
	int in_syscall; /* stopped in a system call (restarted when it goes) */
};

struct inject_state;

struct inject {
	pid_t pid;
	int mem;        /* /proc/PID/mem, read and write */
	int pidfd;      /* the process (pidfd_open), or -1 */
	struct inject_thread *t; /* the threads held, n of them */
	size_t n, cap;
	int soft;       /* not allowed to trace: -1 or 0 returned, errno
			 * set, instead of death */
	pid_t avoid;    /* a thread inject_choose() never takes (0: none) */
	/* inject_borrow(): held thread 0's own state and frame, and the C
	 * library's code it runs system calls through */
	struct inject_state *state;
	uint64_t sys_ret, restore_rt;
	int borrowed, running;
};

#define INJECT_INIT { 0, -1, -1, NULL, 0, 0, 0, 0, NULL, 0, 0, 0, 0 }

/* Opens pid's memory; holds no thread yet. 0, or -1 when the process
 * is gone; dies (system) when it cannot be traced, saying why
 * (ptrace_scope, not ours), unless soft (then -1 too, errno set; and
 * inject_stop_all() returns 0 where it would die so). */
int inject_open(struct inject *in, pid_t pid, int soft);

/*
 * Stops every thread of the process and notes where each is; threads
 * that start while it stops them are stopped too (it lists the threads
 * until a listing finds no new one, INJECT_MAX_LISTINGS listings at most:
 * a process whose threads start new ones and end faster than they are
 * held is let go, errno EAGAIN). A thread that is ending needs no stop
 * and is passed over (the kernel refuses it as it refuses one traced
 * already, EPERM: asked again while it ends, 1 s at most; the loader
 * thread's end raced the next stop so, 1 attach in 10 here). Those held
 * already stay held.
 * Returns how many threads it holds; 0 when the process ended (or
 * EAGAIN).
 */
#define INJECT_MAX_LISTINGS 1000
size_t inject_stop_all(struct inject *in);

/* Thread tid of process pid as its status says: its State letter ('\0'
 * when the thread is gone) and, in *tracer, the pid that traces it (0:
 * none). */
char inject_thread_state(pid_t pid, pid_t tid, int *tracer);

/*
 * Lets every held thread go, each with the signals its stops held back,
 * as they came (number and siginfo: glibc's SIGSETXID handler ignores
 * one that does not come from its own process, and setuid() in another
 * thread then waits forever). A thread still in the stop of a signal's
 * delivery is given it there; one that went on since (borrowed, or run
 * out of patched bytes) gets each sent again and its siginfo put back in
 * the delivery's stop before it goes; one blocked by then stays pending
 * (sent by mt-record).
 */
void inject_release_all(struct inject *in);

/* Lets every held thread go but the first. */
void inject_release_others(struct inject *in);

/*
 * Borrowing held thread 0 to run code of mt-record's in the process, so
 * that whatever becomes of mt-record (killed at any instruction) the
 * thread goes on as it was: inject_borrow() notes its registers, vector
 * registers and signal mask and writes below its red zone a signal frame
 * that gives them back (rt_sigreturn through the C library's
 * __restore_rt); until inject_take_back(), it runs only code that ends
 * in that frame.
 *
 * inject_choose(in, tries): stops every thread and makes held thread 0
 * one that may call into the C library (stopped in the program's own
 * code, or in a system call waiting on something outside the process;
 * in the later half of the tries, in a futex wait too): a thread stopped
 * inside the C library may hold its locks (malloc's), which a call
 * there would wait for forever. Between tries every thread runs about a
 * millisecond. 0, or -1 (errno EBUSY: none in all the tries; or the
 * process ended).
 *
 * inject_borrow(): 0, or -1 (errno: ENOEXEC when the C library has no
 * `syscall; ret' or no __restore_rt; else why the frame could not be
 * written).
 *
 * inject_syscall(): held thread 0 makes system call nr (its signals
 * blocked meanwhile; SIGSTOP's held back), returning through the frame's
 * ret; its result (-errno on failure). Dies when the thread ends.
 *
 * inject_run(): held thread 0 runs code at ip with rdi = arg on its stack
 * below the frame, every signal blocked but glibc's SIGSETXID (its
 * pthread_create() may wait for a lock that setuid() in another thread
 * holds while it waits for every thread to take that signal): code that
 * ends by rt_sigreturn with the stack pointer at inject_frame_uc(in). 0,
 * or -1 (errno). inject_running(): 1 while it runs, -2 when it stopped
 * on a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP), -1 when it
 * ended; SIGSETXID is delivered there and then, SIGSTOP held back.
 *
 * inject_take_back(in, lo, hi): stops it (if running) and, when its
 * instruction pointer is in [lo, hi) (lo == hi: wherever it is), puts its
 * state back as noted, signal mask included: a system call it was in is
 * restarted, or ends with EINTR for a signal that came meanwhile, as the
 * kernel decides. 0 (put back), 1 (it had gone back by itself, outside
 * [lo, hi)), -1 (it ended).
 *
 * Nothing run in the borrowed thread may wait with a timeout the kernel
 * keeps in the thread's restart block (futex, nanosleep, poll with a
 * timeout): a system call the thread was stopped in is restarted through
 * that block (restart_syscall), which would then run mt-record's wait
 * instead of the thread's own (a poll(fd, 1, 1) of the program's failed
 * with ETIMEDOUT so). boot.S waits with ppoll, which has none.
 */
int inject_choose(struct inject *in, int tries);
int inject_borrow(struct inject *in);
uint64_t inject_frame_uc(const struct inject *in);
long inject_syscall(struct inject *in, long nr, long a, long b, long c, long d, long e,
		    long f);
int inject_run(struct inject *in, uint64_t ip, uint64_t arg);
int inject_running(struct inject *in);
int inject_take_back(struct inject *in, uint64_t lo, uint64_t hi);

/* A copy in mt-record of descriptor fd of the process (pidfd_getfd):
 * the descriptor, or -1 (errno). */
int inject_getfd(const struct inject *in, int fd);

/* Whether the process is alive (its pidfd not readable). */
int inject_alive(const struct inject *in);

/* Reads or writes n bytes of the process's memory at addr (code too):
 * 0, or -1 (errno). */
int inject_read(const struct inject *in, uint64_t addr, void *buf, size_t n);
int inject_write(const struct inject *in, uint64_t addr, const void *buf, size_t n);

/*
 * Lets held thread i run on a moment (20 us, 40 us the next time, and
 * so on up to 2 ms; every other thread stays stopped) and stops it again, while inside(ctx, in, the thread,
 * its ip and fs_base as they are) says 1, at most tries times: 0 once it is out, -1 when it is
 * still in after that (or the thread ended). Never single-steps: a thread
 * left in a single-step's SIGTRAP stop by a killed mt-record would die
 * of it. Signals that come meanwhile are held back, never delivered
 * there: a handler's frame would keep an address in the bytes about to
 * change.
 */
int inject_run_out(struct inject *in, size_t i,
		   int (*inside)(const void *ctx, const struct inject *in,
				 const struct inject_thread *t),
		   const void *ctx, int tries);

/*
 * The instruction pointers where signal handlers interrupted held thread
 * i, as the kernel's signal frames on its stack keep them (a handler
 * running, or stopped in, returns there), into its intr and nintr (at
 * most INJECT_INTR; -1: more): frames found by their return address, the
 * C library's __restore_rt, and checked (code and stack segments,
 * flags), at most 64 KiB above the thread's stack pointer, within its
 * mapping (a sigaltstack's frame is above a handler's stack pointer
 * too). None found without a __restore_rt. A word that only looks like
 * a frame gives an address that was not interrupted.
 */
void inject_interrupted(struct inject *in, size_t i);

/* Lets every thread go and closes the memory. */
void inject_close(struct inject *in);

#endif
