/*
 * mt-record's cache directory (cachedir.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cachedir.h"
#include "branches.h"
#include "banned.h"

uint64_t cache_hash(const void *p, size_t n)
{
	return mtp_code_hash(MTP_HASH_INIT, p, n);
}

static int own_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *out = arg;
	int i;

	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		return 1; /* the executable comes first */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end;

		if (ph->p_type != PT_NOTE)
			continue;
		for (end = p + ph->p_memsz; p + sizeof(ElfW(Nhdr)) <= end;) {
			const ElfW(Nhdr) *n = (const void *)p;
			size_t name = (n->n_namesz + 3) & ~3u, desc = (n->n_descsz + 3) & ~3u;

			if ((size_t)(end - p) < sizeof(*n) + name + desc)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4)) {
				*out = mtp_code_hash(MTP_HASH_INIT, p + sizeof(*n) + name,
						     n->n_descsz);
				return 1;
			}
			p += sizeof(*n) + name + desc;
		}
	}
	return 1;
}

uint64_t cache_build(void)
{
	static uint64_t id;
	static int done;

	if (!done)
		dl_iterate_phdr(own_note, &id);
	done = 1;
	return id;
}

/* Whether dir is a directory of ours no one else may write; made (0700)
 * when missing and make. */
static int dir_ok(const char *dir, int make)
{
	struct stat st;

	if (lstat(dir, &st) && (errno != ENOENT || !make || mkdir(dir, 0700) || lstat(dir, &st)))
		return 0;
	return S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

void cache_dir_init(struct cache_dir *c)
{
	const char *env = getenv("MT_CACHE"), *base;
	char *dir = NULL;

	c->dir = NULL;
	c->off_why = NULL;
	if (env && !strcmp(env, "off")) {
		c->off_why = "MT_CACHE=off";
		return;
	}
	if (!cache_build()) {
		c->off_why = "mt-record was built without a build id";
		return;
	}
	if (env && *env) {
		if (!(dir = strdup(env))) {
			c->off_why = "no memory";
			return;
		}
	} else if (!geteuid()) {
		/* root's: never under a HOME that sudo kept */
		if (!(dir = strdup("/var/cache/mt"))) {
			c->off_why = "no memory";
			return;
		}
	} else {
		size_t len;

		base = getenv("XDG_CACHE_HOME");
		if (base && *base == '/') {
			if (!dir_ok(base, 1)) {
				c->off_why = "$XDG_CACHE_HOME is not a directory of ours that "
					     "no one else may write";
				return;
			}
			len = strlen(base) + sizeof("/mt");
			if ((dir = malloc(len)))
				snprintf(dir, len, "%s/mt", base);
		} else if ((base = getenv("HOME")) && *base == '/') {
			len = strlen(base) + sizeof("/.cache/mt");
			if ((dir = malloc(len))) {
				snprintf(dir, len, "%s/.cache", base);
				if (!dir_ok(dir, 1)) {
					free(dir);
					c->off_why = "~/.cache is not a directory of ours that no "
						     "one else may write";
					return;
				}
				snprintf(dir, len, "%s/.cache/mt", base);
			}
		} else {
			c->off_why = "no HOME";
			return;
		}
		if (!dir) {
			c->off_why = "no memory";
			return;
		}
	}
	if (!dir_ok(dir, 1)) {
		free(dir);
		c->off_why = "its directory is not one of ours that no one else may write";
		return;
	}
	c->dir = dir;
}

void cache_id_of(struct cache_id *id, const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_s = (int64_t)st->st_mtim.tv_sec;
	id->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
	id->ctime_s = (int64_t)st->st_ctim.tv_sec;
	id->ctime_ns = (int64_t)st->st_ctim.tv_nsec;
}

int cache_id_same(const struct cache_id *a, const struct cache_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns &&
	       a->ctime_s == b->ctime_s && a->ctime_ns == b->ctime_ns;
}

void cache_entry_name(const struct cache_dir *d, const char *path, const char *ext, char *out,
		      size_t cap)
{
	const char *b = strrchr(path, '/');
	char base[41];
	size_t i;

	b = b ? b + 1 : path;
	for (i = 0; b[i] && i < sizeof(base) - 1; i++)
		base[i] = ((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z') ||
			   (b[i] >= '0' && b[i] <= '9') || b[i] == '.' || b[i] == '_' ||
			   b[i] == '+' || b[i] == '-') ? b[i] : '_';
	base[i] = '\0';
	snprintf(out, cap, "%s/%s-%016llx.%s", d->dir, base,
		 (unsigned long long)cache_hash(path, strlen(path)), ext);
}

int cache_entry_open(const char *name, struct stat *st)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}

int cache_read_at(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n) {
		ssize_t k = pread(fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* Writes all n bytes of p to fd: 0, or -1. */
static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int cache_entry_write(const struct cache_dir *d, const char *name, const void *head, size_t hn,
		      const void *body, size_t bn)
{
	char tmp[4096];
	int fd, ok;

	if (!d->dir || (size_t)snprintf(tmp, sizeof(tmp), "%s/.new-XXXXXX", d->dir) >= sizeof(tmp) ||
	    (fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return -1;
	ok = !write_all(fd, head, hn) && !write_all(fd, body, bn);
	if (close(fd) || !ok || rename(tmp, name)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}
