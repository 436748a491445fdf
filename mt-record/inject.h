/*
 * A running process held with ptrace, as debuggers hold one (x86-64):
 * every thread stopped (those started meanwhile too), a function called
 * in one of them with its registers put back after, its memory written
 * (through /proc/PID/mem, which writes code too), every thread let go.
 * For mt-record -p with the patch backend (docs/patch.md). struct inject
 * is its caller's; failures die through die.h (system) after putting a
 * thread's registers back, unless said otherwise.
 *
 * Needs what ptrace of the process needs (the same user where
 * kernel.yama.ptrace_scope allows it, else CAP_SYS_PTRACE). Should
 * mt-record be killed, the kernel lets every thread go; a thread killed
 * mid-call returns to address 0 (the call's return address) and dies.
 */
#ifndef MT_RECORD_INJECT_H
#define MT_RECORD_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct inject_thread {
	pid_t tid;
	int sig;        /* a signal its stop held back, given back when it
			 * goes (0: none) */
	uint64_t ip;    /* where it stopped */
};

struct inject {
	pid_t pid;
	int mem;        /* /proc/PID/mem, read and write */
	struct inject_thread *t; /* the threads held, n of them */
	size_t n, cap;
	int soft;       /* not allowed to trace: -1 or 0 returned, errno
			 * set, instead of death */
};

#define INJECT_INIT { 0, -1, NULL, 0, 0, 0 }

/* Opens pid's memory; holds no thread yet. 0, or -1 when the process
 * is gone; dies (system) when it cannot be traced, saying why
 * (ptrace_scope, not ours), unless soft (then -1 too, errno set; and
 * inject_stop_all() returns 0 where it would die so). */
int inject_open(struct inject *in, pid_t pid, int soft);

/*
 * Stops every thread of the process and notes where each is; threads
 * that start while it stops them are stopped too (it lists the threads
 * until a listing finds no new one). Those held already stay held.
 * Returns how many threads it holds; 0 when the process ended.
 */
size_t inject_stop_all(struct inject *in);

/* Lets every held thread go (each with the signal its stop held back). */
void inject_release_all(struct inject *in);

/* Lets every held thread go but the first. */
void inject_release_others(struct inject *in);

/*
 * Calls fn(args[0], ..., args[nargs - 1]) (at most 6 integer arguments)
 * in held thread 0, on its stack below the red zone, and returns what it
 * returned (rax); every register (vector ones too) is put back after, so
 * that the thread goes on as it was, a system call it was in restarted.
 * strings: nstr NUL-terminated strings copied to that stack first; an
 * argument of INJECT_STR(k) is the address of string k there. Dies when
 * the call ends other than by returning (the process killed, a fault).
 */
#define INJECT_STR(k) (UINT64_C(0xfff0000000000000) + (uint64_t)(k))
uint64_t inject_call(struct inject *in, uint64_t fn, const uint64_t *args, int nargs,
		     const char *const *strings, int nstr);

/* Reads or writes n bytes of the process's memory at addr (code too):
 * 0, or -1 (errno). */
int inject_read(const struct inject *in, uint64_t addr, void *buf, size_t n);
int inject_write(const struct inject *in, uint64_t addr, const void *buf, size_t n);

/*
 * Steps held thread i one instruction at a time while its instruction
 * pointer is in [lo, hi) (at most max steps): 0 once it is out, -1 when
 * it is still in after max (or the thread ended).
 */
int inject_step_out(struct inject *in, size_t i, uint64_t lo, uint64_t hi, long max);

/*
 * The address in process pid of function name of the file it maps whose
 * base name starts with base_prefix ("libc.so."), or whose path is base
 * when it holds a '/': 0 when there is none.
 */
uint64_t inject_symbol(pid_t pid, const char *base, const char *name);

/* Lets every thread go and closes the memory. */
void inject_close(struct inject *in);

#endif
