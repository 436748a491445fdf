/*
 * The patch runtime's entry and return paths (x86-64 System V).
 *
 * A patched function's entry jumps to its stub (patch.c), which pushes
 * the function's index and calls mtp_entry_common, so that here
 *	[rsp] = into the stub, [rsp + 8] = index, [rsp + 16] = the return
 *	address of the function's call.
 * mtp_entry_common saves every call-clobbered general register (rax: the
 * vector-register count of a variadic call; r10: a static chain),
 * calls mtp_enter(index, &return address, &saved rsi) (the saved rdi
 * follows: a trigger's arguments) (with MTP_INDEX_FRAME_BIT set
 * in the index, the return address is 8(%rbp): a -pg prologue, patch.h,
 * ran before the stub) and returns into the stub,
 * every register as it was; the stub drops the index (lea, which keeps
 * the flags) and runs the relocated entry. A call and its ret, so the
 * processor predicts the return. mtp_enter touches no vector register
 * (hooks.h).
 *
 * mtp_return_tramp is where a patched function returns to (mtp_enter put
 * its address in place of the return address): rax and rdx (and the
 * vector and x87 registers, untouched) hold the return value; it calls
 * mtp_exit(stack pointer after the return) and jumps to the address that
 * gives, with every register as the function left it: not only the
 * return value's, since a caller compiled with GCC's -fipa-ra (on at -O2)
 * keeps values in call-clobbered registers across a call of a function it
 * knows leaves them alone.
 */
	/* a push or pop the unwind information follows */
	.macro	CFI_PUSH reg
	pushq	\reg
	.cfi_adjust_cfa_offset 8
	.endm
	.macro	CFI_POP reg
	popq	\reg
	.cfi_adjust_cfa_offset -8
	.endm

	.text
	.globl	mtp_entry_common
	.hidden	mtp_entry_common
	.type	mtp_entry_common, @function
mtp_entry_common:
	.cfi_startproc
	.cfi_adjust_cfa_offset 8
	CFI_PUSH	%rax
	CFI_PUSH	%rdi
	CFI_PUSH	%rsi
	CFI_PUSH	%rdx
	CFI_PUSH	%rcx
	CFI_PUSH	%r8
	CFI_PUSH	%r9
	CFI_PUSH	%r10
	CFI_PUSH	%r11			/* 16-byte aligned */
	movq	80(%rsp), %rdi		/* the index */
	leaq	88(%rsp), %rsi		/* &return address */
	leaq	48(%rsp), %rdx		/* the saved rsi, then rdi */
	btrq	$30, %rdi		/* MTP_INDEX_FRAME_BIT (hooks.h): */
	jnc	1f
	leaq	8(%rbp), %rsi		/* the frame's (flags are dead here) */
1:	call	mtp_enter
	CFI_POP	%r11
	CFI_POP	%r10
	CFI_POP	%r9
	CFI_POP	%r8
	CFI_POP	%rcx
	CFI_POP	%rdx
	CFI_POP	%rsi
	CFI_POP	%rdi
	CFI_POP	%rax
	ret
	.cfi_endproc
	.size	mtp_entry_common, . - mtp_entry_common

/*
 * For mtp_calibrate() (hooks.h): a function as a patch makes it, its stub
 * inline (push the index, call mtp_entry_common, drop the index), its
 * body a ret; and a plain one.
 */
	.globl	mtp_calib_fn
	.hidden	mtp_calib_fn
	.type	mtp_calib_fn, @function
mtp_calib_fn:
	.cfi_startproc
	pushq	$0x3ffffffe		/* MTP_CALIB_INDEX */
	.cfi_adjust_cfa_offset 8
	call	mtp_entry_common
	leaq	8(%rsp), %rsp
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	mtp_calib_fn, . - mtp_calib_fn

	.globl	mtp_calib_plain
	.hidden	mtp_calib_plain
	.type	mtp_calib_plain, @function
mtp_calib_plain:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	mtp_calib_plain, . - mtp_calib_plain

	.globl	mtp_return_tramp
	.hidden	mtp_return_tramp
	.type	mtp_return_tramp, @function
	/* a nop before the entry: an unwinder looks up return address - 1 */
	nop
