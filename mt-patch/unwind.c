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
 * the frames between it and where it jumps to, as it jumps. The wrappers are normal C functions with unwind
 * information, so the unwinder walks through them.
 */
#include <stdint.h>
#include <unwind.h>

#include "hooks.h"
#include "unwind.h"

typedef _Unwind_Reason_Code raise_fn(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code forced_fn(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code trace_fn(_Unwind_Trace_Fn, void *);
typedef void *catch_fn(void *);
typedef void resume_fn(struct _Unwind_Exception *);
typedef void longjmp_fn(void *, int);

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

/* the relocated entries of the copies wrapped */
static uint64_t cont[MTP_FK_N][MTP_WALKER_COPIES];
static unsigned ncopies[MTP_FK_N];

#define WRAPPERS(C) \
static _Unwind_Reason_Code raise_##C(struct _Unwind_Exception *e) \
{ \
	_Unwind_Reason_Code r; \
	mtp_unhook(); \
	r = ((raise_fn *)cont[MTP_FK_RAISE][C])(e); \
	mtp_rehook(0); /* it returns only when no handler was found */ \
	return r; \
} \
static _Unwind_Reason_Code rethrow_##C(struct _Unwind_Exception *e) \
{ \
	_Unwind_Reason_Code r; \
	mtp_unhook(); \
	r = ((raise_fn *)cont[MTP_FK_RETHROW][C])(e); \
	mtp_rehook(0); \
	return r; \
} \
static _Unwind_Reason_Code forced_##C(struct _Unwind_Exception *e, \
				     _Unwind_Stop_Fn stop, void *arg) \
{ \
	_Unwind_Reason_Code r; \
	mtp_unhook(); \
	r = ((forced_fn *)cont[MTP_FK_FORCED][C])(e, stop, arg); \
	mtp_rehook(0); \
	return r; \
} \
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
	mtp_unhook(); /* unhooked already, unless a cleanup called some */ \
	((resume_fn *)cont[MTP_FK_RESUME][C])(e); \
} \
static void longjmp_##C(void *env, int val) \
{ \
	mtp_longjmp((uint64_t)__builtin_frame_address(0), jmpbuf_sp(env)); \
	((longjmp_fn *)cont[MTP_FK_LONGJMP][C])(env, val); \
	__builtin_unreachable(); \
}

WRAPPERS(0)
WRAPPERS(1)
WRAPPERS(2)
WRAPPERS(3)

#define ROW(C) { 0, (uint64_t)raise_##C, (uint64_t)rethrow_##C, \
		 (uint64_t)forced_##C, (uint64_t)backtrace_##C, (uint64_t)catch_##C, \
		 (uint64_t)resume_##C, (uint64_t)longjmp_##C }

static const uint64_t wrapper[MTP_WALKER_COPIES][MTP_FK_N] = { ROW(0), ROW(1), ROW(2), ROW(3) };

uint64_t mtp_walker_slot(uint32_t kind, uint64_t **contp)
{
	unsigned c;

	if (kind == MTP_FK_TRACE || kind >= MTP_FK_N || ncopies[kind] == MTP_WALKER_COPIES)
		return 0;
	c = ncopies[kind]++;
	*contp = &cont[kind][c];
	return wrapper[c][kind];
}
