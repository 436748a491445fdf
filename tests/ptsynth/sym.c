/*
 * Function names as perf 6.1 prints them, for the truth's spans. perf's
 * choice of a symbol for an address depends on how it built its tree of
 * symbols, so this builds the same tree the same way (util/symbol-elf.c,
 * util/symbol.c, lib/rbtree.c):
 *   - the symbols of the debug file's .symtab (found by build-id or
 *     .gnu_debuglink), else of the file's .symtab, then its .dynsym:
 *     functions, objects (they shape the tree and stop symbols of size 0)
 *     and labels (STT_NOTYPE) in text sections, inserted in table order
 *     into a red-black tree keyed by start address (equal keys go right);
 *   - symbols__fixup_end(): a symbol of size 0 reaches to the next one,
 *     after each table;
 *   - symbols__fixup_duplicate(): of symbols with one start, one is kept
 *     (choose_best_symbol: with a size, not weak, global, fewer leading
 *     '_', longer name), the others erased from the tree;
 *   - PLT entries inserted last, named as perf before 6.3 does (entry k by
 *     relocation k of .rela.plt; IRELATIVE ones are "@plt");
 *   - an address is looked up by walking down from the root: the first
 *     symbol met that holds it wins, so a symbol stretched over .plt (a
 *     _init of size 0) beats the PLT entry or not by the tree's shape.
 * Names are demangled as perf prints them (common/demangle.h,
 * MT_DEMANGLE_PERF: no parameter lists, Rust hashes dropped, OCaml's
 * rule). A function is known by its start address; code outside every
 * symbol is "[unknown]", one function per file, as mt-stacks sees it.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "die.h"
#include "err.h"
#include "symtab.h"
#include "ptsynth.h"
#include "xalloc.h"
#include "banned.h"

/* A node of the symbol tree, as perf's struct symbol in its rb_node. */
struct node {
	struct node *left, *right, *parent;
	int red;
	uint64_t start, end;	/* file addresses, end exclusive */
	int weak, global;
	char *name;		/* as in the file; demangled once kept */
};

struct table {
	char *path;
	uint64_t ino;
	struct mt_symtab st;	/* segments, for the bias */
	struct node *root;
	struct node **all;	/* every node ever made, to free */
	size_t nall, capall;
};

static struct table *tables;
static size_t ntables, captables;
static struct sym_map *maps;
static size_t nmaps, capmaps;
/* paths of replaced mappings: sym_info.dso may still point at them */
static char **dead;
static size_t ndead, capdead;
/* files with code perf shows as [unknown]: its index is the function */
static char **files;
static size_t nfiles, capfiles;

/* address -> function, open addressing */
struct slot {
	uint64_t addr;
	struct sym_info info;
	int used;
};
static struct slot *cache;
static size_t cache_cap, cache_n;

/* a file with Go's pc-line table was loaded */
static int go_seen;

int sym_go(void)
{
	return go_seen;
}

void sym_init(void)
{
	cache_cap = 1 << 12;
	cache = xcalloc(cache_cap, sizeof(*cache));
}

static void cache_clear(void)
{
	memset(cache, 0, cache_cap * sizeof(*cache));
	cache_n = 0;
}

void sym_release(void)
{
	for (size_t i = 0; i < ntables; i++) {
		for (size_t k = 0; k < tables[i].nall; k++) {
			free(tables[i].all[k]->name);
			free(tables[i].all[k]);
		}
		free(tables[i].all);
		free(tables[i].path);
		mt_symtab_release(&tables[i].st);
	}
	free(tables);
	for (size_t i = 0; i < nmaps; i++)
		free(maps[i].path);
	free(maps);
	for (size_t i = 0; i < ndead; i++)
		free(dead[i]);
	free(dead);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	free(cache);
	tables = NULL;
	maps = NULL;
	dead = NULL;
	files = NULL;
	ndead = capdead = nfiles = capfiles = 0;
	ntables = captables = nmaps = capmaps = 0;
}

