/*
 * Stack walks through patched frames. An unwinder reads return addresses,
 * and where a patched frame's is the return trampoline it finds no unwind
 * information there and stops: std::terminate for an exception, a short
 * backtrace(). So the walkers themselves are patched (kind not
 * MTP_FK_TRACE in the table: libgcc_s's, or the copies linked into the
 * executable with -static-libgcc), to run inside the wrappers here: before
 * a walk every patched frame of the thread gets its return address back
 * (mtp_unhook); after a walk that returns, the trampolines go back in
 * (mtp_rehook). __cxa_begin_catch ends the frames a caught exception's
 * unwind removed, those below the catching frame's stack pointer, and
 * hooks the others again. longjmp (and siglongjmp, __longjmp_chk) cuts
 * the frames between it and where it jumps to, as it jumps. A
 * personality routine that has the unwinder land in a frame notes when
 * (mtp_landing): the frames below end then. The raise, rethrow and forced
 * unwind wrappers are assembly (tramp.S) that leaves no frame; the others
 * are normal C functions with unwind information, so the unwinder walks
 * through them. dlopen is wrapped here too (its wrapper offers the
 * libraries it mapped: mtp_loaded()).
 */
#include <stdint.h>
#include <unwind.h>

#include "hooks.h"
#include "unwind.h"
#include "../../common/banned.h"

