/*
 * The files of mt-record's target, opened as it sees them and with no
 * more than its rights; their symbols read. See target-open.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "err.h"
#include "fscreds.h"
#include "procsyms.h"
#include "regfile.h"
#include "symcache.h"
#include "target.h"
#include "xalloc.h"
#include "banned.h"

struct target_view {
	int state;      /* 0 not taken yet, 1 taken, -1 it could not be */
	int err, err_errno; /* state -1: why (an MT_E* code, errno) */
	const char *what;   /* state -1: what could not be read */
	int root;       /* its root: MT_ROOT_OWN, or /proc/PID/root */
	int as_target;  /* its credentials taken around the opens */
	struct mt_fscreds creds, own;
};

void target_view_init(struct target *t)
{
	t->view = xcalloc(1, sizeof(*t->view));
	t->view->root = MT_ROOT_OWN;
}

void target_view_release(struct target *t)
{
	if (!t->view)
		return;
	mt_proc_root_close(t->view->root);
	mt_fscreds_release(&t->view->creds);
	mt_fscreds_release(&t->view->own);
	free(t->view);
	t->view = NULL;
}

/* ---- credentials ---- */

static void as_self(struct target_view *v)
{
	if (v->as_target && mt_fscreds_set(&v->own))
		die_errno(MT_EXIT_SYSTEM, "taking back mt-record's own credentials");
}

static void as_target(struct target_view *v, pid_t pid)
{
	if (!v->as_target || !mt_fscreds_set(&v->creds))
		return;
	as_self(v);
	die_errno(MT_EXIT_SYSTEM, "taking the credentials of process %d", (int)pid);
}

/* Whether this thread may take c (and back its own): tried once. The
 * result is mt-record's privilege, which does not change meanwhile. */
static int may_take(const struct mt_fscreds *c, const struct mt_fscreds *own)
{
	int ok = mt_fscreds_set(c) == 0, e = errno;

	if (mt_fscreds_set(own))
		die_errno(MT_EXIT_SYSTEM, "taking back mt-record's own credentials");
	errno = e;
	return ok;
}

/* ---- the view ---- */

static int take(pid_t pid, struct target_view *v)
{
	int err = mt_proc_root(pid, &v->root);

	v->what = "root";
	if (!err) {
		v->what = "status";
		err = mt_fscreds_of(&v->creds, pid);
	}
	if (!err)
		err = mt_fscreds_self(&v->own);
	if (err == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (err)
		return err;
	/* the same user: nothing to take; not root: open as itself */
	v->as_target = !mt_fscreds_equal(&v->creds, &v->own) && may_take(&v->creds, &v->own);
	return 0;
}

/*
 * tgt's view, taken now if not yet; NULL when paths are mt-record's own:
 * no target yet, a command held before its execve (mt-record still), a
 * command whose view cannot be taken (it ended). A -p target's view that
 * cannot be taken opens nothing (state -1).
 */
static struct target_view *view_of(const struct target *tgt)
{
	struct target_view *v = tgt->view;

	if (!v || !tgt->pid || tgt->gate_w >= 0)
		return NULL;
	if (!v->state) {
		int err = take(tgt->pid, v);

		v->state = err ? -1 : 1;
		v->err = err;
		v->err_errno = errno;
	}
	return v->state < 0 && tgt->cmd ? NULL : v;
}

void target_view_take(struct target *t)
{
	struct target_view *v = view_of(t);

	if (v && v->state < 0) {
		errno = v->err_errno;
		if (v->err == MT_EIO || v->err == MT_ENOENT)
			die_errno(MT_EXIT_SYSTEM, "process %d: reading its %s", (int)t->pid, v->what);
		die_mt(v->err, "process %d: reading its %s", (int)t->pid, v->what);
	}
}

/* ---- opening ---- */

#define DELETED " (deleted)"

int is_deleted(const char *name)
{
	size_t n = strlen(name), k = strlen(DELETED);

	return n > k && !strcmp(name + n - k, DELETED);
}

/*
 * The kernel's link to the file tgt maps under name: /proc/PID/exe for
 * its executable (while the link names it: a command held before its
 * execve is mt-record), else /proc/PID/map_files/START-END of its first
 * mapping; NULL when it maps no file of that name. Malloced.
 */
static char *link_of(const struct target *tgt, const char *name)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	char link[MT_PROCSYMS_LINK_SIZE], buf[PATH_MAX];
	const struct mt_procmap *m = NULL;
	char *r = NULL;
	ssize_t n;
	int k;

	if (tgt->exe && !strcmp(name, tgt->exe)) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)tgt->pid);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n > 0 && (size_t)n == strlen(name) && !memcmp(buf, name, (size_t)n))
			return xstrdup(link);
	}
	k = mt_procsyms_read(&ps, tgt->pid);
	if (k == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (k >= 0 || k == MT_ETRUNCATED)
		m = mt_procsyms_map_of(&ps, name);
	if (m) {
		mt_procsyms_link(&ps, m, link);
		r = xstrdup(link);
	}
	mt_procsyms_release(&ps);
	return r;
}

