/*
 * struct mt_symtab: the function symbols of one ELF file, read from its
 * .symtab and .dynsym sections with libelf (link -lelf).
 *
 * Ownership: the table owns the array v and every name in it;
 * mt_symtab_release() frees them and leaves an empty, reusable table.
 * A zeroed struct (MT_SYMTAB_INIT) is a valid empty table.
 */
#ifndef MT_SYMTAB_H
#define MT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

enum mt_sym_bind {
	MT_SYM_LOCAL,
	MT_SYM_GLOBAL,
	MT_SYM_WEAK,
	MT_SYM_UNIQUE /* STB_GNU_UNIQUE */
};

struct mt_sym {
	uint64_t addr;  /* st_value as in the file, as nm(1) prints it */
	uint64_t size;  /* st_size; 0 when the file does not say */
	int bind;       /* enum mt_sym_bind */
	char *name;     /* the mangled name, as in the string table */
};

struct mt_symtab {
	struct mt_sym *v;
	size_t n, cap;
};

#define MT_SYMTAB_INIT { NULL, 0, 0 }

void mt_symtab_init(struct mt_symtab *t);
void mt_symtab_release(struct mt_symtab *t);

/*
 * Read the function symbols (STT_FUNC and STT_GNU_IFUNC, defined in a
 * section) of the ELF file open on fd, from .symtab and .dynsym, into t,
 * which must be empty. They are sorted by address, then name; a symbol
 * that both tables hold (same address, name and size) is listed once.
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

/*
 * The symbol containing addr: addr <= a < addr + size, or addr == a for a
 * symbol of size 0. When several do, the one with the greatest address,
 * and among those a global or weak one before a local one. NULL if none.
 */
const struct mt_sym *mt_symtab_lookup(const struct mt_symtab *t, uint64_t addr);

/* "local", "global", "weak" or "unique"; "?" for anything else. */
const char *mt_sym_bind_name(int bind);

#endif
