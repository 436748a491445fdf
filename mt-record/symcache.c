/*
 * mt-record's cache of symbol tables (symcache.h).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "symcache.h"
#include "symentry.h"
#include "symtab.h"
#include "banned.h"

/* an entry's bytes at most (glibc's with its debug symbols: 0.5 MiB) */
#define MAX_ENTRY ((uint64_t)64 << 20)

/* An entry: struct head, then symentry's bytes; sum is cache_hash() of
 * those. */
struct head {
	char magic[8];       /* "mt-syms1" */
	uint64_t tool;       /* cache_build() */
	struct cache_id file;
	uint32_t looked, found;
	struct cache_id debug; /* when found */
	uint64_t len, sum;
};

static const char magic[8] = { 'm', 't', '-', 's', 'y', 'm', 's', '1' };

static struct {
	int ready;
	struct cache_dir dir;
	unsigned hits, misses, kept;
} cache;

static const struct cache_dir *dir(void)
{
	if (!cache.ready) {
		cache_dir_init(&cache.dir);
		cache.ready = 1;
	}
	return cache.dir.dir ? &cache.dir : NULL;
}

static void head_of(struct head *h, const struct stat *st, const struct symcache_debug *d)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, magic, sizeof(magic));
	h->tool = cache_build();
	cache_id_of(&h->file, st);
	h->looked = (uint32_t)d->looked;
	h->found = (uint32_t)d->found;
	if (d->found)
		h->debug = d->id;
}

int symcache_get(int fd, const char *path, struct mt_symfile *f, struct symcache_debug *want)
{
	const struct cache_dir *d = dir();
	struct stat st, est;
	struct cache_id id;
	struct head h;
	char name[4096];
	void *body = NULL;
	int efd, ok = 0;

	if (!d || fstat(fd, &st))
		return 0;
	cache_entry_name(d, path, "sym", name, sizeof(name));
	if ((efd = cache_entry_open(name, &est)) < 0) {
		cache.misses++;
		return 0;
	}
	cache_id_of(&id, &st);
	if (!cache_read_at(efd, &h, sizeof(h), 0) && !memcmp(h.magic, magic, sizeof(magic)) &&
	    h.tool == cache_build() && cache_id_same(&h.file, &id) && h.looked <= 1 &&
	    h.found <= h.looked && h.len <= MAX_ENTRY && (uint64_t)est.st_size == sizeof(h) + h.len &&
	    (body = malloc(h.len ? h.len : 1)) && (mt_prefault(body, h.len), 1) &&
	    !cache_read_at(efd, body, h.len, sizeof(h)) &&
	    cache_hash(body, h.len) == h.sum && !symentry_read(body, h.len, f)) {
		want->looked = (int)h.looked;
		want->found = (int)h.found;
		want->id = h.debug;
		ok = 1;
	}
	free(body);
	close(efd);
	if (!ok)
		cache.misses++;
	return ok;
}

void symcache_taken(int yes)
{
	if (yes)
		cache.hits++;
	else
		cache.misses++;
}

void symcache_debug_now(const struct mt_symtab *t, int root, const char *path,
			struct symcache_debug *out)
{
	struct stat st;
	char *found = NULL;
	int dfd;

	memset(out, 0, sizeof(*out));
	/* as merge_debug() (procsyms.c) without DWARF: a file without
	 * .symtab looks for one */
	if (t->has_symtab)
		return;
	out->looked = 1;
	dfd = mt_symtab_find_debug_at(t, root, path, NULL, 0, &found);
	free(found);
	if (dfd < 0)
		return;
	if (!fstat(dfd, &st)) {
		out->found = 1;
		cache_id_of(&out->id, &st);
	}
	close(dfd);
}

int symcache_debug_same(const struct symcache_debug *a, const struct symcache_debug *b)
{
	return a->looked == b->looked && a->found == b->found &&
	       (!a->found || cache_id_same(&a->id, &b->id));
}

/* Whether a change time (s, ns) is less than RECENT_NS before since, or
 * after it: the kernel stamps a change with a clock a tick behind, so a
 * change made while the file was read may carry a time just before. */
#define RECENT_NS ((int64_t)20 * 1000 * 1000)

static int recent(int64_t s, int64_t ns, const struct timespec *since)
{
	return s * 1000000000 + ns + RECENT_NS >=
	       (int64_t)since->tv_sec * 1000000000 + (int64_t)since->tv_nsec;
}

void symcache_put(int fd, const char *path, const struct mt_symfile *f,
		  const struct symcache_debug *dbg, const struct timespec *since)
{
	const struct cache_dir *d = dir();
	struct mt_buf body;
	struct stat st;
	struct head h;
	char name[4096];

	if (!d || fstat(fd, &st) ||
	    recent((int64_t)st.st_ctim.tv_sec, (int64_t)st.st_ctim.tv_nsec, since) ||
	    (dbg->found && recent(dbg->id.ctime_s, dbg->id.ctime_ns, since)) || f->dwfd >= 0)
		return;
	mt_buf_init(&body);
	head_of(&h, &st, dbg);
	if (!symentry_write(f, &body) && body.len <= MAX_ENTRY) {
		h.len = body.len;
		h.sum = cache_hash(body.p, body.len);
		cache_entry_name(d, path, "sym", name, sizeof(name));
		if (!cache_entry_write(d, name, &h, sizeof(h), body.p, body.len))
			cache.kept++;
	}
	mt_buf_release(&body);
}

void symcache_counts(unsigned *hits, unsigned *misses, unsigned *kept, const char **where,
		     const char **off_why)
{
	(void)dir();
	*hits = cache.hits;
	*misses = cache.misses;
	*kept = cache.kept;
	*where = cache.dir.dir;
	*off_why = cache.dir.off_why;
}
