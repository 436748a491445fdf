/*
 * mt-record's cache of symbol tables (docs/patch.md, "The cache"): the
 * table read_symbols() makes of a file (its symbols, those of its debug
 * file merged, the functions only its FDEs show) is the file's, the same
 * on every run; reading it is parsing the ELF file and its debug file,
 * 9 ms for glibc with libc6-dbg's symbols on a VM, where reading the
 * table kept costs a tenth of that. Kept in the cache directory
 * (cachedir.h) as BASENAME-HASH.sym.
 *
 * Trust: what is kept was read by mt-record from the file, never taken
 * from a process. An entry is used only for the same file (device,
 * inode, size, modification and change times), with the same debug file
 * as the read would merge now (none, or the same identity: a debug file
 * installed or removed since is a miss), written by the same build of
 * mt-record, whole (its checksum), and read back as a table
 * mt_symfile_read() could have made (symentry.h). A file or debug file
 * changed less than 20 ms before it was read, or since, is not kept: the
 * kernel's change times run a tick behind, and a time could name content
 * newer than what was read.
 *
 * The lookup and the keeping are split around the debug file's search,
 * which runs with the target's credentials (target-open.c), where the
 * cache's files are mt-record's own. Never prints; failures only make a
 * miss or nothing kept.
 */
#ifndef MT_RECORD_SYMCACHE_H
#define MT_RECORD_SYMCACHE_H

#include <time.h>

#include "cachedir.h"
#include "procsyms.h"

/* The debug file a table was merged with, or would be: its identity. */
struct symcache_debug {
	int looked;          /* the file has no .symtab: one is looked for */
	int found;
	struct cache_id id;  /* when found */
};

/*
 * The entry of the file open at fd (named path by the process): 1 with
 * *f (mt_symfile_release()) and *want, the debug file it was read with,
 * which the caller compares with symcache_debug_now()'s before taking f;
 * or 0 (f untouched).
 */
int symcache_get(int fd, const char *path, struct mt_symfile *f, struct symcache_debug *want);

/* Counts what the caller made of symcache_get()'s table: taken (a hit),
 * or not (its debug file is another now: a miss). */
void symcache_taken(int yes);

/* The debug file a read of the file path whose table is t would look for
 * now, in root (as mt_symfile_read_at()). */
void symcache_debug_now(const struct mt_symtab *t, int root, const char *path,
			struct symcache_debug *out);

/* Whether the debug files a and b are the same for the cache. */
int symcache_debug_same(const struct symcache_debug *a, const struct symcache_debug *b);

/*
 * Keeps f, read from the file open at fd since since (CLOCK_REALTIME)
 * with debug file dbg (symcache_debug_now() after the read), unless
 * either changed less than 20 ms before since, or after.
 */
void symcache_put(int fd, const char *path, const struct mt_symfile *f,
		  const struct symcache_debug *dbg, const struct timespec *since);

/* The counts so far: tables taken from the cache, read (misses), kept;
 * the directory (NULL: none, *off_why says why). */
void symcache_counts(unsigned *hits, unsigned *misses, unsigned *kept, const char **dir,
		     const char **off_why);

#endif
