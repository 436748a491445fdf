/*
 * The patch backend's cache of branch targets (patch-cache.h).
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cachedir.h"
#include "patch-cache.h"
#include "patch-table.h"
#include "branches.h"
#include "decode.h"
#include "shm.h"
#include "radix.h"
#include "banned.h"

/* the code of one file read at most */
#define MAX_CODE ((uint64_t)256 << 20)
/* the misses kept for patch_cache_fill() at most, each a descriptor
 * open until then (a process may map thousands of libraries) */
#define MAX_TODO 256
/* an entry's targets at most (as many as the shared memory holds) */
#define MAX_TARGETS PATCH_MAX_TARGETS

/*
 * An entry: struct head, then the ranges' whole flags (one byte a range,
 * padded to 8), then ntargets uint64_t; sum is mtp_code_hash() of all
 * that follows the head.
 */
struct head {
	char magic[8];      /* "mt-brch1" */
	uint32_t version;   /* MTP_VERSION */
	uint32_t nranges;
	uint64_t tool;      /* mt-record's build (its decoder) */
	struct cache_id file; /* cachedir.h: the layout the fields had */
	uint64_t ranges_hash; /* of the ranges' addresses and sizes */
	uint64_t code_hash;
	uint64_t ntargets;
	uint64_t sum;
};

static const char magic[8] = { 'm', 't', '-', 'b', 'r', 'c', 'h', '1' };

struct patch_cache_todo {
	int fd;
	char *path;
	struct patch_cache_range *r;
	uint32_t n;
};

void patch_cache_init(struct patch_cache *c)
{
	struct cache_dir d;

	memset(c, 0, sizeof(*c));
	cache_dir_init(&d);
	c->dir = d.dir;
	c->off_why = d.off_why;
}

/* The entry's name for path. */
static void entry_name(const struct patch_cache *c, const char *path, char *out, size_t cap)
{
	const struct cache_dir d = { c->dir, NULL };

	cache_entry_name(&d, path, "br", out, cap);
}

static uint64_t ranges_hash(const struct patch_cache_range *r, uint32_t n)
{
	return mtp_code_hash(MTP_HASH_INIT, r, (size_t)n * sizeof(*r));
}

/* The head's identity of the file st, its ranges r. */
static void identity(struct head *h, const struct stat *st, const struct patch_cache_range *r,
		     uint32_t n)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, magic, sizeof(magic));
	h->version = MTP_VERSION;
	h->nranges = n;
	h->tool = cache_build();
	cache_id_of(&h->file, st);
	h->ranges_hash = ranges_hash(r, n);
}

static int same_identity(const struct head *a, const struct head *b)
{
	return !memcmp(a->magic, b->magic, sizeof(a->magic)) && a->version == b->version &&
	       a->tool == b->tool &&
	       a->nranges == b->nranges && cache_id_same(&a->file, &b->file) &&
	       a->ranges_hash == b->ranges_hash;
}

static size_t flags_bytes(uint32_t n)
{
	return ((size_t)n + 7) & ~(size_t)7;
}

/* The entry of want's identity at name: 1 and *out, or 0. */
static int lookup(const char *name, const struct head *want, struct patch_cache_hit *out)
{
	struct head h;
	struct stat st;
	size_t fl;
	char *body = NULL;
	uint64_t len;
	int fd = cache_entry_open(name, &st), ok = 0;

	if (fd < 0)
		return 0;
	if (cache_read_at(fd, &h, sizeof(h), 0) || !same_identity(&h, want) ||
	    h.ntargets > MAX_TARGETS)
		goto out;
	fl = flags_bytes(h.nranges);
	len = fl + h.ntargets * sizeof(uint64_t);
	if ((uint64_t)st.st_size != sizeof(h) + len || !(body = malloc(len ? len : 1)) ||
	    cache_read_at(fd, body, len, sizeof(h)) || mtp_code_hash(MTP_HASH_INIT, body, len) != h.sum)
		goto out;
	memset(out, 0, sizeof(*out));
	out->whole = malloc(h.nranges ? h.nranges : 1);
	out->targets = malloc(h.ntargets ? h.ntargets * sizeof(uint64_t) : 1);
	if (!out->whole || !out->targets) {
		patch_cache_hit_release(out);
		goto out;
	}
	memcpy(out->whole, body, h.nranges);
	memcpy(out->targets, body + fl, h.ntargets * sizeof(uint64_t));
	out->ntargets = h.ntargets;
	out->hash = h.code_hash;
	ok = 1;
out:
	free(body);
	close(fd);
	return ok;
}

