/*
 * The functions an .eh_frame section describes: the code range of each of
 * its FDEs (Frame Description Entries: one per function compiled with
 * unwind tables, GCC's and clang's default on x86-64 and arm64), read
 * from the section's bytes as the LSB specifies them (DWARF call frame
 * information with the GNU augmentations "zR", "zPLR", ...), and whether
 * the function is entered by a call. The bytes come from files a traced
 * process may have written: every length, offset and pointer encoding is
 * checked against the section before it is used, and every loop is bound
 * by the section's size.
 *
 * No libelf here (the fuzzer runs it alone): the caller finds the section
 * and says where it is loaded (common/symtab.c does).
 *
 * Ownership: struct mt_fdes owns its array; mt_fdes_release() frees it.
 * A zeroed struct (MT_FDES_INIT) is a valid empty list.
 */
#ifndef MT_EHFRAME_H
#define MT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/* struct mt_fde flags */
enum {
	/*
	 * Its unwind rules at its first instruction are not those of a
	 * function just called: its FDE changes its CIE's rules before its
	 * first advance (a part of a function split off, GCC's f.cold,
	 * entered by a jump with its function's frame in place; ld.so's
	 * lazy binding entry, entered with two words pushed), or its CIE's
	 * rules are not a call's (the return address undefined: an
	 * outermost frame, _start; a CFA other than the stack pointer plus
	 * the machine's return address; any register saved). The word at
	 * the stack pointer there is no return address.
	 */
	MT_FDE_NOT_CALLED = 1
};

struct mt_fde {
	uint64_t start;   /* its first address, as the file's addresses go */
	uint64_t size;    /* bytes it covers, never 0; start + size does
			   * not wrap */
	unsigned flags;   /* MT_FDE_* */
};

struct mt_fdes {
	struct mt_fde *v; /* sorted by start, then size */
	size_t n, cap;
	size_t skipped;   /* FDEs passed over: their fields (or their CIE's)
			   * are malformed or use an encoding not read here */
};

#define MT_FDES_INIT { NULL, 0, 0, 0 }

/* Where the section is and what its pointers are relative to. */
struct mt_ehframe_where {
	uint64_t addr;     /* the section's address (sh_addr):
			    * DW_EH_PE_pcrel's base */
	uint64_t dbase;    /* DW_EH_PE_datarel's base (the GOT: on i386
			    * DT_PLTGOT, .got.plt) */
	int has_dbase;     /* 0: a datarel pointer is not read */
	unsigned ptr_size; /* 4 or 8: DW_EH_PE_absptr's size, and the width
			    * addresses wrap at */
	unsigned machine;  /* e_machine: EM_X86_64, EM_AARCH64 and EM_386
			    * have their CFA rule at a call checked (see
			    * MT_FDE_NOT_CALLED); others any def_cfa */
};

void mt_fdes_release(struct mt_fdes *f);

/*
 * Read the FDEs of the .eh_frame section data (size bytes) into out,
 * which must be empty. Records are read one after another by their
 * lengths; a zero length (the terminator) is passed over, as readelf
 * does, and so are records in the 64-bit DWARF format (never emitted for
 * .eh_frame). For each FDE: its CIE (the one its CIE pointer names, which
 * must be a CIE record of this section), the initial location and address
 * range in the CIE's pointer encoding ('R' augmentation, else absptr):
 * DW_EH_PE_absptr, udata2/4/8, sdata2/4/8, uleb128, sleb128, absolute,
 * pcrel or datarel; textrel, funcrel, aligned and indirect are not read.
 * CIE versions 1 and 3; augmentations made of 'z', 'R', 'P', 'L', 'S',
 * 'B', 'G' (any other, or "eh", and its FDEs are passed over). An FDE
 * whose fields do not fit its record, whose CIE cannot be read, or whose
 * range is empty or ends past the last address (2^64 - 1, or 2^32 - 1
 * with 4-byte pointers) is passed over and counted in skipped (an empty
 * range is not counted). The FDEs are returned as the file has them:
 * overlapping or outside any code (the caller checks that).
 *
 * Returns the number of FDEs read, or:
 *   MT_ECORRUPT  a record's length runs past the end of the section (the
 *                next records cannot be found); *bad_off, when bad_off is
 *                not NULL, is the byte offset of that record
 *   MT_ENOMEM    out of memory
 *   MT_ERANGE    more than INT_MAX FDEs
 *   MT_EINVAL    out is NULL or not empty, data is NULL with a size, or
 *                ptr_size is neither 4 nor 8
 * On error out is left empty.
 */
int mt_ehframe_read(const void *data, size_t size, const struct mt_ehframe_where *w,
		    struct mt_fdes *out, size_t *bad_off);

#endif
