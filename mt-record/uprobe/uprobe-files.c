/*
 * The uprobe engine's files and probes (uprobe.h, uprobe-internal.h): the
 * ELF files probed or mapped, read once for their symbols and segments,
 * and mt_uprobe_add(), which turns a function's address into the file
 * offset the kernel wants and names its events as perf probe does.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "demangle.h"
#include "err.h"
#include "procsyms.h"
#include "regfile.h"
#include "unhookable.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

#define SYMCACHE 1024
#define DELETED " (deleted)"

struct symcache {
	uint64_t vaddr;
	const struct mt_sym *sym;
	int valid;
};

int uprobe_file_index(struct mt_uprobe *u, const char *path, size_t len,
		      uint32_t *idx)
{
	size_t i;
	char *p;

	for (i = 0; i < u->nfiles; i++)
		if (strlen(u->files[i].path) == len &&
		    !memcmp(u->files[i].path, path, len)) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (mt_grow(&u->files, &u->capfiles, u->nfiles + 1, sizeof(*u->files)))
		return MT_ENOMEM;
	p = malloc(len + 1);
	if (!p)
		return MT_ENOMEM;
	memcpy(p, path, len);
	p[len] = '\0';
	memset(&u->files[u->nfiles], 0, sizeof(u->files[0]));
	mt_symfile_init(&u->files[u->nfiles].sym);
	u->files[u->nfiles].path = p;
	*idx = (uint32_t)u->nfiles++;
	return 0;
}

/* What opens a file (and what the kernel is given to probe it). */
const char *uprobe_file_source(const struct mt_uprobe_file *f)
{
	return f->source ? f->source : f->path;
}

/* Whether the kernel's name of a mapped file says it was deleted. */
int uprobe_is_deleted(const char *name, size_t len)
{
	size_t k = strlen(DELETED);

	return len > k && !memcmp(name + len - k, DELETED, k);
}

/* The engine's own reading of a file's symbols (opts.symbols NULL). */
static int read_file(struct mt_uprobe_file *f)
{
	int fd = mt_open_regular(MT_ROOT_OWN, uprobe_file_source(f), NULL), err;

	if (fd < 0)
		return fd;
	err = mt_symfile_read(&f->sym, fd, f->path, NULL, 0, 0);
	close(fd);
	return err;
}

/* Read a file's symbols and segments once; 0, or the error (also kept as
 * loaded = -1). */
int uprobe_file_load(struct mt_uprobe *u, uint32_t idx)
{
	struct mt_uprobe_file *f = &u->files[idx];
	size_t i;
	int err;

	if (f->loaded)
		return f->loaded > 0 ? 0 : MT_EIO;
	f->loaded = -1;
	if (f->path[0] != '/')
		return MT_EIO; /* [vdso], //anon, ... */
	/* with a separate debug file's symbols when it has no .symtab
	 * (/usr/lib/debug/.build-id, .gnu_debuglink): perf's choice too */
	err = u->opts.symbols ?
		u->opts.symbols(u->opts.symbols_arg, &f->sym, f->path, f->source) :
		read_file(f);
	if (err < 0) {
		int e = errno;

		uprobe_what(u, "%s %s", err == MT_ENOENT ? "opening" : "reading the ELF file",
			    f->path);
		errno = e;
		return err == MT_ENOENT ? MT_EIO : err;
	}
	f->go = f->sym.t.is_go;
	for (i = 0; !f->go && i < f->sym.t.n; i++)
		f->go = !strcmp(f->sym.t.v[i].name, "runtime.main");
	f->loaded = 1;
	return 0;
}

const struct mt_sym *uprobe_file_lookup(struct mt_uprobe_file *f,
					uint64_t vaddr)
{
	struct symcache *c;

	if (!f->cache)
		f->cache = calloc(SYMCACHE, sizeof(*f->cache));
	if (!f->cache)
		return mt_symtab_lookup(&f->sym.t, vaddr);
	c = &f->cache[(vaddr ^ (vaddr >> 10)) % SYMCACHE];
	if (!c->valid || c->vaddr != vaddr) {
		c->vaddr = vaddr;
		c->sym = mt_symtab_lookup(&f->sym.t, vaddr);
		c->valid = 1;
	}
	return c->sym;
}

