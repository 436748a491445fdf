#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "proc.h"
#include "procsyms.h"
#include "regfile.h"
#include "banned.h"

void mt_symfile_init(struct mt_symfile *f)
{
	memset(f, 0, sizeof(*f));
	f->dwfd = -1;
}

void mt_symfile_release(struct mt_symfile *f)
{
	mt_symtab_release(&f->t);
	free(f->debug);
	if (f->dwfd >= 0)
		close(f->dwfd);
	mt_symfile_init(f);
}

/* The separate debug file: symbols a stripped file lacks, and DWARF. */
static int merge_debug(struct mt_symfile *f, int root, const char *path,
		       const char *const *dirs, size_t ndirs, unsigned flags)
{
	int dwarf = flags & MT_SYMFILE_DWARF, dfd, n;

	if (f->t.has_symtab && (f->t.has_debug_info || !dwarf))
		return 0;
	dfd = mt_symtab_find_debug_at(&f->t, root, path, dirs, ndirs, &f->debug);
	if (dfd == MT_ENOMEM)
		return dfd;
	if (dfd < 0)
		return 0;
	n = mt_symtab_merge(&f->t, dfd);
	if (n == MT_ENOMEM) {
		close(dfd);
		return n;
	}
	if (n < 0) {
		f->debug_err = n;
		close(dfd);
	} else if (dwarf) {
		f->dwfd = dfd; /* kept open for libdw */
	} else {
		close(dfd);
	}
	return 0;
}

/* The functions that only .eh_frame shows, named after path's base name
 * (without the " (deleted)" the kernel adds to a deleted file's). */
static int name_fdes(struct mt_symtab *t, const char *path)
{
	static const char deleted[] = " (deleted)";
	const char *base = strrchr(path, '/');
	size_t len, k = sizeof(deleted) - 1;
	char *file;
	int n;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > k && !strcmp(base + len - k, deleted))
		len -= k;
	file = strndup(base, len);
	if (!file)
		return MT_ENOMEM;
	n = mt_symtab_add_fdes(t, file);
	free(file);
	return n < 0 ? n : 0;
}

int mt_symfile_read(struct mt_symfile *f, int fd, const char *path,
		    const char *const *dirs, size_t ndirs, unsigned flags)
{
	return mt_symfile_read_at(f, fd, MT_ROOT_OWN, path, dirs, ndirs, flags);
}

int mt_symfile_read_at(struct mt_symfile *f, int fd, int root, const char *path,
		       const char *const *dirs, size_t ndirs, unsigned flags)
{
	int n = mt_symtab_read(&f->t, fd), err;

	if (n < 0)
		return n;
	err = merge_debug(f, root, path, dirs, ndirs, flags);
	if (!err)
		err = name_fdes(&f->t, path);
	if (err) {
		mt_symtab_release(&f->t);
		return err;
	}
	if ((flags & MT_SYMFILE_DWARF) && f->dwfd < 0 && f->t.has_debug_info)
		f->dwfd = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* -1: no lines */
	return (int)f->t.n;
}

void mt_procsyms_init(struct mt_procsyms *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void mt_procsyms_release(struct mt_procsyms *ps)
{
	size_t i;

	for (i = 0; i < ps->nmaps; i++)
		free(ps->maps[i].path);
	for (i = 0; i < ps->nfiles; i++) {
		free(ps->files[i].path);
		mt_symfile_release(&ps->files[i].sym);
	}
	free(ps->maps);
	free(ps->files);
	mt_procsyms_init(ps);
}

int mt_procsyms_find(const struct mt_procsyms *ps, const char *path)
{
	size_t i;

	for (i = 0; i < ps->nfiles; i++)
		if (!strcmp(ps->files[i].path, path))
			return (int)i;
	return MT_ENOENT;
}

const struct mt_procmap *mt_procsyms_map_of(const struct mt_procsyms *ps,
					    const char *path)
{
	size_t i;

	for (i = 0; i < ps->nmaps; i++)
		if (!strcmp(ps->maps[i].path, path))
			return &ps->maps[i];
	return NULL;
}

void mt_procsyms_link(const struct mt_procsyms *ps, const struct mt_procmap *m,
		      char *buf)
{
	snprintf(buf, MT_PROCSYMS_LINK_SIZE, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)ps->pid, m->start, m->end);
}

/* Add the mapping of line m; a new file for a new path mapped executable. */
static int add_map(struct mt_procsyms *ps, const struct mt_map *m)
{
	struct mt_procmap *pm;
	struct mt_procfile *f;
	int k;

	if (mt_grow(&ps->maps, &ps->capmaps, ps->nmaps + 1, sizeof(*ps->maps)))
		return MT_ENOMEM;
	pm = &ps->maps[ps->nmaps];
	pm->start = m->start;
	pm->end = m->end;
	pm->pgoff = m->pgoff;
	pm->exec = m->exec;
	pm->file = MT_PROCSYMS_NOFILE;
	if (!(pm->path = strndup(m->path, m->path_len)))
		return MT_ENOMEM;
	ps->nmaps++;
	if (!m->exec || !m->path_len)
		return 0;
	k = mt_procsyms_find(ps, pm->path);
	if (k >= 0) {
		pm->file = (size_t)k;
		return 0;
	}
	if (mt_grow(&ps->files, &ps->capfiles, ps->nfiles + 1, sizeof(*ps->files)))
		return MT_ENOMEM;
	f = &ps->files[ps->nfiles];
	memset(f, 0, sizeof(*f));
	mt_symfile_init(&f->sym);
	if (!(f->path = strdup(pm->path)))
		return MT_ENOMEM;
	f->map = ps->nmaps - 1;
	f->start = m->start;
	f->end = f->code_end = m->end;
	f->pgoff = m->pgoff;
	f->vdso = !strcmp(f->path, "[vdso]");
	pm->file = ps->nfiles++;
	return 0;
}

