/*
 * struct mt_symtab: the function symbols of one ELF file, read from its
 * .symtab and .dynsym sections with libelf (link -lelf -lz), plus what is
 * needed to place them in a process and to find the file's separate debug
 * file: its loadable segments, build-id and .gnu_debuglink.
 *
 * Ownership: the table owns the arrays v, seg and fde, every name in v and
 * debuglink; mt_symtab_release() frees them and leaves an empty, reusable
 * table. A zeroed struct (MT_SYMTAB_INIT) is a valid empty table.
 *
 * Addresses are the file's own (link-time) addresses, as nm(1) prints
 * them. mt_symtab_bias() gives what to add to them for a mapping of the
 * file in a process.
 */
#ifndef MT_SYMTAB_H
#define MT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "ehframe.h"

enum mt_sym_bind {
	MT_SYM_LOCAL,
	MT_SYM_GLOBAL,
	MT_SYM_WEAK,
	MT_SYM_UNIQUE, /* STB_GNU_UNIQUE */
	MT_SYM_PLT,    /* a PLT entry, named "name@plt" as perf names it */
	MT_SYM_JIT,    /* from a perf map (/tmp/perf-PID.map) */
	MT_SYM_FDE,    /* no symbol names it: a function that an FDE of
			* .eh_frame shows, named FILE+0xADDR
			* (mt_symtab_add_fdes()) */
	MT_SYM_FDE_PART /* the same, of code its FDE says is not entered
			 * by a call (ehframe.h's MT_FDE_NOT_CALLED: a part
			 * split off a function, an entry point) */
};

struct mt_sym {
	uint64_t addr;  /* st_value as in the file, as nm(1) prints it */
	uint64_t size;  /* st_size; 0 when the file does not say */
	int bind;       /* enum mt_sym_bind */
	char *name;     /* the mangled name, as in the string table */
};

/* A PT_LOAD program header. */
struct mt_seg {
	uint64_t vaddr, memsz;  /* where it is loaded (before any bias) */
	uint64_t offset, filesz; /* where it is in the file */
	int exec;               /* PF_X */
};

#define MT_BUILD_ID_MAX 64

struct mt_symtab {
	struct mt_sym *v;
	size_t n, cap;
	struct mt_seg *seg;     /* PT_LOAD headers, in file order */
	size_t nseg;
	int etype;              /* ET_EXEC, ET_DYN, ...; 0 until read */
	uint64_t entry;         /* e_entry, the entry point's address (0: none) */
	int has_symtab;         /* the file has a .symtab (not only .dynsym) */
	int has_debug_info;     /* the file has a .debug_info section */
	int is_go;              /* a Go program (.go.buildinfo or .gopclntab) */
	unsigned char build_id[MT_BUILD_ID_MAX]; /* NT_GNU_BUILD_ID */
	size_t build_id_len;    /* 0: none */
	char *debuglink;        /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc; /* its CRC-32 */
	struct mt_fdes fde;     /* the FDEs of .eh_frame (ehframe.h) wholly
				 * inside an executable segment's file bytes
				 * and outside the PLT sections, by address,
				 * none overlapping an earlier one: what
				 * mt_symtab_add_fdes() names */
	int fde_err;            /* 0, or why .eh_frame was not read:
				 * MT_ECORRUPT (at byte fde_bad_off of it) */
	size_t fde_bad_off;
};

#define MT_SYMTAB_INIT { 0 }

void mt_symtab_init(struct mt_symtab *t);
void mt_symtab_release(struct mt_symtab *t);

/*
 * Read the ELF file open on fd into t, which must be empty: its function
 * symbols (STT_FUNC and STT_GNU_IFUNC, defined in a section) from
 * .symtab and .dynsym, its PLT entries (x86-64: each entry of .plt.sec,
 * or of .plt after its header if it has one, and of .plt.got, named by the
 * relocation of the GOT slot it jumps through; for R_X86_64_IRELATIVE, by
 * the STT_GNU_IFUNC symbol at the addend, else "*ABS*+0xADDEND", see
 * mt-symbols(1); other machines: .plt entries in .rela.plt order), the
 * FDEs of its .eh_frame (a little-endian file's; fde: those that can be
 * functions; not yet symbols, see mt_symtab_add_fdes()), and the fields
 * above. A malformed .eh_frame is no error: fde is empty, fde_err says
 * why. Symbols are sorted by address,
 * then size, then name; a symbol that both tables hold is listed once.
 * fd is read with pread and not closed.
 *
 * Returns the number of symbols (0 for a file with none), or:
 *   MT_EMAGIC    not an ELF file (also an empty file or an archive)
 *   MT_ECORRUPT  an ELF file whose headers or symbol tables are malformed
 *   MT_EIO       the file could not be read (errno holds the reason)
 *   MT_ENOMEM    out of memory
 *   MT_ERANGE    more than INT_MAX symbols
 *   MT_EINVAL    t is NULL or not empty
 * On error t is left empty.
 */
int mt_symtab_read(struct mt_symtab *t, int fd);

/* The same, from an ELF image in memory (a [vdso] copied out of a
 * process, say); the image must stay valid during the call only. */
int mt_symtab_read_mem(struct mt_symtab *t, const void *image, size_t size);