char *inode_path(const struct target *tgt, const char *name)
{
	struct target_view *v = view_of(tgt);
	char *link;

	if (v && v->state > 0 && (is_deleted(name) || v->root != MT_ROOT_OWN) &&
	    (link = link_of(tgt, name)))
		return link;
	return xstrdup(name);
}

/* With v's credentials taken: the file through link (NULL: none), else
 * (not followed: no CAP_SYS_ADMIN, unmapped since) by name in v's root,
 * unless its name says it was deleted (it names nothing then). */
static int open_in(const struct target_view *v, const char *link, const char *name)
{
	int fd = MT_ENOENT;

	errno = ENOENT;
	if (link)
		fd = mt_open_regular(MT_ROOT_OWN, link, NULL);
	if (fd == MT_ENOENT && !is_deleted(name))
		fd = mt_open_regular(v->root, name, NULL);
	return fd;
}

/* A -p target whose view could not be taken: nothing is opened. */
static int no_view(const struct target_view *v)
{
	errno = v->err_errno;
	return MT_ENOENT;
}

int target_open(const struct target *tgt, const char *name)
{
	struct target_view *v = view_of(tgt);
	char *link;
	int fd, e;

	if (!v)
		return mt_open_regular(MT_ROOT_OWN, name, NULL);
	if (v->state < 0)
		return no_view(v);
	link = link_of(tgt, name);
	as_target(v, tgt->pid);
	fd = open_in(v, link, name);
	e = errno;
	as_self(v);
	free(link);
	errno = e;
	return fd;
}

/* ---- symbols ---- */

/*
 * The table of the file open at fd (named path, its debug file searched
 * in root) into f, through the cache of symbol tables (symcache.h): the
 * cache's files with mt-record's own credentials, the file's debug file
 * searched and read with the target's (v's, when there is a view).
 * Called with mt-record's own.
 */
static int read_cached(const struct target *tgt, struct target_view *v, struct mt_symfile *f,
		       int fd, int root, const char *path)
{
	struct symcache_debug want, now;
	struct timespec since;
	int n, e, same;

	if (symcache_get(fd, path, f, &want)) {
		if (v)
			as_target(v, tgt->pid);
		symcache_debug_now(&f->t, root, path, &now);
		if (v)
			as_self(v);
		same = symcache_debug_same(&want, &now);
		symcache_taken(same);
		if (same)
			return (int)f->t.n;
		mt_symfile_release(f);
	}
	clock_gettime(CLOCK_REALTIME, &since);
	if (v)
		as_target(v, tgt->pid);
	n = mt_symfile_read_at(f, fd, root, path, NULL, 0, 0);
	if (n >= 0)
		symcache_debug_now(&f->t, root, path, &now);
	e = errno;
	if (v)
		as_self(v);
	if (n >= 0)
		symcache_put(fd, path, f, &now, &since);
	errno = e;
	return n;
}