void patch_cache_hit_release(struct patch_cache_hit *h)
{
	free(h->targets);
	free(h->whole);
	memset(h, 0, sizeof(*h));
}

int patch_cache_get(struct patch_cache *c, int fd, const char *path,
		    const struct patch_cache_range *r, uint32_t n, struct patch_cache_hit *out)
{
	struct patch_cache_todo *t;
	struct head want;
	struct stat st;
	char name[4096];

	if (!c->dir || fstat(fd, &st)) {
		close(fd);
		return 0;
	}
	identity(&want, &st, r, n);
	entry_name(c, path, name, sizeof(name));
	if (lookup(name, &want, out)) {
		c->hits++;
		close(fd);
		return 1;
	}
	c->misses++;
	if (c->ntodo == MAX_TODO) { /* its descriptor kept open: a few */
		close(fd);
		return 0;
	}
	if (c->ntodo == c->todo_cap) {
		size_t cap = c->todo_cap ? 2 * c->todo_cap : 16;

		if (!(t = realloc(c->todo, cap * sizeof(*t)))) {
			close(fd);
			return 0;
		}
		c->todo = t;
		c->todo_cap = cap;
	}
	t = &c->todo[c->ntodo];
	t->fd = fd;
	t->n = n;
	t->path = strdup(path);
	t->r = malloc((n ? n : 1) * sizeof(*r));
	if (!t->path || !t->r) {
		free(t->path);
		free(t->r);
		close(fd);
		return 0;
	}
	memcpy(t->r, r, (size_t)n * sizeof(*r));
	c->ntodo++;
	return 0;
}

/* An executable PT_LOAD's file bytes, read. */
struct seg {
	uint64_t vaddr, filesz, offset;
	uint8_t *code;
};

/* The executable segments of the ELF file at fd (at most 16), their
 * code read: how many, or -1. */
static int read_segments(int fd, struct seg *s, int max)
{
	Elf64_Ehdr e;
	uint64_t total = 0;
	int i, n = 0;

	if (cache_read_at(fd, &e, sizeof(e), 0) || memcmp(e.e_ident, ELFMAG, SELFMAG) ||
	    e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_phentsize != sizeof(Elf64_Phdr) ||
	    e.e_phnum > 256)
		return -1;
	for (i = 0; i < e.e_phnum; i++) {
		Elf64_Phdr ph;

		if (cache_read_at(fd, &ph, sizeof(ph), e.e_phoff + (uint64_t)i * sizeof(ph)))
			return -1;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		if (n == max || ph.p_filesz > MAX_CODE - total)
			return -1;
		total += ph.p_filesz;
		s[n].vaddr = ph.p_vaddr;
		s[n].filesz = ph.p_filesz;
		s[n].offset = ph.p_offset;
		if (!(s[n].code = malloc(ph.p_filesz)))
			return -1;
		n++;
		if (cache_read_at(fd, s[n - 1].code, ph.p_filesz, ph.p_offset))
			return -1;
	}
	return n;
}

/* Where the code of [addr, addr + size) is among s[0, n), or NULL. */
static const uint8_t *code_of(const struct seg *s, int n, uint64_t addr, uint64_t size)
{
	int i;

	for (i = 0; i < n; i++)
		if (addr >= s[i].vaddr && addr - s[i].vaddr <= s[i].filesz &&
		    size <= s[i].filesz - (addr - s[i].vaddr))
			return s[i].code + (addr - s[i].vaddr);
	return NULL;
}

/* The order the runtime reads ranges in (patch.c): by start, those at
 * one start longest first; the others at that start take its answer. */
struct order {
	uint64_t addr, size;
	uint32_t i;
};

