/*
 * mt-record's cache directory (docs/patch.md, "The cache"): where what
 * it reads of a file is kept between runs, by the file's identity: the
 * symbol tables (symcache.h) and the patch backend's branch targets
 * (patch/patch-cache.h). $MT_CACHE, else /var/cache/mt for root, else
 * $XDG_CACHE_HOME/mt (~/.cache/mt); used only when it is a directory (not
 * a link) of mt-record's own user that no one else may write (made 0700
 * when missing); MT_CACHE=off turns it off. An entry is one file a path
 * of the target (BASENAME-HASH.EXT: the next version of a library
 * replaces the last's), written to a private temporary (O_EXCL) renamed
 * into place, 0600, and read only when it is a regular file of ours.
 *
 * Never prints; failures only make a miss or nothing kept.
 */
#ifndef MT_RECORD_CACHEDIR_H
#define MT_RECORD_CACHEDIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct cache_dir {
	char *dir;           /* NULL: no cache */
	const char *off_why; /* when dir is NULL: why (static) */
};

/* d set up from the environment (MT_CACHE, HOME, XDG_CACHE_HOME). */
void cache_dir_init(struct cache_dir *d);

/* A hash of mt-record's own build id: what an entry was written by (0:
 * it has none, and then no cache is used). */
uint64_t cache_build(void);

/* The hash entries use (their names, their checksums). */
uint64_t cache_hash(const void *p, size_t n);

/* The identity of a file: an entry holds the one it was read from. */
struct cache_id {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
};

void cache_id_of(struct cache_id *id, const struct stat *st);
int cache_id_same(const struct cache_id *a, const struct cache_id *b);

/* The entry's path for the file path in d, with extension ext ("br"). */
void cache_entry_name(const struct cache_dir *d, const char *path, const char *ext, char *out,
		      size_t cap);

/* Opens the entry name when it is a regular file of ours: a descriptor
 * and *st, or -1. */
int cache_entry_open(const char *name, struct stat *st);

/* Reads exactly n bytes at off of fd: 0, or -1. */
int cache_read_at(int fd, void *buf, size_t n, uint64_t off);

/* Writes the entry name of d: head (hn bytes) then body (bn), through a
 * private temporary renamed into place: 0, or -1 (nothing left behind). */
int cache_entry_write(const struct cache_dir *d, const char *name, const void *head, size_t hn,
		      const void *body, size_t bn);

#endif