/* The symbols of path, opened by source when not NULL (the uprobe
 * engine's: not through the cache). */
static int symbols(const struct target *tgt, struct mt_symfile *f, const char *path,
		   const char *source)
{
	struct target_view *v = view_of(tgt);
	char *link = NULL;
	int fd, n, e;

	if (v && v->state < 0)
		return no_view(v);
	if (!v) {
		fd = mt_open_regular(MT_ROOT_OWN, source ? source : path, NULL);
		if (fd < 0)
			return fd;
		n = source ? mt_symfile_read(f, fd, path, NULL, 0, 0)
			   : read_cached(tgt, NULL, f, fd, MT_ROOT_OWN, path);
		e = errno;
		close(fd);
		errno = e;
		return n;
	}
	if (!source)
		link = link_of(tgt, path);
	as_target(v, tgt->pid);
	fd = source ? mt_open_regular(MT_ROOT_OWN, source, NULL) : open_in(v, link, path);
	if (source || fd < 0) {
		n = fd < 0 ? fd : mt_symfile_read_at(f, fd, v->root, path, NULL, 0, 0);
		e = errno;
		if (fd >= 0)
			close(fd);
		as_self(v);
		free(link);
		errno = e;
		return n;
	}
	as_self(v);
	n = read_cached(tgt, v, f, fd, v->root, path);
	e = errno;
	close(fd);
	free(link);
	errno = e;
	return n;
}

/* The files read so far (of one target, by the path it names them):
 * the selection, the patch backend's scan and its triggers each read
 * the same files, and read_symbols() lends the one table of each. Each
 * entry is allocated apart, so that a table lent stays where it is as
 * the list grows. */
struct symcache {
	const struct target *tgt;
	char *path;
	struct mt_symfile f;
};
static struct symcache **symcache;
static size_t nsymcache, symcache_cap;

/* symbols() of path, through the cache: its entry, or NULL with *err
 * (a file that cannot be read is not kept: it is tried again). */
static const struct mt_symfile *symbols_cached(const struct target *tgt, const char *path,
					       int *err)
{
	struct symcache *c;
	size_t i;
	int n;

	for (i = 0; i < nsymcache; i++)
		if (symcache[i]->tgt == tgt && !strcmp(symcache[i]->path, path))
			return &symcache[i]->f;
	c = xcalloc(1, sizeof(*c));
	c->f = (struct mt_symfile)MT_SYMFILE_INIT;
	if ((n = symbols(tgt, &c->f, path, NULL)) < 0) {
		mt_symfile_release(&c->f);
		free(c);
		*err = n;
		return NULL;
	}
	c->path = xstrdup(path);
	c->tgt = tgt;
	grow_or_die(&symcache, &symcache_cap, nsymcache + 1, sizeof(*symcache));
	symcache[nsymcache++] = c;
	return &c->f;
}

void target_symbols_forget(const struct target *tgt)
{
	size_t i, k = 0;

	for (i = 0; i < nsymcache; i++) {
		if (symcache[i]->tgt != tgt) {
			symcache[k++] = symcache[i];
			continue;
		}
		free(symcache[i]->path);
		mt_symfile_release(&symcache[i]->f);
		free(symcache[i]);
	}
	nsymcache = k;
	if (!nsymcache) {
		free(symcache);
		symcache = NULL;
		symcache_cap = 0;
	}
}

int read_symbols(const struct target *tgt, const struct mt_symfile **f, const char *path,
		 int must)
{
	static const struct mt_symfile none = MT_SYMFILE_INIT;
	int n = 0;

	*f = symbols_cached(tgt, path, &n);
	if (*f)
		return 0;
	*f = &none; /* an empty table to read */
	if (!must)
		return n;
	if (n == MT_ENOENT && is_deleted(path)) {
		int e = errno;
		char *via = inode_path(tgt, path);

		errno = e;
		die_errno(MT_EXIT_SYSTEM, "%s: through %s", path, via);
	}
	if (n == MT_ENOENT)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	if (n == MT_EMAGIC)
		die(MT_EXIT_DATA, "%s: not an ELF file", path);
	die_mt(n, "%s", path);
}

