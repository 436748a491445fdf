/*
 * struct mt_dwlines: source file and line of code addresses, from the
 * DWARF line tables (versions 2 to 5) of an ELF file, read with libdw
 * (link -ldw -lelf).
 *
 * Lifecycle: mt_dwlines_open() allocates; mt_dwlines_free() frees (NULL is
 * a no-op). The strings that lookups return belong to the table and stay
 * valid until it is freed.
 */
#ifndef MT_DWLINE_H
#define MT_DWLINE_H

#include <stdint.h>

struct mt_dwlines;

/*
 * Open the DWARF data of the ELF file open on fd (which must stay open
 * until mt_dwlines_free). Returns 0 and sets *out, or MT_ENOENT when
 * libdw finds no DWARF debug information it can use (none, not ELF,
 * malformed: libdw does not tell these apart to its callers), MT_ENOMEM.
 */
int mt_dwlines_open(struct mt_dwlines **out, int fd);

/*
 * The source line of the file address addr (a link-time address, as in
 * the symbol table): the line table row that covers it, as addr2line(1)
 * gives. Returns 0 and sets *file (the path the compiler recorded,
 * joined to the compilation directory when relative) and *line, or
 * MT_ENOENT when no compilation unit or row covers addr.
 */
int mt_dwlines_lookup(struct mt_dwlines *d, uint64_t addr, const char **file,
		      int *line);

/*
 * The address of source line `line` of the file `file` (a path as the
 * compiler recorded it, or its last components, such as "a.c" or
 * "src/a.c"): the lowest address of the line table rows of that line
 * (where a breakpoint on FILE:LINE would go); with col > 0, of the rows of
 * that line and column only. Returns 0 and sets *addr, or MT_ENOENT when
 * no row has that file and line (and column), MT_ENOMEM.
 */
int mt_dwlines_addr_of(struct mt_dwlines *d, const char *file, int line,
		       int col, uint64_t *addr);

void mt_dwlines_free(struct mt_dwlines *d);

#endif