/* The name perf prints (demangle.h), malloced. */
static char *demangle(const char *name)
{
	char *d = mt_demangle(name, MT_DEMANGLE_PERF);

	return d ? d : xstrdup(name);
}

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): 1 when a is kept, 0 when b is */
static int keep_a(const struct node *a, const struct node *b)
{
	int ua, ub;
	size_t la, lb;

	if ((a->end == a->start) != (b->end == b->start))
		return a->end != a->start;
	if (a->weak != b->weak)
		return !a->weak;
	if (a->global != b->global)
		return a->global;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	return la >= lb;
}

/* ---- a red-black tree, shaped as lib/rbtree.c shapes it ---- */

static void set_child(struct table *t, struct node *old, struct node *new,
		      struct node *parent)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

static void rotate_left(struct table *t, struct node *x)
{
	struct node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	set_child(t, x, y, x->parent);
	y->left = x;
	x->parent = y;
}

static void rotate_right(struct table *t, struct node *x)
{
	struct node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	set_child(t, x, y, x->parent);
	y->right = x;
	x->parent = y;
}

static int is_red(const struct node *n)
{
	return n && n->red;
}

/* __symbols__insert(): smaller starts to the left, equal to the right */
static void insert(struct table *t, struct node *z)
{
	struct node **p = &t->root, *parent = NULL;

	while (*p) {
		parent = *p;
		p = z->start < parent->start ? &parent->left : &parent->right;
	}
	z->parent = parent;
	z->left = z->right = NULL;
	z->red = 1;
	*p = z;
	while (is_red(z->parent)) {
		struct node *par = z->parent, *g = par->parent, *u;

		if (par == g->left) {
			u = g->right;
			if (is_red(u)) {
				par->red = u->red = 0;
				g->red = 1;
				z = g;
				continue;
			}
			if (z == par->right) {
				rotate_left(t, par);
				z = par;
				par = z->parent;
			}
			par->red = 0;
			g->red = 1;
			rotate_right(t, g);
		} else {
			u = g->left;
			if (is_red(u)) {
				par->red = u->red = 0;
				g->red = 1;
				z = g;
				continue;
			}
			if (z == par->left) {
				rotate_right(t, par);
				z = par;
				par = z->parent;
			}
			par->red = 0;
			g->red = 1;
			rotate_left(t, g);
		}
	}
	t->root->red = 0;
}

static void erase_fixup(struct table *t, struct node *x, struct node *parent)
{
	while (x != t->root && !is_red(x)) {
		struct node *w;

		if (x == parent->left) {
			w = parent->right;
			if (is_red(w)) {
				w->red = 0;
				parent->red = 1;
				rotate_left(t, parent);
				w = parent->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = 1;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = 0;
				w->red = 1;
				rotate_right(t, w);
				w = parent->right;
			}
			w->red = parent->red;
			parent->red = 0;
			if (w->right)
				w->right->red = 0;
			rotate_left(t, parent);
		} else {
			w = parent->left;
			if (is_red(w)) {
				w->red = 0;
				parent->red = 1;
				rotate_right(t, parent);
				w = parent->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = 1;
				x = parent;
				parent = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = 0;
				w->red = 1;
				rotate_left(t, w);
				w = parent->left;
			}
			w->red = parent->red;
			parent->red = 0;
			if (w->left)
				w->left->red = 0;
			rotate_right(t, parent);
		}
		x = t->root;
		break;
	}
	if (x)
		x->red = 0;
}

/* rb_erase(): a node with two children is replaced by its successor,
 * which takes its colour */
static void erase(struct table *t, struct node *z)
{
	struct node *x, *parent;
	int removed_red;

	if (!z->left || !z->right) {
		x = z->left ? z->left : z->right;
		parent = z->parent;
		removed_red = z->red;
		set_child(t, z, x, parent);
		if (x)
			x->parent = parent;
	} else {
		struct node *y = z->right;

		while (y->left)
			y = y->left;
		removed_red = y->red;
		x = y->right;
		if (y->parent == z) {
			parent = y;
		} else {
			parent = y->parent;
			parent->left = x;
			if (x)
				x->parent = parent;
			y->right = z->right;
			z->right->parent = y;
		}
		y->left = z->left;
		z->left->parent = y;
		y->parent = z->parent;
		set_child(t, z, y, z->parent);
		y->red = z->red;
	}
	if (!removed_red)
		erase_fixup(t, x, parent);
}