static int by_start(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int patch_cache_read_file(int fd, const struct patch_cache_range *r, uint32_t n,
			  struct patch_cache_hit *out)
{
	struct seg s[16];
	struct order *o = NULL;
	struct mtp_targets t = { 0 };
	uint64_t *tmp = NULL, *sorted;
	int ns, ret = -1;
	uint32_t k;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	memset(s, 0, sizeof(s));
	if (mtp_decode_init() || (ns = read_segments(fd, s, 16)) < 0)
		goto out;
	out->hash = MTP_HASH_INIT;
	for (k = 0; k < n; k++) {
		const uint8_t *code = code_of(s, ns, r[k].addr, r[k].size);

		if (!code)
			goto out;
		out->hash = mtp_code_hash(out->hash, code, r[k].size);
	}
	if (!(o = malloc((n ? n : 1) * sizeof(*o))) || !(out->whole = malloc(n ? n : 1)))
		goto out;
	for (k = 0; k < n; k++)
		o[k] = (struct order){ r[k].addr, r[k].size, k };
	qsort(o, n, sizeof(*o), by_start);
	for (k = 0; k < n; k++) {
		int whole;

		if (k && o[k].addr == o[k - 1].addr) {
			out->whole[o[k].i] = out->whole[o[k - 1].i];
			continue;
		}
		whole = mtp_branch_targets(code_of(s, ns, o[k].addr, o[k].size), o[k].addr,
					   o[k].size, &t);
		if (whole < 0)
			goto out;
		out->whole[o[k].i] = (uint8_t)whole;
	}
	if (t.n > MAX_TARGETS || !(tmp = malloc((t.n ? t.n : 1) * sizeof(*tmp))))
		goto out;
	sorted = mt_radix_sort(t.v, tmp, t.n, sizeof(*t.v));
	for (i = j = 0; i < t.n; i++)
		if (!j || sorted[i] != sorted[j - 1])
			sorted[j++] = sorted[i];
	out->ntargets = j;
	if (sorted == tmp) {
		out->targets = tmp;
		tmp = NULL;
	} else {
		out->targets = t.v;
		t.v = NULL;
	}
	ret = 0;
out:
	for (k = 0; k < 16; k++)
		free(s[k].code);
	free(o);
	free(tmp);
	free(t.v);
	if (ret)
		patch_cache_hit_release(out);
	return ret;
}

/* Writes c's entry for todo t: 0, or -1. */
static int keep(const struct patch_cache *c, const struct patch_cache_todo *t)
{
	struct patch_cache_hit hit;
	struct stat before, after;
	struct head h;
	char name[4096];
	size_t fl = flags_bytes(t->n), len;
	char *body = NULL;
	int ret = -1;

	if (fstat(t->fd, &before) || patch_cache_read_file(t->fd, t->r, t->n, &hit))
		return -1;
	/* changed while it was read: not kept (its change time is another) */
	if (fstat(t->fd, &after) || after.st_ctim.tv_sec != before.st_ctim.tv_sec ||
	    after.st_ctim.tv_nsec != before.st_ctim.tv_nsec)
		goto out;
	identity(&h, &before, t->r, t->n);
	h.code_hash = hit.hash;
	h.ntargets = hit.ntargets;
	len = fl + hit.ntargets * sizeof(uint64_t);
	if (!(body = calloc(1, len ? len : 1)))
		goto out;
	memcpy(body, hit.whole, t->n);
	memcpy(body + fl, hit.targets, hit.ntargets * sizeof(uint64_t));
	h.sum = mtp_code_hash(MTP_HASH_INIT, body, len);
	entry_name(c, t->path, name, sizeof(name));
	{
		const struct cache_dir d = { c->dir, NULL };

		ret = cache_entry_write(&d, name, &h, sizeof(h), body, len);
	}
out:
	free(body);
	patch_cache_hit_release(&hit);
	return ret;
}

unsigned patch_cache_fill(struct patch_cache *c)
{
	size_t i;

	for (i = 0; i < c->ntodo; i++) {
		if (c->dir && !keep(c, &c->todo[i]))
			c->kept++;
		else if (c->dir)
			c->failed++;
		close(c->todo[i].fd);
		free(c->todo[i].path);
		free(c->todo[i].r);
	}
	c->ntodo = 0;
	return c->kept;
}

void patch_cache_release(struct patch_cache *c)
{
	size_t i;

	for (i = 0; i < c->ntodo; i++) {
		close(c->todo[i].fd);
		free(c->todo[i].path);
		free(c->todo[i].r);
	}
	free(c->todo);
	free(c->dir);
	memset(c, 0, sizeof(*c));
}
