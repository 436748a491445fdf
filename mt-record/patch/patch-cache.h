/*
 * The patch backend's cache of branch targets (docs/patch.md, "The
 * cache"). Before it patches, the runtime must know every direct branch
 * of every function of the files it patches (a patch must not cut into
 * bytes a branch goes to): reading them is decoding all of those files'
 * code, a third of what preparing python3 costs. Those branches are the
 * file's, the same in every process: mt-record reads them from the file
 * itself, once, after a recording (patch_cache_fill(), the trace already
 * written), keeps them in a directory of its own, and gives them to the
 * runtime on the next runs (shm.h struct mtp_given), which takes them
 * only when its memory holds the same code (a hash of it).
 *
 * Trust: what is kept was read by mt-record from the file, never taken
 * from a process; an entry is used only for the same file (device,
 * inode, size, modification and change times), the same functions (their
 * addresses and sizes) and the same build of mt-record (its build id:
 * its decoder is the runtime's), and when whole (its own checksum). The directory: $MT_CACHE, else
 * /var/cache/mt for root, else $XDG_CACHE_HOME/mt (~/.cache/mt); it is
 * used only when it is a directory (not a link) of mt-record's own user
 * that no one else may write; MT_CACHE=off turns the cache off. Entries
 * are written to a private temporary (O_EXCL) renamed into place, one a
 * file path (the next version of a library replaces the last's).
 *
 * Never prints; failures only make a miss or nothing kept (counted).
 */
#ifndef MT_RECORD_PATCH_CACHE_H
#define MT_RECORD_PATCH_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* a function of a file: its address in the file and size */
struct patch_cache_range {
	uint64_t addr, size;
};

/* what an entry holds for a file's ranges */
struct patch_cache_hit {
	uint64_t *targets;  /* MTP_TARGET() of file addresses, sorted, each
			     * once (malloced) */
	size_t ntargets;
	uint8_t *whole;     /* one a range: decoded to its end (malloced) */
	uint64_t hash;      /* mtp_code_hash() of the ranges' bytes, in order */
};

struct patch_cache {
	char *dir;          /* NULL: no cache */
	const char *off_why; /* when dir is NULL: why (static) */
	struct patch_cache_todo *todo; /* misses, for patch_cache_fill() */
	size_t ntodo, todo_cap;
	/* counts: files found, missed, kept by patch_cache_fill(), and
	 * those it could not keep */
	unsigned hits, misses, kept, failed;
};

/* c set up from the environment (MT_CACHE, HOME, XDG_CACHE_HOME). */
void patch_cache_init(struct patch_cache *c);

/*
 * The entry for the n ranges r of the file open at fd (named path by the
 * process): 1 and *out (patch_cache_hit_release()), or 0 (a miss: fd and
 * a copy of r are kept for patch_cache_fill(), for the first 256 misses
 * of a recording). Takes fd either way.
 */
int patch_cache_get(struct patch_cache *c, int fd, const char *path,
		    const struct patch_cache_range *r, uint32_t n, struct patch_cache_hit *out);

void patch_cache_hit_release(struct patch_cache_hit *h);

/*
 * Reads the branch targets of each miss from its file (the runtime's
 * decoder, branches.h) and keeps them: how many entries were written.
 * A file of more than 256 MiB of code is not kept.
 */
unsigned patch_cache_fill(struct patch_cache *c);

/*
 * What patch_cache_fill() keeps for the file at fd (its ranges r): 0,
 * or -1 when a range is not in the file's executable segments or memory
 * ran out. Tests and tools compare it with what a process reads.
 */
int patch_cache_read_file(int fd, const struct patch_cache_range *r, uint32_t n,
			  struct patch_cache_hit *out);

/* Frees what c holds (the misses not filled). */
void patch_cache_release(struct patch_cache *c);

#endif
