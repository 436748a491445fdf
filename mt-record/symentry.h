/*
 * A symbol table as the cache keeps it (symcache.h): struct mt_symfile
 * (its table, the debug file merged or why not) in bytes, and back. The
 * bytes are read from a file of mt-record's own directory, checked by
 * its checksum first; symentry_read() still takes nothing on trust:
 * every count, offset and name is checked against the bytes there, and
 * the order the table keeps (symbols by address, size and name, each
 * once; FDEs by start, none overlapping), so that a table read is one
 * mt_symfile_read() could have made.
 */
#ifndef MT_RECORD_SYMENTRY_H
#define MT_RECORD_SYMENTRY_H

#include <stddef.h>

#include "buf.h"
#include "procsyms.h"

/* f's bytes appended to out: 0, or MT_ENOMEM. */
int symentry_write(const struct mt_symfile *f, struct mt_buf *out);

/* The table of the n bytes at p into f (empty; its dwfd -1): 0, or
 * MT_ECORRUPT or MT_ENOMEM (f empty). */
int symentry_read(const void *p, size_t n, struct mt_symfile *f);

#endif