static struct node *first(const struct table *t)
{
	struct node *n = t->root;

	while (n && n->left)
		n = n->left;
	return n;
}

static struct node *next(struct node *n)
{
	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return n;
	}
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return n->parent;
}

static struct node *new_node(struct table *t, uint64_t start, uint64_t end,
			     const char *name)
{
	struct node *n = xcalloc(1, sizeof(*n));

	n->start = start;
	n->end = end;
	n->name = xstrdup(name);
	grow_or_die(&t->all, &t->capall, t->nall, sizeof(*t->all));
	t->all[t->nall++] = n;
	return n;
}

/* symbols__find(): the first node on the way down that holds a */
static const struct node *find(const struct table *t, uint64_t a)
{
	const struct node *n = t->root;

	while (n) {
		if (a < n->start)
			n = n->left;
		else if (a > n->end || (a == n->end && a != n->start))
			n = n->right;
		else
			return n;
	}
	return NULL;
}

static Elf_Scn *section_of_type(Elf *e, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static Elf_Scn *section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Insert the symbols of one table that perf keeps (functions, objects,
 * and labels in text sections), in table order; returns how many. */
static size_t read_syms(struct table *t, Elf *e, Elf_Scn *scn,
			const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, shstrndx;
	size_t nr = 0;

	if (!d || !d->d_buf || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr ss;
		Elf_Scn *sec;
		const char *name, *secname;
		int type, vis, label;
		struct node *nd;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE)
			continue;
		label = type == STT_NOTYPE && vis != STV_HIDDEN &&
			vis != STV_INTERNAL;
		if (!label && type != STT_FUNC && type != STT_GNU_IFUNC &&
		    type != STT_OBJECT)
			continue;
		sec = elf_getscn(e, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &ss) || !(ss.sh_flags & SHF_ALLOC))
			continue;
		secname = elf_strptr(e, shstrndx, ss.sh_name);
		if (label && (!secname || !strstr(secname, "text")))
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		nd = new_node(t, sym.st_value, sym.st_value + sym.st_size, name);
		nd->weak = GELF_ST_BIND(sym.st_info) == STB_WEAK;
		nd->global = GELF_ST_BIND(sym.st_info) == STB_GLOBAL;
		insert(t, nd);
		nr++;
	}
	return nr;
}

/* symbols__fixup_end(), then symbols__fixup_duplicate() */
static void fixups(struct table *t)
{
	struct node *prev, *curr = first(t), *nd;

	if (!curr)
		return;
	for (nd = next(curr); nd; nd = next(nd)) {
		prev = curr;
		curr = nd;
		if (prev->end == prev->start)
			prev->end = curr->start;
	}
	if (curr->end == curr->start)
		curr->end = ((curr->start + 4095) & ~4095ull) + 4096;

	curr = first(t);
	while (curr) {
		nd = next(curr);
		if (!nd)
			break;
		if (curr->start != nd->start) {
			curr = nd;
			continue;
		}
		if (keep_a(curr, nd)) {
			erase(t, nd);
		} else {
			erase(t, curr);
			curr = nd;
		}
	}
}

/*
 * PLT entries as perf 6.1 names them (dso__synthesize_plt_symbols before
 * 6.3): entry k of .plt, after the header, gets the symbol of relocation k
 * of .rela.plt, whatever that relocation patches; IRELATIVE relocations
 * have no symbol, and their entries are "@plt".
 */