typedef _Unwind_Reason_Code raise_fn(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code forced_fn(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code trace_fn(_Unwind_Trace_Fn, void *);
typedef void *catch_fn(void *);
typedef void resume_fn(struct _Unwind_Exception *);
typedef void longjmp_fn(void *, int);
typedef void *dlopen_fn(const char *, int);
typedef long quiet_fn(long, long, long, long, long, long);

/*
 * The stack pointer a glibc jmp_buf holds (x86-64): its word 6, mangled
 * as PTR_MANGLE does (xor with the thread's pointer guard, at %fs:0x30 in
 * its TCB, then rotated left 17 bits).
 */
static uint64_t jmpbuf_sp(const void *env)
{
	uint64_t v = ((const uint64_t *)env)[6], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	v = v >> 17 | v << 47;
	return v ^ guard;
}

/* the relocated entries of the copies wrapped (tramp.S jumps through
 * mtp_walker_cont too) */
uint64_t mtp_walker_cont[MTP_FK_N][MTP_WALKER_COPIES];
#define cont mtp_walker_cont

typedef _Unwind_Reason_Code personality_fn(int, _Unwind_Action, _Unwind_Exception_Class,
					   struct _Unwind_Exception *, struct _Unwind_Context *);

/* tramp.S: mtp_unhook(), then a jump to the copy's relocated entry (no
 * frame of their own for the unwinder to read) */
#define TAIL(K, C) void mtp_unhook_jmp_##K##_##C(void);
#define TAILS(K) TAIL(K, 0) TAIL(K, 1) TAIL(K, 2) TAIL(K, 3) \
	TAIL(K, 4) TAIL(K, 5) TAIL(K, 6) TAIL(K, 7)
TAILS(1) TAILS(2) TAILS(3)
/* tramp.S: vfork's, copy C (the child runs unhooked) */
#define VFORK(C) void mtp_vfork_jmp_##C(void);
VFORK(0) VFORK(1) VFORK(2) VFORK(3) VFORK(4) VFORK(5) VFORK(6) VFORK(7)
_Static_assert(MTP_FK_RAISE == 1 && MTP_FK_RETHROW == 2 && MTP_FK_FORCED == 3 &&
	       MTP_FK_VFORK == 10 && MTP_WALKER_COPIES == 8,
	       "tramp.S's mtp_unhook_jmp_K_C and mtp_vfork_jmp_C");
static unsigned ncopies[MTP_FK_N];

#define WRAPPERS(C) \
static _Unwind_Reason_Code backtrace_##C(_Unwind_Trace_Fn fn, void *arg) \
{ \
	_Unwind_Reason_Code r; \
	mtp_unhook(); \
	r = ((trace_fn *)cont[MTP_FK_BACKTRACE][C])(fn, arg); \
	mtp_rehook(0); \
	return r; \
} \
static void *catch_##C(void *e) \
{ \
	/* the catching frame's stack pointer is this call's CFA (the \
	 * patched entry jumped here, leaving the stack as it was) */ \
	mtp_rehook((uint64_t)__builtin_dwarf_cfa()); \
	return ((catch_fn *)cont[MTP_FK_CATCH][C])(e); \
} \
static void resume_##C(struct _Unwind_Exception *e) \
{ \
	/* called from the landing pad of a cleanup: the frames below it \
	 * are gone */ \
	mtp_landed((uint64_t)__builtin_dwarf_cfa()); \
	mtp_unhook(); /* unhooked already, unless a cleanup called some */ \
	((resume_fn *)cont[MTP_FK_RESUME][C])(e); \
} \
static void longjmp_##C(void *env, int val) \
{ \
	mtp_longjmp((uint64_t)__builtin_frame_address(0), jmpbuf_sp(env)); \
	((longjmp_fn *)cont[MTP_FK_LONGJMP][C])(env, val); \
	__builtin_unreachable(); \
} \
static _Unwind_Reason_Code personality_##C(int v, _Unwind_Action a, \
					  _Unwind_Exception_Class k, \
					  struct _Unwind_Exception *e, \
					  struct _Unwind_Context *x) \
{ \
	_Unwind_Reason_Code r = ((personality_fn *)cont[MTP_FK_PERSONALITY][C])(v, a, k, e, x); \
	if (r == _URC_INSTALL_CONTEXT && (a & _UA_CLEANUP_PHASE)) \
		mtp_landing(); \
	return r; \
} \
static void *dlopen_##C(const char *file, int mode) \
{ \
	void *h = ((dlopen_fn *)cont[MTP_FK_DLOPEN][C])(file, mode); \
	mtp_loaded(); \
	return h; \
} \
/* posix_spawn(p), system, popen, __clone_internal: at most six integer \
 * arguments, none on the stack */ \
static long quiet_##C(long a, long b, long c, long d, long e, long f) \
{ \
	long r; \
	mtp_quiet(1); \
	r = ((quiet_fn *)cont[MTP_FK_QUIET][C])(a, b, c, d, e, f); \
	mtp_quiet(0); \
	return r; \
}

WRAPPERS(0)
WRAPPERS(1)
WRAPPERS(2)
WRAPPERS(3)
WRAPPERS(4)
WRAPPERS(5)
WRAPPERS(6)
WRAPPERS(7)

#define ROW(C) { 0, (uint64_t)mtp_unhook_jmp_1_##C, (uint64_t)mtp_unhook_jmp_2_##C, \
		 (uint64_t)mtp_unhook_jmp_3_##C, (uint64_t)backtrace_##C, (uint64_t)catch_##C, \
		 (uint64_t)resume_##C, (uint64_t)longjmp_##C, (uint64_t)personality_##C, \
		 (uint64_t)dlopen_##C, (uint64_t)mtp_vfork_jmp_##C, (uint64_t)quiet_##C }

static const uint64_t wrapper[MTP_WALKER_COPIES][MTP_FK_N] = {
	ROW(0), ROW(1), ROW(2), ROW(3), ROW(4), ROW(5), ROW(6), ROW(7)
};

uint64_t mtp_walker_slot(uint32_t kind, uint64_t **contp)
{
	unsigned c;

	if (kind == MTP_FK_TRACE || kind >= MTP_FK_N || ncopies[kind] == MTP_WALKER_COPIES)
		return 0;
	c = ncopies[kind]++;
	*contp = &cont[kind][c];
	return wrapper[c][kind];
}

void mtp_walker_reset(void)
{
	unsigned k, c;

	for (k = 0; k < MTP_FK_N; k++) {
		ncopies[k] = 0;
		for (c = 0; c < MTP_WALKER_COPIES; c++)
			cont[k][c] = 0;
	}
}
