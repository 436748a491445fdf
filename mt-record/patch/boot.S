/*
 * The code mt-record -p writes into a running process to load the patch
 * runtime (plugins/patch-runtime/boot.h says the order). Never run in
 * mt-record: it is copied, from mt_boot_code to mt_boot_end, to a page of
 * the process, position-independent (only rip-relative references inside
 * it); every function it calls and every string it passes is in the block
 * (struct mtp_boot) whose address it is given. x86-64 System V.
 */
#include "boot.h"

#define SYS_ppoll 271
#define SYS_rt_sigreturn 15
#define SYS_rt_sigprocmask 14

	.section .rodata
	.globl	mt_boot_code, mt_boot_boot, mt_boot_loader, mt_boot_end
	.hidden	mt_boot_code, mt_boot_boot, mt_boot_loader, mt_boot_end
	.p2align 4
mt_boot_code:

/*
 * boot: on the thread mt-record holds, rdi the block, every signal of
 * the thread's blocked, the stack below the signal frame mt-record wrote
 * (whose ucontext is at MTPB_FRAME_UC). Starts loader on a new thread,
 * says so (MTPB_DONE), then waits to be taken back; after 50 waits of
 * 10 ms with nobody taking it, returns through the signal frame: the
 * thread's registers, vector registers and signal mask as they were.
 */
mt_boot_boot:
	andq	$-16, %rsp
	movq	%rdi, %rbx
	leaq	MTPB_THREAD(%rbx), %rdi
	xorl	%esi, %esi
	leaq	mt_boot_loader(%rip), %rdx
	movq	%rbx, %rcx
	call	*MTPB_PTHREAD_CREATE(%rbx)
	movl	%eax, MTPB_CREATE_RC(%rbx)
	movl	$1, MTPB_DONE(%rbx)
	movl	$50, %r12d
	subq	$16, %rsp
1:	movq	MTPB_TICK(%rbx), %rax	/* a copy: ppoll writes back what is left */
	movq	%rax, (%rsp)
	movq	MTPB_TICK+8(%rbx), %rax
	movq	%rax, 8(%rsp)
	xorl	%edi, %edi		/* no descriptors */
	xorl	%esi, %esi
	movq	%rsp, %rdx		/* 10 ms */
	xorl	%r10d, %r10d		/* the mask as it is */
	movl	$8, %r8d
	movl	$SYS_ppoll, %eax
	syscall
	decl	%r12d
	jnz	1b
	movq	MTPB_FRAME_UC(%rbx), %rsp
	movl	$SYS_rt_sigreturn, %eax
	syscall
	ud2

/*
 * loader: the new thread's start routine, rdi the block. Unblocks glibc's
 * SIGSETXID (setuid() in a threaded program waits for every thread to
 * take it), detaches its thread, dlopens libgcc_s (glibc loads it only
 * when first needed: loaded now, its walkers are wrapped) and the
 * runtime, and calls the runtime's mtp_attach_thread(block). Its
 * progress in MTPB_LOADER.
 */
mt_boot_loader:
	pushq	%rbx
	movq	%rdi, %rbx
	movl	$MTPB_L_STARTED, MTPB_LOADER(%rbx)
	movl	$1, %edi		/* SIG_UNBLOCK */
	leaq	MTPB_UNBLOCK(%rbx), %rsi
	xorl	%edx, %edx
	movl	$8, %r10d
	movl	$SYS_rt_sigprocmask, %eax
	syscall
	call	*MTPB_PTHREAD_SELF(%rbx)
	movq	%rax, %rdi
	call	*MTPB_PTHREAD_DETACH(%rbx)
	leaq	MTPB_LIBGCC(%rbx), %rdi
	movl	MTPB_DLFLAGS(%rbx), %esi
	call	*MTPB_DLOPEN(%rbx)
	leaq	MTPB_RUNTIME(%rbx), %rdi
	movl	MTPB_DLFLAGS(%rbx), %esi
	call	*MTPB_DLOPEN(%rbx)
	movq	%rax, MTPB_HANDLE(%rbx)
	testq	%rax, %rax
	jz	8f
	movl	$MTPB_L_LOADED, MTPB_LOADER(%rbx)
	movq	%rax, %rdi
	leaq	MTPB_SYMBOL(%rbx), %rsi
	call	*MTPB_DLSYM(%rbx)
	testq	%rax, %rax
	jz	8f
	movl	$MTPB_L_CALLED, MTPB_LOADER(%rbx)
	movq	%rbx, %rdi
	call	*%rax
	jmp	9f
8:	movl	$MTPB_L_FAILED, MTPB_LOADER(%rbx)
9:	orl	$MTPB_L_ENDED, MTPB_LOADER(%rbx)
	popq	%rbx
	xorl	%eax, %eax
	ret
mt_boot_end:

	.section .note.GNU-stack, "", @progbits
