/*
 * How mt-record -p loads the patch runtime into a running process
 * (docs/patch.md, "Loading into a running process"): the block of memory
 * it maps in the process and the code it writes beside it
 * (mt-record/patch/boot.S), which the runtime's mtp_attach_thread() (rt.c) reads
 * too. Shared by C and assembly: offsets are macros, checked against the
 * struct in C.
 *
 * The order:
 *  1. mt-record maps two pages in the process (code, then this block)
 *     with system calls a held thread makes (each one returns through a
 *     signal frame holding the thread's own registers, so that it goes on
 *     as it was whatever becomes of mt-record), writes the code and the
 *     block, blocks the thread's signals and runs boot there;
 *  2. boot calls pthread_create(&thread, NULL, loader, block), notes its
 *     result (done) and waits to be taken back: mt-record puts back the
 *     thread's registers, vector registers and signal mask (the kernel
 *     then restarts, or ends with EINTR, a system call it was in, as it
 *     would have); with no mt-record there after about half a second it
 *     returns through the signal frame itself;
 *  3. loader, on the new thread (a glibc thread of its own, holding no
 *     lock of the program's; its signals blocked but glibc's SIGSETXID),
 *     detaches itself, dlopens libgcc_s and the runtime, and calls the
 *     runtime's mtp_attach_thread(block), which does the rest of the
 *     attach and returns; the thread then ends.
 */
#ifndef MT_PATCH_BOOT_H
#define MT_PATCH_BOOT_H

#define MTP_BOOT_MAGIC 0x746f6f4270746dULL /* "mtpBoot" */

/* the two pages: code, then the block */
#define MTP_BOOT_PAGE 4096

/* offsets in struct mtp_boot */
#define MTPB_MAGIC          0
#define MTPB_DONE           8   /* u32: boot: pthread_create returned */
#define MTPB_CREATE_RC      12  /* i32: what it returned */
/* 16: u32, free */
#define MTPB_LOADER         20  /* u32: loader's progress (MTPB_L_*) */
#define MTPB_PTHREAD_CREATE 24
#define MTPB_PTHREAD_DETACH 32
#define MTPB_PTHREAD_SELF   40
#define MTPB_DLOPEN         48
#define MTPB_DLSYM          56
#define MTPB_DLFLAGS        64  /* u64: dlopen's flags */
#define MTPB_FRAME_UC       72  /* the signal frame's ucontext: boot's way back */
#define MTPB_THREAD         80  /* pthread_t */
#define MTPB_HANDLE         88  /* the runtime's dlopen handle */
#define MTPB_TICK           96  /* struct timespec: boot's wait, 10 ms */
#define MTPB_UNBLOCK        112 /* u64: the signals loader unblocks */
#define MTPB_PHASE          120 /* u32: the runtime's phase (enum mtpb_phase) */
#define MTPB_MEMFD          124 /* i32: the runtime's memfd, for mt-record */
#define MTPB_LOADER_TID     128 /* u32: loader's thread */
#define MTPB_ANSWER         132 /* u32: mt-record's answer (enum mtpb_answer) */
#define MTPB_STALE          136 /* u64: an earlier session's memory */
#define MTPB_RECORDER       144 /* u32: mt-record's pid (its waits end with it) */
#define MTPB_LIBGCC         152 /* char[32] */
#define MTPB_SYMBOL         184 /* char[32] */
#define MTPB_RUNTIME        216 /* char[MTPB_PATH_MAX] */
#define MTPB_PATH_MAX       2048
#define MTPB_SIZE           (MTPB_RUNTIME + MTPB_PATH_MAX)

/* loader's progress (MTPB_LOADER) */
#define MTPB_L_STARTED  1
#define MTPB_L_LOADED   2   /* the runtime dlopened */
#define MTPB_L_CALLED   3   /* mtp_attach_thread found and called */
#define MTPB_L_FAILED   4   /* a dlopen or dlsym returned NULL */
#define MTPB_L_ENDED    0x100 /* or'ed: loader returned (its thread ends) */

