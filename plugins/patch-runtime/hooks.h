/*
 * The patch runtime's hooks: what a patched function's entry stub and the
 * return trampoline call (tramp.S), and the state they record
 * into. Built with -mgeneral-regs-only and calling no library function,
 * so that they leave every vector and x87 register as the traced code
 * left it and are safe in any context the traced code runs in (signal
 * handlers among them).
 *
 * Each thread that enters a patched function gets, on its first entry, a
 * slot of the shared memory (shm.h) and a shadow stack of the
 * return addresses its patched frames replaced by the return trampoline.
 */
#ifndef MT_PATCH_HOOKS_H
#define MT_PATCH_HOOKS_H

#include <stdint.h>

#include "shm.h"

/* Set by the runtime before it patches anything. */
extern struct mtp_header *mtp_shm;
/* *mtp_live is 0 in a fork's child from its first instruction (where
 * the kernel has MADV_WIPEONFORK; else from the atfork handler on):
 * calls run on there, unrecorded */
extern int *mtp_live;

/* Moves *mtp_live to a page the kernel zeroes in a fork's child; before
 * anything is patched. Nothing happens where that cannot be had. */
void mtp_live_init(void);

/* In the index a stub pushes: the return address is at 8(%rbp), the
 * function's frame (a stub after a -pg prologue: patch.h); tramp.S
 * takes it off */
#define MTP_INDEX_FRAME_BIT 30

/*
 * Function func was entered; *ret is its return address; args[0] and
 * args[1] its rsi and rdi (the trigger's: a stop indicator's arguments).
 * Records the call and replaces *ret by the return trampoline
 * (remembering it).
 */
void mtp_enter(uint64_t func, uint64_t *ret, const uint64_t *args);

/*
 * A patched function returned through the trampoline; sp is the stack
 * pointer after its return. Records the return (and a cut of any frame
 * above it that an unwind skipped) and returns the return address the
 * trampoline replaced.
 */
uint64_t mtp_exit(uint64_t sp);

/* A system call, made direct (no library function, no errno): the
 * result, or -errno. */
long mtp_syscall6(long n, long a, long b, long c, long d, long e, long f);

/*
 * The pages of [p, p + n) made present now, as writing them would
 * (MADV_POPULATE_WRITE: one system call where writing them page after
 * page takes a fault each, ten times the cost on a VM that shadows page
 * tables; a kernel before 5.14 says EINVAL and they fault as before).
 * Only for memory this process may write; its bytes are unchanged, no
 * errno is set.
 */
void mtp_prefault(void *p, uint64_t n);

/* The current time, as the records hold it (mtp_shm->clock). */
uint64_t mtp_now(void);

/* Between mtp_quiet(1) and mtp_quiet(0) the calling thread's calls of
 * patched functions run unhooked and unrecorded: the runtime's own work
 * (patching a library dlopen mapped: Zydis, libc). Nests. */
void mtp_quiet(int on);

/* Where a thread's count of the hooks it is inside (a uint32_t) is, from
 * its thread pointer (%fs base): the same in every thread. */
int64_t mtp_busy_offset(void);

/* That count up (on 1) or down (0), for the runtime's code outside the
 * hooks that reads *mtp_live and then the memory. */
void mtp_busy(int on);

/* mtp_attach(), again (-p): each thread's state is made anew at its
 * next hook, in the new memory (the last session's undone). */
void mtp_new_session(void);

/* In the child after fork: stop recording (the shared rings are the
 * parent's). */
void mtp_forked(void);

/*
 * For code that walks this thread's stack (unwind.c): mtp_unhook() puts
 * back the return address of each patched frame still on the stack, so
 * the walk sees the real one; mtp_rehook(cfa) ends the frames below cfa
 * (an unwind removed them: cut records) and replaces the return addresses
 * of the others by the trampoline again (cfa 0: none ended).
 */
void mtp_unhook(void);
void mtp_rehook(uint64_t cfa);

/*
 * An unwind's personality routine has it land in a frame (a cleanup or a
 * handler): mtp_landing() notes the time; the frames it left end then,
 * cut by the thread's next hook: the first call from there (those at or
 * below its return address), _Unwind_Resume or __cxa_begin_catch
 * (mtp_landed(cfa): those below cfa, the landing frame's stack pointer),
 * or a return.
 */
void mtp_landing(void);
void mtp_landed(uint64_t cfa);

/* A longjmp from stack pointer sp to target: the frames between (return
 * addresses at or above sp, below target) are cut, now. Nothing when
 * target is not above sp on this stack (within 1 GiB). */
void mtp_longjmp(uint64_t sp, uint64_t target);

/*
 * What a traced call and return cost on this thread, in the records'
 * clock units (shm.h mtp_header.call_cost): a function whose stub is
 * tramp.S's mtp_calib_fn (its index MTP_CALIB_INDEX, no table entry's)
 * called through the whole path, the hooks, the trampoline's
 * mispredicted return and two records, against a plain call, best of
 * 5 rounds of 200; its records go to a ring of its own (the trace never
 * sees them). 0 when the hooks are not live. Call with the thread's
 * quiet count as it likes: it is set to 0 and back.
 */
#define MTP_CALIB_INDEX 0x3ffffffeu
uint64_t mtp_calibrate(void);

/* The assembly (tramp.S). */
void mtp_entry_common(void);
void mtp_return_tramp(void);
void mtp_calib_fn(void);
void mtp_calib_plain(void);

#endif