static void read_plt(struct table *t, Elf *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn = section_named(e, ".rela.plt", &rsh);
	Elf_Scn *pscn = section_named(e, ".plt", &psh), *dscn;
	Elf_Data *rd, *dd;
	size_t n;
	uint64_t addr;

	if (!rscn || !pscn || rsh.sh_type != SHT_RELA || !rsh.sh_entsize ||
	    !psh.sh_entsize)
		return;
	dscn = elf_getscn(e, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM)
		return;
	rd = elf_getdata(rscn, NULL);
	dd = elf_getdata(dscn, NULL);
	if (!rd || !rd->d_buf || !dd || !dd->d_buf)
		return;
	n = rsh.sh_size / rsh.sh_entsize;
	addr = psh.sh_addr + psh.sh_entsize;
	for (size_t k = 0; k < n; k++, addr += psh.sh_entsize) {
		GElf_Rela rela;
		GElf_Sym sym;
		const char *name = "";
		char *d, buf[4096];
		struct node *nd;

		if (!gelf_getrela(rd, (int)k, &rela))
			break;
		if (gelf_getsym(dd, (int)GELF_R_SYM(rela.r_info), &sym))
			name = elf_strptr(e, dsh.sh_link, sym.st_name);
		if (!name)
			name = "";
		d = mt_demangle(name, MT_DEMANGLE_PERF);
		snprintf(buf, sizeof(buf), "%s@plt", d ? d : name);
		free(d);
		nd = new_node(t, addr, addr + psh.sh_entsize, buf);
		nd->global = 1;
		insert(t, nd);
	}
}

/* Demangle the names of the nodes in the tree. */
static void demangle_all(struct table *t)
{
	for (struct node *n = first(t); n; n = next(n)) {
		char *d = demangle(n->name);

		free(n->name);
		n->name = d;
	}
}

/* Read the symbols of the file (fd, or image) into t, as perf would. */
static void read_elf(struct table *t, int fd, const void *image,
		     size_t image_len, const char *path)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *e, *dbg = NULL;
	int dfd = -1;

	elf_version(EV_CURRENT);
	e = image ? elf_memory((char *)(uintptr_t)image, image_len) :
		    elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return;
	if (!image) {
		dfd = mt_symtab_find_debug(&t->st, path, NULL, 0, NULL);
		if (dfd >= 0)
			dbg = elf_begin(dfd, ELF_C_READ, NULL);
	}
	if (dbg && (scn = section_of_type(dbg, SHT_SYMTAB, &sh))) {
		if (read_syms(t, dbg, scn, &sh))
			fixups(t);
	} else {
		if ((scn = section_of_type(e, SHT_SYMTAB, &sh)) &&
		    read_syms(t, e, scn, &sh))
			fixups(t);
		if ((scn = section_of_type(e, SHT_DYNSYM, &sh)) &&
		    read_syms(t, e, scn, &sh))
			fixups(t);
	}
	demangle_all(t);
	read_plt(t, e);
	if (section_named(e, ".gopclntab", &sh))
		go_seen = 1;
	if (dbg)
		elf_end(dbg);
	if (dfd >= 0)
		close(dfd);
	elf_end(e);
}