int mt_procsyms_read(struct mt_procsyms *ps, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int err = 0, e;
	FILE *f;

	ps->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT || errno == ESRCH ? MT_ENOENT : MT_EIO;
	while (!err && getline(&line, &cap, f) >= 0) {
		struct mt_map m;

		if (mt_maps_parse(line, &m) == 0)
			err = add_map(ps, &m);
	}
	e = errno;
	if (!err && ferror(f))
		err = MT_ETRUNCATED; /* what was read is kept */
	free(line);
	fclose(f);
	if (err == MT_ENOMEM)
		mt_procsyms_release(ps);
	errno = e;
	return err ? err : (int)ps->nfiles;
}

/* [vdso]: an ELF image in the process's memory. */
static int load_vdso(struct mt_procsyms *ps, struct mt_procfile *f)
{
	char mem[64], *img;
	ssize_t got;
	int fd, n;

	img = malloc(f->end - f->start);
	if (!img)
		return MT_ENOMEM;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)ps->pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	got = fd < 0 ? -1 : pread(fd, img, f->end - f->start, (off_t)f->start);
	if (fd >= 0)
		close(fd);
	n = got == (ssize_t)(f->end - f->start) ?
		mt_symtab_read_mem(&f->sym.t, img, (size_t)got) : MT_EIO;
	free(img);
	if (n >= 0)
		f->placed = mt_symtab_bias(&f->sym.t, f->start, 0, &f->bias) == 0;
	return n;
}

/* The bias of a regular file from its first executable mapping, and the
 * extent of its code. */
static void place(struct mt_procfile *f)
{
	const struct mt_symtab *t = &f->sym.t;
	size_t i;

	if (!t->nseg || mt_symtab_bias(t, f->start, f->pgoff, &f->bias) != 0) {
		f->bias = 0;
		return;
	}
	f->placed = 1;
	for (i = 0; i < t->nseg; i++)
		if (t->seg[i].exec && t->seg[i].vaddr + t->seg[i].memsz + f->bias > f->code_end)
			f->code_end = t->seg[i].vaddr + t->seg[i].memsz + f->bias;
}

/* A mapped file, as the process sees it: through the link of its first
 * executable mapping, else by its path in the process's root. */
static int open_file(const struct mt_procsyms *ps, const struct mt_procfile *f, int root)
{
	char link[MT_PROCSYMS_LINK_SIZE];
	int fd;

	mt_procsyms_link(ps, &ps->maps[f->map], link);
	fd = mt_open_regular(MT_ROOT_OWN, link, NULL);
	if (fd == MT_ENOENT) /* EPERM without CAP_SYS_ADMIN; unmapped since */
		fd = mt_open_regular(root, f->path, NULL);
	return fd;
}

int mt_procsyms_load(struct mt_procsyms *ps, size_t i,
		     const char *const *dirs, size_t ndirs, unsigned flags)
{
	struct mt_procfile *f;
	int fd, n, root;

	if (i >= ps->nfiles)
		return MT_EINVAL;
	f = &ps->files[i];
	if (f->loaded)
		return f->loaded > 0 ? (int)f->sym.t.n : f->loaded;
	if (f->vdso) {
		n = load_vdso(ps, f);
		f->loaded = n >= 0 ? 1 : n;
		return n;
	}
	if (f->path[0] != '/')
		return f->loaded = MT_EINVAL;
	if ((n = mt_proc_root(ps->pid, &root)) < 0)
		return f->loaded = MT_ENOENT;
	fd = open_file(ps, f, root);
	if (fd < 0) {
		mt_proc_root_close(root);
		return f->loaded = fd;
	}
	n = mt_procsyms_load_fd(ps, i, fd, root, dirs, ndirs, flags);
	close(fd);
	mt_proc_root_close(root);
	return n;
}

int mt_procsyms_load_fd(struct mt_procsyms *ps, size_t i, int fd, int root,
			const char *const *dirs, size_t ndirs, unsigned flags)
{
	struct mt_procfile *f;
	int n;

	if (i >= ps->nfiles || ps->files[i].vdso || ps->files[i].path[0] != '/')
		return MT_EINVAL;
	f = &ps->files[i];
	if (f->loaded)
		return f->loaded > 0 ? (int)f->sym.t.n : f->loaded;
	n = mt_symfile_read_at(&f->sym, fd, root, f->path, dirs, ndirs, flags);
	if (n >= 0)
		place(f);
	f->loaded = n >= 0 ? 1 : n;
	return n;
}

int mt_procsyms_runtime(const struct mt_procsyms *ps, size_t i,
			const struct mt_symtab *t, uint64_t addr, uint64_t *rt)
{
	size_t k;

	if (i >= ps->nfiles)
		return MT_EINVAL;
	for (k = 0; k < ps->nmaps; k++) {
		const struct mt_procmap *m = &ps->maps[k];
		uint64_t bias;

		if (m->file != i || mt_symtab_bias(t, m->start, m->pgoff, &bias))
			continue;
		if (addr + bias >= m->start && addr + bias < m->end) {
			*rt = addr + bias;
			return 0;
		}
	}
	return MT_ENOENT;
}
