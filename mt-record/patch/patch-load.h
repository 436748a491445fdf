/*
 * Loading the patch runtime into a running process (mt-record -p with the
 * patch backend): the order is plugins/patch-runtime/boot.h's. A thread
 * of the process that holds no lock of the C library's is borrowed for a
 * few system calls and a pthread_create, each ending in a signal frame
 * that gives it back its own state, so that whatever becomes of mt-record
 * it goes on as it was; the runtime is then loaded and attached by a
 * thread of its own (the loader), which waits for nothing of the
 * program's. struct patch_load is the caller's; failures die through
 * die.h (system) with the reason, the borrowed thread put back first.
 */
#ifndef MT_RECORD_PATCH_LOAD_H
#define MT_RECORD_PATCH_LOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "boot.h"

struct inject;

/* the C library's functions the loader calls, in the process */
enum { PL_PTHREAD_CREATE, PL_PTHREAD_DETACH, PL_PTHREAD_SELF, PL_DLOPEN, PL_DLSYM, PL_NFNS };

struct patch_load {
	struct inject *in;          /* the process, opened (inject_open) */
	uint64_t code, block;       /* the two pages in the process (0: none) */
	int (*keep_waiting)(void *ctx); /* 0: give up (a signal, the process ended) */
	void *ctx;
	struct mtp_boot b;          /* the block as last read (the process's
				     * words: values only, its strings never
				     * used) */
	const char *runtime;        /* the runtime's path, as given */
};

/*
 * Starts the loader thread (every thread of in stopped, then let go):
 * fns the functions of enum PL_* in the process, dlflags dlopen's flags,
 * runtime the runtime's path as the process sees it. A borrowed thread
 * that does not come back from pthread_create in 3 s (it holds a lock
 * that needs) is put back where it was and another tried, three times at
 * most. 0; -1 when keep_waiting() said 0 (nothing of the process's
 * changed but 8 KiB mapped). Dies when the process cannot be loaded into.
 */
int patch_load_start(struct patch_load *l, const char *runtime, const uint64_t fns[PL_NFNS],
		     uint64_t dlflags);

/*
 * Waits (ms at most, while keep_waiting()) for the runtime's phase
 * (l->b.phase, enum mtpb_phase) to be other than ph, or the loader to
 * have failed (l->b.loader): the phase then; ph when the time ran out or
 * keep_waiting() said 0. l->b is read anew.
 */
uint32_t patch_load_wait(struct patch_load *l, uint32_t ph, long ms);

/* mt-record's answer to the runtime (enum mtpb_answer). */
void patch_load_answer(struct patch_load *l, uint32_t answer);

/*
 * Unmaps len bytes at addr in the process with a borrowed thread, every
 * thread of in held (inject_stop_all): 0, or -1.
 */
int patch_load_unmap(struct patch_load *l, uint64_t addr, uint64_t len);

/*
 * Unmaps the two pages once the loader thread has ended (1 s at most;
 * else they stay, 8 KiB): every thread of in held (inject_stop_all), one
 * borrowed for the munmap and put back.
 */
void patch_load_free(struct patch_load *l);

#endif
