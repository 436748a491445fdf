/*
 * Functions whose return address a tracer must not replace. A return
 * hook (a uretprobe; the patch runtime's return trampoline) swaps the
 * word at the stack pointer on the function's entry for its own address
 * and puts it back on the return. That word is no return address when
 * the function is not entered by a call, and the swapped one escapes
 * when the function returns twice:
 *
 *   - the ELF entry point (_start: the word is argc, and the program
 *     runs with the hook's address as its argument count), the signal
 *     return trampoline (__restore_rt: the signal frame), the dynamic
 *     linker's lazy-binding entries (_dl_runtime_*: the PLT jumps there
 *     with two words pushed above the return address), the return of a
 *     makecontext function (__start_context);
 *   - functions that return twice or where another context resumes
 *     (setjmp, getcontext, vfork): the return address they save, or
 *     leave in a stack the child shares, is the hook's, which no frame
 *     then matches.
 *
 * The entry point is the file's (e_entry; symtab.h's entry); the rest are
 * known by name. Header-only: the patch runtime, which links no libmt,
 * and the uprobe engine use the same lists.
 */
#ifndef MT_UNHOOKABLE_H
#define MT_UNHOOKABLE_H

#include <string.h>

/* Entered otherwise than by a call (besides the entry point). */
static inline int mt_not_entered_by_call(const char *name)
{
	return !strcmp(name, "__restore_rt") || !strncmp(name, "_dl_runtime_", 12) ||
	       !strcmp(name, "__start_context");
}

/* Returns twice, or where another context resumes. */
static inline int mt_returns_twice(const char *name)
{
	static const char *const names[] = {
		"setjmp", "_setjmp", "__setjmp", "sigsetjmp", "__sigsetjmp",
		"__sigsetjmp_cancel", "getcontext", "__getcontext", "swapcontext",
		"__swapcontext", "vfork", "__vfork", "__libc_vfork", NULL
	};
	size_t i;

	for (i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

#endif