int target_symbols_via(void *arg, struct mt_symfile *f, const char *path,
		       const char *source)
{
	int n = symbols(arg, f, path, source);

	return n < 0 ? n : 0;
}

int target_find_debug(const struct target *tgt, const struct mt_symtab *t,
		      const char *path)
{
	struct target_view *v = view_of(tgt);
	int fd;

	if (!v)
		return mt_symtab_find_debug(t, path, NULL, 0, NULL);
	if (v->state < 0)
		return no_view(v);
	as_target(v, tgt->pid);
	fd = mt_symtab_find_debug_at(t, v->root, path, NULL, 0, NULL);
	as_self(v);
	return fd;
}

int target_procsyms_load(const struct target *tgt, struct mt_procsyms *ps, size_t i)
{
	struct target_view *v = view_of(tgt);
	char link[MT_PROCSYMS_LINK_SIZE];
	struct mt_procfile *f;
	int fd, n;

	if (!v || i >= ps->nfiles || ps->files[i].loaded || ps->files[i].vdso ||
	    ps->files[i].path[0] != '/')
		return mt_procsyms_load(ps, i, NULL, 0, 0);
	if (v->state < 0)
		return no_view(v);
	f = &ps->files[i];
	mt_procsyms_link(ps, &ps->maps[f->map], link);
	as_target(v, tgt->pid);
	fd = open_in(v, link, f->path);
	n = fd < 0 ? fd : mt_procsyms_load_fd(ps, i, fd, v->root, NULL, 0, 0);
	if (fd >= 0)
		close(fd);
	as_self(v);
	if (fd < 0)
		f->loaded = fd; /* tried, as mt_procsyms_load() keeps it */
	return n;
}

size_t target_symbols(const struct target *tgt, const char *base, const char *const *names,
		      size_t n, uint64_t *out)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	size_t k, i, j, set = 0;

	if (mt_procsyms_read(&ps, tgt->pid) < 0) {
		mt_procsyms_release(&ps);
		return 0;
	}
	for (k = 0; k < ps.nfiles; k++) {
		const char *path = ps.files[k].path, *b = strrchr(path, '/');
		const struct mt_symtab *t = &ps.files[k].sym.t;

		if (path[0] != '/')
			continue;
		if (strchr(base, '/') ? strcmp(path, base) : strncmp(b + 1, base, strlen(base)))
			continue;
		if (target_procsyms_load(tgt, &ps, k) < 0)
			continue;
		for (i = 0; i < t->n; i++) {
			if (t->v[i].bind == MT_SYM_PLT || !t->v[i].addr)
				continue;
			for (j = 0; j < n; j++) {
				uint64_t rt;

				if (out[j] || strcmp(t->v[i].name, names[j]))
					continue;
				if (!mt_procsyms_runtime(&ps, k, t, t->v[i].addr, &rt) && rt) {
					out[j] = rt;
					set++;
				}
			}
		}
	}
	mt_procsyms_release(&ps);
	return set;
}

char **mapped_libraries(const struct target *tgt)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	char **v = NULL;
	size_t cap = 0, n = 0, k;
	int r = mt_procsyms_read(&ps, tgt->pid);

	if (r == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	grow_or_die(&v, &cap, 1, sizeof(*v));
	v[0] = NULL;
	for (k = 0; k < ps.nfiles; k++) {
		const char *path = ps.files[k].path;

		if (path[0] != '/' || !strcmp(path, tgt->exe))
			continue;
		grow_or_die(&v, &cap, n + 2, sizeof(*v));
		v[n++] = xstrdup(path);
		v[n] = NULL;
	}
	mt_procsyms_release(&ps);
	return v;
}

void free_paths(char **v)
{
	size_t k;

	for (k = 0; v[k]; k++)
		free(v[k]);
	free(v);
}