int uprobe_file_name(struct mt_uprobe_file *f, const struct mt_sym *s,
		     const char **name)
{
	size_t i = (size_t)(s - f->sym.t.v);
	char *dm;

	if (!f->shown && !(f->shown = calloc(f->sym.t.n, sizeof(*f->shown))))
		return MT_ENOMEM;
	if (!f->shown[i]) {
		dm = mt_demangle(s->name, MT_DEMANGLE_PERF);
		f->shown[i] = dm ? dm : s->name;
	}
	*name = f->shown[i];
	return 0;
}

void uprobe_file_release(struct mt_uprobe_file *f)
{
	size_t i;

	for (i = 0; f->shown && i < f->sym.t.n; i++)
		if (f->shown[i] != f->sym.t.v[i].name)
			free(f->shown[i]);
	free(f->shown);
	free(f->path);
	free(f->source);
	mt_symfile_release(&f->sym);
	free(f->cache);
}

/* ---- probes ---- */

static int good_char(int c)
{
	return isalnum(c) || c == '_';
}

/* s up to the first of cut (unless it is the first character), other
 * characters than letters, digits and '_' made '_'. */
static int name_part(struct mt_buf *b, const char *s, const char *cut)
{
	size_t n = strcspn(s + (*s ? 1 : 0), cut) + (*s ? 1 : 0);
	size_t i;
	int err = 0;

	if (!n)
		return mt_buf_add(b, "_", 1);
	if (isdigit((unsigned char)s[0]))
		err = mt_buf_add(b, "_", 1);
	for (i = 0; !err && i < n; i++) {
		char c = good_char((unsigned char)s[i]) ? s[i] : '_';

		err = mt_buf_add(b, &c, 1);
	}
	return err;
}

static int name_taken(const struct mt_uprobe *u, const char *name)
{
	size_t i;

	for (i = 0; i < u->nprobes; i++)
		if (!strcmp(u->probes[i].event, name) ||
		    (u->probes[i].ret_event && !strcmp(u->probes[i].ret_event, name)))
			return 1;
	return 0;
}

/* perf probe's naming: probe_BASE:NAME, NAME_1, ... and NAME__return; a
 * function only an FDE shows (FILE+0xADDR: mt_symtab_add_fdes()) is
 * NAME _0xADDR. */
static int name_probe(struct mt_uprobe *u, struct mt_uprobe_probe *p)
{
	const char *path = u->files[p->file].path;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct mt_buf b = MT_BUF_INIT;
	size_t stem, blen = strlen(base);
	char fname[256];
	int err, k;

	/* a deleted file's probes are named after the file */
	if (uprobe_is_deleted(base, blen))
		blen -= strlen(DELETED);
	snprintf(fname, sizeof(fname), "%.*s", (int)blen, base);
	err = mt_buf_add(&b, "probe_", 6);
	if (!err)
		err = name_part(&b, fname, ".-");
	if (!err)
		err = mt_buf_add(&b, ":", 1);
	if (!err)
		err = name_part(&b, strstr(p->sym, "+0x") ? strstr(p->sym, "+0x") + 1 : p->sym,
				".@");
	stem = b.len;
	for (k = 1; !err; k++) {
		char ret[600];

		snprintf(ret, sizeof(ret), "%s__return", b.p);
		if (!name_taken(u, b.p) &&
		    (!(p->flags & MT_UPROBE_RETURN) || !name_taken(u, ret)))
			break;
		b.len = stem;
		err = uprobe_appendf(&b, "_%d", k);
	}
	if (!err && (p->flags & MT_UPROBE_RETURN)) {
		struct mt_buf r = MT_BUF_INIT;

		err = uprobe_appendf(&r, "%s__return", b.p);
		p->ret_event = mt_buf_detach(&r, NULL);
	}
	if (err) {
		mt_buf_release(&b);
		return err;
	}
	p->event = mt_buf_detach(&b, NULL);
	return 0;
}

/*
 * The name of the file that a /proc/PID/exe or /proc/PID/map_files/ link
 * leads to, as the mappings name it ("/usr/bin/app (deleted)" for a
 * deleted one), malloced: realpath would resolve the link's text in
 * mt-record's namespace, not the process's (and fails on a deleted
 * file). NULL with errno ENOENT when path is no such link.
 */