/*
 * Add the function symbols of a separate debug file (open on fd) to t,
 * which holds the symbols of the file it belongs to. When both have a
 * build-id they must be equal (else MT_EMISMATCH, t unchanged); t's other
 * fields (fde too) stay those of the main file, except has_debug_info, which is set
 * when the debug file has .debug_info. Returns the number of symbols of t
 * afterwards, or the errors of mt_symtab_read (on error t is unchanged).
 */
int mt_symtab_merge(struct mt_symtab *t, int fd);

/*
 * Add a symbol for each FDE of t (t->fde) that no symbol of t overlaps:
 * the functions of a file without symbols (a stripped executable) and
 * those a library does not export (.dynsym names only those). Named
 * FILE+0xADDR: file as given (callers give the file's base name), ADDR
 * the function's address as the file's addresses go (as nm(1), objdump(1)
 * and addr2line(1) take them: for a shared library or a position-
 * independent executable, its offset from where the file is loaded), in
 * lowercase hexadecimal; bound MT_SYM_FDE, or MT_SYM_FDE_PART when the
 * FDE says the code is not entered by a call (MT_FDE_NOT_CALLED). Call it
 * once the symbols are all there (after mt_symtab_merge() of a debug
 * file, whose symbols then name what they cover); calling it again adds
 * nothing. Returns the number of symbols of t afterwards, or MT_ENOMEM
 * (t unchanged), MT_ERANGE (more than INT_MAX), MT_EINVAL (t or file
 * NULL).
 */
int mt_symtab_add_fdes(struct mt_symtab *t, const char *file);

/*
 * Find and open the separate debug file of the file at path, whose table
 * t holds (read by mt_symtab_read). Tried in order:
 *   for each dir of dirs (may be NULL when ndirs is 0):
 *     dir/.build-id/xx/rest.debug and dir/NAME, NAME the debuglink
 *   /usr/lib/debug/.build-id/xx/rest.debug
 *   DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME, where DIR is the
 *   directory of path and NAME the debuglink
 * Every candidate is opened by mt_open_regular() (regfile.h): only a
 * regular file is (a FIFO, a device or a link to one is passed over
 * without being opened), and it is read up to the size it had then. A
 * debuglink candidate must have the CRC-32 the link records, a build-id
 * candidate the build-id (when it has one); others are passed over.
 * On success returns an fd open for reading and, if found is not NULL,
 * sets *found to the malloced path. Returns MT_ENOENT when no candidate
 * fits (or t has neither build-id nor debuglink), MT_ENOMEM.
 */
int mt_symtab_find_debug(const struct mt_symtab *t, const char *path,
			 const char *const *dirs, size_t ndirs, char **found);

/*
 * The same, every candidate resolved in root as mt_open_regular()
 * resolves it: MT_ROOT_OWN (mt_symtab_find_debug()), or a descriptor of a
 * traced process's root directory (mt_proc_root()), path and dirs then
 * as that process sees them; *found too.
 */
int mt_symtab_find_debug_at(const struct mt_symtab *t, int root, const char *path,
			    const char *const *dirs, size_t ndirs, char **found);

/*
 * Read a perf map (the /tmp/perf-PID.map of a JIT: lines of
 * "START SIZE NAME", START and SIZE in hexadecimal with or without 0x)
 * from fd into t, appending MT_SYM_JIT symbols and sorting again.
 * Returns the number of symbols of t afterwards, or MT_ESYNTAX with
 * *bad_line set to the 1-based number of the first line that does not
 * parse (t unchanged), MT_EIO, MT_ENOMEM.
 */
int mt_symtab_read_perfmap(struct mt_symtab *t, int fd, size_t *bad_line);

/*
 * The symbol containing addr: addr <= a < addr + size, or addr == a for a
 * symbol of size 0. When several do, the one with the greatest address,
 * and among those a global or weak one before a local one. NULL if none.
 */
const struct mt_sym *mt_symtab_lookup(const struct mt_symtab *t, uint64_t addr);

/* Whether a is the name perf keeps rather than b for symbols at one
 * address (choose_best_symbol(): a size, not weak, global, fewer leading
 * underscores, the longer name). */
int mt_sym_better(const struct mt_sym *a, const struct mt_sym *b);

/*
 * Whether name is GCC's name for a part split off a function (f.cold,
 * f.cold.N, f.constprop.0.cold; demangled "f() [clone .cold]"): code of
 * f's own entered by a jump from f, never by a call.
 */
int mt_sym_name_is_part(const char *name);

/*
 * The file offset of the file address vaddr: 0 and *off set when a PT_LOAD
 * segment holds vaddr within its file bytes; MT_ERANGE otherwise.
 */
int mt_symtab_file_offset(const struct mt_symtab *t, uint64_t vaddr,
			  uint64_t *off);

/*
 * The load bias of a mapping of the file that starts at address start and
 * maps it from file offset pgoff (the first and third fields of a line of
 * /proc/PID/maps): runtime address = file address + *bias. Uses the
 * PT_LOAD segment that the loader maps from pgoff (its offset rounded
 * down to a page; an executable one first, as the previous segment may
 * end in the same page), else one whose file bytes hold pgoff.
 * 0 or MT_ERANGE when no segment fits.
 */
int mt_symtab_bias(const struct mt_symtab *t, uint64_t start, uint64_t pgoff,
		   uint64_t *bias);

/* "local", "global", "weak", "unique", "plt", "jit", "fde" or "fde-part";
 * "?" otherwise. */
const char *mt_sym_bind_name(int bind);

#endif