static int load_table(const char *path, uint64_t ino, const void *image,
		      size_t image_len)
{
	struct table *t;
	int fd = -1, err;

	for (size_t i = 0; i < ntables; i++)
		if (!image && tables[i].ino == ino && !strcmp(tables[i].path, path))
			return (int)i;
	grow_or_die(&tables, &captables, ntables, sizeof(*tables));
	t = &tables[ntables];
	memset(t, 0, sizeof(*t));
	mt_symtab_init(&t->st);
	if (image) {
		err = mt_symtab_read_mem(&t->st, image, image_len);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		err = mt_symtab_read(&t->st, fd);
	}
	if (err < 0) {
		mt_symtab_release(&t->st);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	read_elf(t, fd, image, image_len, path);
	if (fd >= 0)
		close(fd);
	t->path = xstrdup(path);
	t->ino = ino;
	return (int)ntables++;
}

/*
 * The load bias of an executable mapping at start of file offset pgoff:
 * that of the executable segment that begins in pgoff's page. (The segment
 * before it often ends in that page too, so "the segment whose bytes hold
 * pgoff" can be the wrong one.)
 */
static int exec_bias(const struct mt_symtab *st, uint64_t start,
		     uint64_t pgoff, uint64_t *bias)
{
	for (size_t i = 0; i < st->nseg; i++) {
		const struct mt_seg *sg = &st->seg[i];

		if (sg->exec && (sg->offset & ~0xfffull) == pgoff) {
			*bias = start - (sg->vaddr & ~0xfffull);
			return 0;
		}
	}
	return mt_symtab_bias(st, start, pgoff, bias);
}

const struct sym_map *sym_add_map(uint64_t start, uint64_t end,
				  uint64_t pgoff, uint32_t maj, uint32_t min,
				  uint64_t ino, const char *path,
				  const void *image, size_t image_len)
{
	struct sym_map *m;
	size_t i, j;

	/* a new mapping replaces what it overlaps */
	for (i = j = 0; i < nmaps; i++) {
		if (maps[i].start < end && start < maps[i].end) {
			grow_or_die(&dead, &capdead, ndead, sizeof(*dead));
			dead[ndead++] = maps[i].path;
			continue;
		}
		maps[j++] = maps[i];
	}
	nmaps = j;
	cache_clear();
	grow_or_die(&maps, &capmaps, nmaps, sizeof(*maps));
	m = &maps[nmaps++];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->path = xstrdup(path);
	m->table = load_table(path, ino, image, image_len);
	if (m->table >= 0 && exec_bias(&tables[m->table].st, start, pgoff, &m->bias))
		m->table = -1;
	return m;
}

static const struct sym_map *sym_map_of(uint64_t addr)
{
	for (size_t i = 0; i < nmaps; i++)
		if (addr >= maps[i].start && addr < maps[i].end)
			return &maps[i];
	return NULL;
}

/* The index of a file among those with unsymbolised code. */
static size_t file_index(const char *path)
{
	for (size_t i = 0; i < nfiles; i++)
		if (!strcmp(files[i], path))
			return i;
	grow_or_die(&files, &capfiles, nfiles, sizeof(*files));
	files[nfiles] = xstrdup(path);
	return nfiles++;
}

static void resolve(uint64_t addr, struct sym_info *out)
{
	const struct sym_map *m = sym_map_of(addr);
	const struct node *f = NULL;

	out->dso = m ? m->path : "[unknown]";
	if (m && m->table >= 0)
		f = find(&tables[m->table], addr - m->bias);
	if (f) {
		out->entry = f->start + m->bias;
		out->name = f->name;
	} else {
		/* unsymbolised code: one function per file */
		out->entry = ~(uint64_t)0 - file_index(out->dso);
		out->name = "[unknown]";
	}
}

void sym_lookup(uint64_t addr, struct sym_info *out)
{
	size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (cache_cap - 1);

	while (cache[h].used) {
		if (cache[h].addr == addr) {
			*out = cache[h].info;
			return;
		}
		h = (h + 1) & (cache_cap - 1);
	}
	resolve(addr, out);
	if (2 * (cache_n + 1) > cache_cap) {
		struct slot *old = cache;
		size_t oldcap = cache_cap;

		cache_cap *= 2;
		cache = xcalloc(cache_cap, sizeof(*cache));
		cache_n = 0;
		for (size_t i = 0; i < oldcap; i++) {
			size_t g;

			if (!old[i].used)
				continue;
			g = (size_t)((old[i].addr * 0x9e3779b97f4a7c15ull) >> 20) &
			    (cache_cap - 1);
			while (cache[g].used)
				g = (g + 1) & (cache_cap - 1);
			cache[g] = old[i];
			cache_n++;
		}
		free(old);
		h = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 20) & (cache_cap - 1);
		while (cache[h].used)
			h = (h + 1) & (cache_cap - 1);
	}
	cache[h].used = 1;
	cache[h].addr = addr;
	cache[h].info = *out;
	cache_n++;
}