mtp_return_tramp:
	.cfi_startproc
	subq	$8, %rsp		/* room for the real return address */
	pushq	%rax
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11			/* 16-byte aligned again */
	leaq	80(%rsp), %rdi		/* the stack pointer after the return */
	call	mtp_exit
	movq	%rax, 72(%rsp)
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rax
	/* a jump, not a ret: the function's ret took the processor's
	 * prediction of this return (its caller's call), so a ret here
	 * would take the caller's caller's, and every return up the stack
	 * would be predicted one call off. The address stays below the
	 * stack pointer: a caller keeps nothing there across a call, and a
	 * signal's frame goes below the red zone (lea keeps the flags) */
	leaq	8(%rsp), %rsp
	jmp	*-8(%rsp)
	.cfi_endproc
	.size	mtp_return_tramp, . - mtp_return_tramp

/*
 * The wrappers of _Unwind_RaiseException (kind 1), _Unwind_Resume_or_Rethrow
 * (2) and _Unwind_ForcedUnwind (3), copy C (unwind.c): every patched
 * frame's return address back (mtp_unhook), then on into the copy's
 * relocated entry with the stack as the caller left it, so that the
 * unwinder reads no frame of the wrapper's. Should one return (no
 * handler: std::terminate follows), its frames return untraced.
 */
	.macro	UNHOOK_JMP kind, copy
	.globl	mtp_unhook_jmp_\kind\()_\copy
	.hidden	mtp_unhook_jmp_\kind\()_\copy
	.type	mtp_unhook_jmp_\kind\()_\copy, @function
mtp_unhook_jmp_\kind\()_\copy:
	.cfi_startproc
	CFI_PUSH	%rdi
	CFI_PUSH	%rsi
	CFI_PUSH	%rdx
	CFI_PUSH	%rcx
	CFI_PUSH	%r8			/* 16-byte aligned */
	call	mtp_unhook
	CFI_POP	%r8
	CFI_POP	%rcx
	CFI_POP	%rdx
	CFI_POP	%rsi
	CFI_POP	%rdi
	jmp	*mtp_walker_cont + 8 * (\kind * 8 + \copy)(%rip)
	.cfi_endproc
	.size	mtp_unhook_jmp_\kind\()_\copy, . - mtp_unhook_jmp_\kind\()_\copy
	.endm

	.irp	k, 1, 2, 3
	.irp	c, 0, 1, 2, 3, 4, 5, 6, 7
	UNHOOK_JMP \k, \c
	.endr
	.endr

/*
 * vfork's wrapper (kind 10), copy C: the child shares this thread's memory
 * and TLS until it execs or exits, so the thread is quiet (hooks.c:
 * mtp_quiet_n, its calls unhooked) from before the system call until it
 * returns in the parent; the child, which runs first, never counts it
 * down. vfork returns twice, so no frame of the wrapper's may stay on the
 * stack: the return address is kept in a TLS word (mtp_vfork_ret, which
 * the child reads and leaves as it is) and replaced by mtp_vfork_back's,
 * then on into the copy's relocated entry. Entered by the stub's jump
 * with the stack as vfork's caller left it; rax, r11 and the flags are
 * free (vfork takes no argument; a system call clobbers r11).
 */
	.macro	VFORK_JMP copy
	.globl	mtp_vfork_jmp_\copy
	.hidden	mtp_vfork_jmp_\copy
	.type	mtp_vfork_jmp_\copy, @function
mtp_vfork_jmp_\copy:
	.cfi_startproc
	movq	mtp_vfork_ret@gottpoff(%rip), %rax
	movq	(%rsp), %r11
	movq	%r11, %fs:(%rax)
	leaq	mtp_vfork_back(%rip), %r11
	movq	%r11, (%rsp)
	movq	mtp_quiet_n@gottpoff(%rip), %rax
	incl	%fs:(%rax)
	jmp	*mtp_walker_cont + 8 * (10 * 8 + \copy)(%rip)
	.cfi_endproc
	.size	mtp_vfork_jmp_\copy, . - mtp_vfork_jmp_\copy
	.endm

	.irp	c, 0, 1, 2, 3, 4, 5, 6, 7
	VFORK_JMP \c
	.endr

	.globl	mtp_vfork_back
	.hidden	mtp_vfork_back
	.type	mtp_vfork_back, @function
	nop
mtp_vfork_back:
	/* rax: 0 in the child, the child's pid or -1 in the parent */
	.cfi_startproc
	.cfi_undefined rip
	testq	%rax, %rax
	jz	1f
	movq	mtp_quiet_n@gottpoff(%rip), %r11
	decl	%fs:(%r11)
1:	movq	mtp_vfork_ret@gottpoff(%rip), %r11
	jmp	*%fs:(%r11)
	.cfi_endproc
	.size	mtp_vfork_back, . - mtp_vfork_back

	.section .note.GNU-stack, "", @progbits
