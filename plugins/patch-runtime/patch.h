/*
 * Patching one function's entry (x86-64): the instructions that cover its
 * first 5 bytes are copied, relocated, into a stub in trampoline memory
 * within 2 GiB of it, and its entry becomes a jump to that stub:
 *
 *	stub:	push $index
 *		call *entry_common		(mtp_entry_common, tramp.S)
 *		lea 8(%rsp), %rsp
 *	cont:	the covered instructions, relocated
 *		jmp entry + cover
 *
 * The bytes replaced past the jump become int3. What may be replaced ends
 * at the first branch target after the entry (a loop back to entry + 2,
 * glibc's mempcpy jumping to memmove + 3): every direct branch of every
 * function of the files scanned (mtp_patch_targets) is one. Instructions
 * decoded with decode.h (Zydis).
 *
 * Fewer than 5 bytes:
 *   - a function shorter than 5 bytes is covered together with the
 *     alignment padding after it (whole no-ops and int3s before the next
 *     function's start), which nothing runs; the stub runs the padding
 *     too, so one that runs on over its end still does;
 *   - else, when the instructions before the limit take 2 to 4 bytes, a
 *     hop: the jump to the stub goes in the padding just before the entry
 *     (at the start of one of its no-ops, none of them a branch target),
 *     and the entry becomes a 2-byte jmp back to it (f->lead: how far).
 * The padding a patch takes is never taken by another.
 *
 * A function built with gcc -pg (push %rbp; mov %rsp,%rbp; pushes; call
 * *mcount@GOTPCREL(%rip), the GOT slot holding mcount's address) is
 * patched after that call, and its stub's index has MTP_INDEX_FRAME_BIT
 * (hooks.h): the return address is at 8(%rbp). mcount reads the real one
 * (gprof's caller), and the call is recorded once mcount is done; the
 * table says how many bytes the patch leaves in place (a lead below 0).
 *
 * A function is left alone, with the reason as its status (shm.h), when
 * it is shorter than that, its size is unknown, an instruction of it
 * cannot be decoded, it lies inside another function's bytes, a branch
 * goes into its first byte(s) with no hop possible, or a covered
 * instruction cannot move (loop/jrcxz, xbegin, a far call or one through
 * %rsp, a
 * displacement that no longer reaches).
 *
 * Entries are written through /proc/self/mem, so page protections stay
 * as they are; stubs through a writable view of their arena. The caller
 * keeps other threads out of the bytes replaced.
 */
#ifndef MT_PATCH_PATCH_H
#define MT_PATCH_PATCH_H

#include <stdint.h>

#include "shm.h"

/* Opens what patching needs (with commit, for mtp_patch_commit():
 * /proc/self/mem); 0, or -1 with errno. */
int mtp_patch_open(int commit);

/* Reads the n functions r (those with a where) for their direct
 * branches, which mtp_patch() then checks against the bytes it would
 * replace: 0, or -1 (out of memory). mtp_patch_scan() reads them (any
 * number of calls, while mt-record writes the rest of the table);
 * mtp_patch_targets() reads the last and makes all it read ready for
 * mtp_patch(). */
int mtp_patch_scan(const struct mtp_range *r, uint32_t n);
int mtp_patch_targets(const struct mtp_range *r, uint32_t n);

/*
 * Before those ranges are read: of the ng givens g (shm.h) whose first
 * range is in r[lo, hi) (r: the nr scan ranges, found), takes the
 * targets t[at, at + count) of each whose code in this process hashes as
 * it says, biased as its ranges, and flags its ranges MTP_RANGE_TAKEN
 * (mtp_patch_scan() reads only ranges without it); the ranges of the
 * others lose their flags. Counts both in *taken and *refused. 0, or -1
 * (out of memory).
 */
int mtp_patch_given(struct mtp_range *r, uint32_t nr, uint32_t lo, uint32_t hi,
		    const struct mtp_given *g, uint32_t ng, const uint64_t *t, uint64_t nt,
		    uint32_t *taken, uint32_t *refused);

/* Prepares f's patch (index i in the table) at its address f->where:
 * writes its stub and sets f->stub, f->cover, f->orig, f->code and *cont
 * (the relocated entry, which runs the whole function), or sets f->status
 * to why it is left alone. The entry is not written yet: mtp_patch_commit()
 * does, once every function is prepared (so that no function the
 * preparing calls, libc's, Zydis's, changes under it). With redirect
 * not 0 the stub jumps to redirect instead (a wrapper of the same type
 * that calls *cont):
 *
 *	stub:	jmp *redirect
 *	cont:	...
 */
void mtp_patch(struct mtp_func *f, uint32_t i, uint64_t *cont, uint64_t redirect);

/* Writes the entry of f, prepared (f->stub set, status pending): status
 * PATCHED, or WRITE. Calls no library function (system calls direct):
 * what it writes may be any library's code. */
void mtp_patch_commit(struct mtp_func *f);

/*
 * Writes the entries of every function of f[0, n) prepared, as
 * mtp_patch_commit() does, a run of pages at a time: each run's bytes
 * read (pread) and written back (pwrite) once, with every patch in them,
 * rather than a write of 5 to 10 bytes a function (each write through
 * /proc/self/mem takes the kernel's locks and walks the page tables:
 * 12,288 of them were most of what writing python3's entries cost). A
 * run whose write fails is written a function at a time. The library
 * calls (the sort, the buffer) come before the first write.
 */
void mtp_patch_commit_all(struct mtp_func *f, uint32_t n);

/* Closes what mtp_patch_open() opened (the trampolines stay). */
void mtp_patch_close(void);

/* A new session whose last one was undone whole (no entry patched, no
 * thread in a stub): every stub's memory is free again, the arenas
 * reused rather than new ones mapped. */
void mtp_patch_reuse(void);

#endif