static char *proc_link_name(const char *path)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (strncmp(path, "/proc/", 6) || (n = readlink(path, buf, sizeof(buf) - 1)) <= 0 ||
	    buf[0] != '/') {
		errno = ENOENT;
		return NULL;
	}
	buf[n] = '\0';
	return strdup(buf);
}

/* A function of f whose return address must not be replaced
 * (unhookable.h). */
static int unhookable(const struct mt_uprobe_file *f, const char *name, uint64_t addr)
{
	return (f->sym.t.entry && addr == f->sym.t.entry) ||
	       mt_not_entered_by_call(name) || mt_returns_twice(name);
}

int mt_uprobe_add(struct mt_uprobe *u, const char *path, const char *name,
		  uint64_t addr, unsigned flags)
{
	struct mt_uprobe_probe *p;
	struct mt_uprobe_file *f;
	char *real;
	uint32_t fi;
	uint64_t off;
	int err, link, no_return = 0;

	if (u->state != ST_ADDING || !name || !*name || !path ||
	    !(flags & (MT_UPROBE_ENTRY | MT_UPROBE_RETURN)) ||
	    (flags & ~(unsigned)(MT_UPROBE_ENTRY | MT_UPROBE_RETURN |
				 MT_UPROBE_TRIGGER)) ||
	    ((flags & MT_UPROBE_TRIGGER) &&
	     (!(flags & MT_UPROBE_ENTRY) || u->trigger_probe >= 0))) {
		uprobe_what(u, "adding a probe on %s in %s: bad arguments",
			    name ? name : "(null)", path ? path : "(null)");
		return MT_EINVAL;
	}
	link = (real = proc_link_name(path)) != NULL;
	if (!real && errno == ENOENT)
		real = realpath(path, NULL);
	if (!real) {
		uprobe_what(u, "resolving %s", path);
		return errno == ENOMEM ? MT_ENOMEM : MT_EIO;
	}
	err = uprobe_file_index(u, real, strlen(real), &fi);
	if (!err && link && !u->files[fi].source && !(u->files[fi].source = strdup(path)))
		err = MT_ENOMEM;
	free(real);
	if (err)
		return err;
	err = uprobe_file_load(u, fi);
	f = &u->files[fi];
	if (err) {
		if (err == MT_EIO)
			uprobe_what(u, "reading %s", f->path);
		return err;
	}
	if (mt_symtab_file_offset(&f->sym.t, addr, &off)) {
		uprobe_what(u, "placing %s at 0x%llx: in no loadable segment of %s",
			    name, (unsigned long long)addr, f->path);
		return MT_ERANGE;
	}
	if ((flags & MT_UPROBE_RETURN) && (f->go || unhookable(f, name, addr))) {
		u->warnings |= f->go ? MT_UPROBE_W_GO : MT_UPROBE_W_UNHOOKABLE;
		u->st.entry_only++;
		flags &= ~(unsigned)MT_UPROBE_RETURN;
		if (!(flags & MT_UPROBE_ENTRY))
			return (int)u->nprobes; /* nothing left to place */
		no_return = 1;
	}
	if (mt_grow(&u->probes, &u->capprobes, u->nprobes + 1, sizeof(*u->probes)))
		return MT_ENOMEM;
	p = &u->probes[u->nprobes];
	memset(p, 0, sizeof(*p));
	p->file = fi;
	p->flags = flags;
	p->no_return = no_return;
	p->addr = addr;
	p->offset = off;
	p->sym = strdup(name);
	p->shown = mt_demangle(name, MT_DEMANGLE_PERF);
	if (!p->sym || name_probe(u, p)) {
		free(p->sym);
		free(p->shown);
		free(p->event);
		free(p->ret_event);
		return MT_ENOMEM;
	}
	if (flags & MT_UPROBE_TRIGGER)
		u->trigger_probe = (int)u->nprobes;
	if ((int)strlen(p->event) > u->name_width)
		u->name_width = (int)strlen(p->event);
	if (p->ret_event && (int)strlen(p->ret_event) > u->name_width)
		u->name_width = (int)strlen(p->ret_event);
	return (int)u->nprobes++;
}