#ifndef __ASSEMBLER__
#include <stdint.h>

/* the runtime's phase (mtp_boot.phase) */
enum mtpb_phase {
	MTPB_P_NONE = 0,
	MTPB_P_MEMFD,    /* memfd made: mt-record takes it (pidfd_getfd) */
	MTPB_P_STALE,    /* an earlier session is in place (stale): mt-record
			  * undoes it, or refuses */
	MTPB_P_WAITING,  /* the memory mapped, state WAITING: the table next */
	MTPB_P_ENDED,    /* mtp_attach_thread returned (READY, FAILED, or it
			  * gave up: see the header's state) */
	MTPB_P_GAVE_UP   /* no answer in time, or a memory not mt-record's */
};

/* mt-record's answer (mtp_boot.answer) */
enum mtpb_answer {
	MTPB_A_NONE = 0,
	MTPB_A_SIZED,    /* the memfd is sized, sealed, its header written */
	MTPB_A_UNDONE,   /* the earlier session undone (DETACHED) */
	MTPB_A_REFUSED   /* give up: nothing is patched */
};

struct mtp_boot {
	uint64_t magic;
	uint32_t done;
	int32_t create_rc;
	uint32_t free16;
	uint32_t loader;
	uint64_t pthread_create, pthread_detach, pthread_self, dlopen, dlsym;
	uint64_t dlflags;
	uint64_t frame_uc;
	uint64_t thread;
	uint64_t handle;
	int64_t tick_sec, tick_nsec;
	uint64_t unblock;
	uint32_t phase;
	int32_t memfd;
	uint32_t loader_tid;
	uint32_t answer;
	uint64_t stale;
	uint32_t recorder, pad;
	char libgcc[32];
	char symbol[32];
	char runtime[MTPB_PATH_MAX];
};

#define MTPB_CHECK(f, off) _Static_assert(__builtin_offsetof(struct mtp_boot, f) == off, #f)
MTPB_CHECK(done, MTPB_DONE);
MTPB_CHECK(create_rc, MTPB_CREATE_RC);
MTPB_CHECK(loader, MTPB_LOADER);
MTPB_CHECK(pthread_create, MTPB_PTHREAD_CREATE);
MTPB_CHECK(pthread_detach, MTPB_PTHREAD_DETACH);
MTPB_CHECK(pthread_self, MTPB_PTHREAD_SELF);
MTPB_CHECK(dlopen, MTPB_DLOPEN);
MTPB_CHECK(dlsym, MTPB_DLSYM);
MTPB_CHECK(dlflags, MTPB_DLFLAGS);
MTPB_CHECK(frame_uc, MTPB_FRAME_UC);
MTPB_CHECK(thread, MTPB_THREAD);
MTPB_CHECK(handle, MTPB_HANDLE);
MTPB_CHECK(tick_sec, MTPB_TICK);
MTPB_CHECK(unblock, MTPB_UNBLOCK);
MTPB_CHECK(phase, MTPB_PHASE);
MTPB_CHECK(memfd, MTPB_MEMFD);
MTPB_CHECK(loader_tid, MTPB_LOADER_TID);
MTPB_CHECK(answer, MTPB_ANSWER);
MTPB_CHECK(stale, MTPB_STALE);
MTPB_CHECK(recorder, MTPB_RECORDER);
MTPB_CHECK(libgcc, MTPB_LIBGCC);
MTPB_CHECK(symbol, MTPB_SYMBOL);
MTPB_CHECK(runtime, MTPB_RUNTIME);
_Static_assert(sizeof(struct mtp_boot) == MTPB_SIZE && MTPB_SIZE <= MTP_BOOT_PAGE,
	       "struct mtp_boot");
#undef MTPB_CHECK
#endif

#endif
