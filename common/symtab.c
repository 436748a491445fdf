#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "err.h"
#include "regfile.h"
#include "symtab.h"
#include "cmp.h"
#include "radix.h"
#include "banned.h"

void mt_symtab_init(struct mt_symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void mt_symtab_release(struct mt_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	free(t->seg);
	free(t->debuglink);
	mt_fdes_release(&t->fde);
	mt_symtab_init(t);
}

static int add(struct mt_symtab *t, const GElf_Sym *s, const char *name)
{
	struct mt_sym *sym;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct mt_sym *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return MT_ENOMEM;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return MT_ENOMEM;
		mt_prefault(v + t->n, (cap - t->n) * sizeof(*v)); /* filled next */
		t->v = v;
		t->cap = cap;
	}
	sym = &t->v[t->n];
	sym->name = strdup(name);
	if (!sym->name)
		return MT_ENOMEM;
	sym->addr = s->st_value;
	sym->size = s->st_size;
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_LOCAL:
		sym->bind = MT_SYM_LOCAL;
		break;
	case STB_WEAK:
		sym->bind = MT_SYM_WEAK;
		break;
	case STB_GNU_UNIQUE:
		sym->bind = MT_SYM_UNIQUE;
		break;
	default:
		sym->bind = MT_SYM_GLOBAL;
		break;
	}
	t->n++;
	return 0;
}

static int read_table(struct mt_symtab *t, Elf *e, Elf_Scn *scn,
		      const GElf_Shdr *sh)
{
	Elf_Data *data;
	size_t i, n;

	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if (!sh->sh_entsize)
		return MT_ECORRUPT;
	data = elf_getdata(scn, NULL);
	if (!data)
		return MT_ECORRUPT;
	n = data->d_size / sh->sh_entsize;
	for (i = 1; i < n; i++) { /* entry 0 is the undefined symbol */
		GElf_Sym s;
		const char *name;
		int type, err;

		if (!gelf_getsym(data, (int)i, &s))
			return MT_ECORRUPT;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name)
			return MT_ECORRUPT;
		if (!*name)
			continue;
		err = add(t, &s, name);
		if (err)
			return err;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct mt_sym *x = a, *y = b;

	MT_CMP_BY(x->addr, y->addr);
	MT_CMP_BY(x->size, y->size);
	return strcmp(x->name, y->name);
}

struct key {
	uint64_t addr;
	size_t i;
};

/*
 * Sort by address (radix.h), then runs of one address by size and name. Returns 0 or MT_ENOMEM (t
 * unchanged).
 */
static int radix_sort(struct mt_symtab *t)
{
	struct key *k = malloc(t->n * sizeof(*k)), *tmp = malloc(t->n * sizeof(*k)), *sorted;
	struct mt_sym *v = malloc(t->n * sizeof(*v));
	size_t i, j;

	if (!k || !tmp || !v) {
		free(k);
		free(tmp);
		free(v);
		return MT_ENOMEM;
	}
	mt_prefault(k, t->n * sizeof(*k)); /* each written whole */
	mt_prefault(tmp, t->n * sizeof(*k));
	mt_prefault(v, t->n * sizeof(*v));
	for (i = 0; i < t->n; i++) {
		k[i].addr = t->v[i].addr;
		k[i].i = i;
	}
	sorted = mt_radix_sort(k, tmp, t->n, sizeof(*k));
	for (i = 0; i < t->n; i++)
		v[i] = t->v[sorted[i].i];
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && v[j].addr == v[i].addr; j++)
			;
		if (j - i > 1)
			qsort(v + i, j - i, sizeof(*v), cmp_sym);
	}
	free(k);
	free(tmp);
	free(t->v);
	t->v = v;
	t->cap = t->n;
	return 0;
}

static void sort_unique(struct mt_symtab *t)
{
	size_t i, out = 0;

	if (!t->n)
		return;
	if (radix_sort(t))
		qsort(t->v, t->n, sizeof(*t->v), cmp_sym); /* no memory: in place */
	for (i = 1; i < t->n; i++) {
		if (!cmp_sym(&t->v[out], &t->v[i])) {
			free(t->v[i].name); /* .dynsym repeating .symtab */
			continue;
		}
		t->v[++out] = t->v[i];
	}
	t->n = out + 1;
}

/* libelf quietly sees no sections when the section headers lie past the
 * end of a truncated file. */
static int check_size(Elf *e, uint64_t fsize)
{
	GElf_Ehdr eh;
	uint64_t shnum;

	if (!gelf_getehdr(e, &eh))
		return MT_ECORRUPT;
	/* e_shnum 0 with headers present: the count is in header 0 */
	shnum = eh.e_shnum ? eh.e_shnum : eh.e_shoff ? 1 : 0;
	if (!shnum)
		return 0;
	if (eh.e_shoff > fsize || !eh.e_shentsize ||
	    shnum > (fsize - eh.e_shoff) / eh.e_shentsize)
		return MT_ECORRUPT;
	return 0;
}

static int read_segments(struct mt_symtab *t, Elf *e)
{
	size_t i, n;

	if (elf_getphdrnum(e, &n) != 0)
		return MT_ECORRUPT;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct mt_seg *sg;

		if (!gelf_getphdr(e, (int)i, &ph))
			return MT_ECORRUPT;
		if (ph.p_type != PT_LOAD)
			continue;
		sg = realloc(t->seg, (t->nseg + 1) * sizeof(*sg));
		if (!sg)
			return MT_ENOMEM;
		t->seg = sg;
		sg += t->nseg++;
		sg->vaddr = ph.p_vaddr;
		sg->memsz = ph.p_memsz;
		sg->offset = ph.p_offset;
		sg->filesz = ph.p_filesz;
		sg->exec = !!(ph.p_flags & PF_X);
	}
	return 0;
}

static void read_build_id(struct mt_symtab *t, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= MT_BUILD_ID_MAX) {
			memcpy(t->build_id, (char *)data->d_buf + desc_off,
			       nh.n_descsz);
			t->build_id_len = nh.n_descsz;
			break;
		}
	}
	(void)elf_errno(); /* gelf_getnote sets it at the end of the notes */
}

static int read_debuglink(struct mt_symtab *t, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	const char *p;
	size_t len, at;
	uint32_t crc;

	if (!data || !data->d_buf)
		return 0; /* SHT_NOBITS in a debug file */
	p = data->d_buf;
	len = strnlen(p, data->d_size);
	at = (len + 4) & ~(size_t)3; /* NUL, padding to 4 bytes, CRC */
	if (!len || len == data->d_size || at + 4 > data->d_size ||
	    memchr(p, '/', len))
		return MT_ECORRUPT;
	memcpy(&crc, p + at, 4);
	t->debuglink_crc = crc; /* in the file's byte order: x86 and arm64 LE */
	t->debuglink = strndup(p, len);
	return t->debuglink ? 0 : MT_ENOMEM;
}

/* ---- PLT entries ---- */

/* What one GOT slot is filled with: a named symbol's address, or, for
 * R_X86_64_IRELATIVE, what the IFUNC resolver at addend returns. */
struct got_name {
	uint64_t slot;
	uint64_t addend;
	const char *name; /* in libelf's string table, valid until elf_end;
			   * IRELATIVE: the IFUNC's, NULL while it has none */
	int irel;
};

struct got_names {
	struct got_name *v;
	size_t n, cap, nirel;
};

static int cmp_got(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return MT_CMP(x->slot, y->slot);
}

static int got_push(struct got_names *g, const GElf_Rela *r, const char *name)
{
	struct got_name *p;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;

		if (cap > SIZE_MAX / sizeof(*p))
			return MT_ENOMEM;
		p = realloc(g->v, cap * sizeof(*p));
		if (!p)
			return MT_ENOMEM;
		g->v = p;
		g->cap = cap;
	}
	p = &g->v[g->n++];
	p->slot = r->r_offset;
	p->addend = (uint64_t)r->r_addend;
	p->name = name;
	p->irel = !name;
	g->nirel += !name;
	return 0;
}

/* The GOT slots that the relocations of one section fill, in relocation
 * order. x86-64: the relocations objdump names PLT entries after
 * (JUMP_SLOT, GLOB_DAT, IRELATIVE); other machines: those of a named
 * symbol. A static executable's .rela.plt may link no symbol table. */
static int rela_names(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, int x86,
		      struct got_names *g)
{
	Elf_Data *data = elf_getdata(scn, NULL), *symdata = NULL;
	Elf_Scn *symscn;
	GElf_Shdr symsh;
	size_t i, cnt;

	if (!data || !sh->sh_entsize || sh->sh_type != SHT_RELA)
		return 0;
	symscn = sh->sh_link ? elf_getscn(e, sh->sh_link) : NULL;
	if (symscn && gelf_getshdr(symscn, &symsh) && symsh.sh_entsize)
		symdata = elf_getdata(symscn, NULL);
	cnt = data->d_size / sh->sh_entsize;
	for (i = 0; i < cnt; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		size_t si, type;
		int err;

		if (!gelf_getrela(data, (int)i, &r))
			return MT_ECORRUPT;
		type = GELF_R_TYPE(r.r_info);
		if (x86 && type == R_X86_64_IRELATIVE) {
			err = got_push(g, &r, NULL);
			if (err)
				return err;
			continue;
		}
		if (x86 && type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		si = GELF_R_SYM(r.r_info);
		if (!si || !symdata || !gelf_getsym(symdata, (int)si, &s))
			continue;
		name = elf_strptr(e, symsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		err = got_push(g, &r, name);
		if (err)
			return err;
	}
	return 0;
}

/* The STT_GNU_IFUNC symbols at one IRELATIVE addend. */
struct ifunc {
	uint64_t addr;
	const char *name; /* the best so far, as perf chooses; NULL: none */
	GElf_Sym sym;     /* its symbol */
};

static int cmp_ifunc(const void *a, const void *b)
{
	const struct ifunc *x = a, *y = b;

	return MT_CMP(x->addr, y->addr);
}

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Whether a symbol (its size, weak or global, name) is a better name
 * than b for one address, as perf keeps one symbol of those at an
 * address (choose_best_symbol() in tools/perf/util/symbol.c): one with a
 * size, then not weak, then global, then fewer leading underscores, then
 * the longer name; on a tie the first one read. */
static int better_rule(uint64_t sa, int wa, int ga, const char *an,
		       uint64_t sb, int wb, int gb, const char *bn)
{
	size_t ua = underscores(an), ub = underscores(bn), la, lb;

	if (!sa != !sb)
		return sa != 0;
	if (wa != wb)
		return wb;
	if (ga != gb)
		return ga;
	if (ua != ub)
		return ua < ub;
	la = strlen(an);
	lb = strlen(bn);
	return la > lb;
}

static int better(const GElf_Sym *a, const char *an, const GElf_Sym *b,
		  const char *bn)
{
	return better_rule(a->st_size, GELF_ST_BIND(a->st_info) == STB_WEAK,
			   GELF_ST_BIND(a->st_info) == STB_GLOBAL, an,
			   b->st_size, GELF_ST_BIND(b->st_info) == STB_WEAK,
			   GELF_ST_BIND(b->st_info) == STB_GLOBAL, bn);
}

int mt_sym_better(const struct mt_sym *a, const struct mt_sym *b)
{
	return better_rule(a->size, a->bind == MT_SYM_WEAK, a->bind == MT_SYM_GLOBAL, a->name,
			   b->size, b->bind == MT_SYM_WEAK, b->bind == MT_SYM_GLOBAL, b->name);
}

int mt_sym_name_is_part(const char *name)
{
	const char *p = name;

	/* ".cold" as a whole dotted component, past the first character */
	while (*p && (p = strstr(p + 1, ".cold")))
		if (p[5] == '\0' || p[5] == '.')
			return 1;
	return 0;
}

static void scan_ifuncs(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
			struct ifunc *f, size_t nf)
{
	Elf_Data *data;
	size_t i, n;

	if (sh->sh_type == SHT_NOBITS || !sh->sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	n = data->d_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		struct ifunc key, *hit;
		const char *name;
		GElf_Sym s;

		if (!gelf_getsym(data, (int)i, &s))
			return; /* read_table has read it: not reached */
		if (GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		key.addr = s.st_value;
		hit = bsearch(&key, f, nf, sizeof(*f), cmp_ifunc);
		if (!hit)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (!hit->name || better(&s, name, &hit->sym, hit->name)) {
			hit->name = name;
			hit->sym = s;
		}
	}
}

/*
 * Name each IRELATIVE slot as perf 6.3 and later do (get_ifunc_name() in
 * tools/perf/util/symbol-elf.c): after the STT_GNU_IFUNC symbol at the
 * addend, the resolver's address, where the IFUNC symbol points. Unlike
 * perf, which keeps one of all the symbols at an address and may keep the
 * resolver's own (strlen_ifunc in a static-pie), only IFUNC symbols are
 * candidates: the entry calls what strlen resolves to, not strlen_ifunc.
 * .symtab is read before .dynsym, as perf prefers it.
 */
static int name_ifuncs(Elf *e, struct got_names *g)
{
	struct ifunc *f = calloc(g->nirel, sizeof(*f));
	size_t i, nf = 0;
	int pass;

	if (!f)
		return MT_ENOMEM;
	for (i = 0; i < g->n; i++)
		if (g->v[i].irel)
			f[nf++].addr = g->v[i].addend;
	qsort(f, nf, sizeof(*f), cmp_ifunc);
	for (i = 1, nf = nf ? 1 : 0; i < g->nirel; i++)
		if (f[i].addr != f[nf - 1].addr)
			f[nf++] = f[i];
	for (pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(e, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) &&
			    sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				scan_ifuncs(e, scn, &sh, f, nf);
	}
	for (i = 0; i < g->n; i++) {
		struct ifunc key, *hit;

		if (!g->v[i].irel)
			continue;
		key.addr = g->v[i].addend;
		hit = bsearch(&key, f, nf, sizeof(*f), cmp_ifunc);
		if (hit)
			g->v[i].name = hit->name;
	}
	free(f);
	return 0;
}

static int add_plt(struct mt_symtab *t, uint64_t addr, uint64_t size,
		   const char *name)
{
	GElf_Sym s;
	size_t len = strlen(name);
	char *full = malloc(len + 5);
	int err;

	if (!full)
		return MT_ENOMEM;
	memcpy(full, name, len);
	memcpy(full + len, "@plt", 5);
	memset(&s, 0, sizeof(s));
	s.st_value = addr;
	s.st_size = size;
	err = add(t, &s, full);
	free(full);
	if (!err)
		t->v[t->n - 1].bind = MT_SYM_PLT;
	return err;
}

/* An IRELATIVE slot without an IFUNC symbol: named as objdump names it,
 * "*ABS*+0xADDEND", the addend in hexadecimal, no suffix when 0. */
static int add_abs_plt(struct mt_symtab *t, uint64_t addr, uint64_t size,
		       uint64_t addend)
{
	char name[sizeof("*ABS*+0x") + 16];

	if (addend)
		snprintf(name, sizeof(name), "*ABS*+0x%" PRIx64, addend);
	else
		snprintf(name, sizeof(name), "*ABS*");
	return add_plt(t, addr, size, name);
}

/* x86-64: the GOT slot an entry jumps through: jmp *disp32(%rip), after
 * an optional endbr64 and bnd prefix. 0 when the entry has none. */
static uint64_t x86_slot(const unsigned char *b, size_t len, uint64_t addr)
{
	size_t i;

	for (i = 0; i + 6 <= len; i++) {
		if (b[i] == 0xff && b[i + 1] == 0x25) {
			int32_t d;

			memcpy(&d, b + i + 2, 4);
			return addr + i + 6 + (uint64_t)(int64_t)d;
		}
	}
	return 0;
}

/*
 * The entries of one x86-64 PLT section. An entry is sh_entsize bytes,
 * or, as perf assumes when the linker leaves it 0, 8 bytes in a section
 * aligned to 8 (a static executable's .plt of IRELATIVE entries) and 16
 * otherwise. A lazy .plt starts with a header (pushq GOT+8(%rip)).
 */
static int x86_entries(struct mt_symtab *t, Elf_Scn *scn, const GElf_Shdr *sh,
		       const struct got_names *g)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	uint64_t esz, off = 0;
	const unsigned char *b;

	if (!g->n || !data || !data->d_buf || sh->sh_type == SHT_NOBITS)
		return 0;
	esz = sh->sh_entsize >= 8 ? sh->sh_entsize :
	      sh->sh_addralign == 8 ? 8 : 16;
	b = data->d_buf;
	if (data->d_size >= 2 && b[0] == 0xff && b[1] == 0x35)
		off = esz;
	for (; esz <= data->d_size && off <= data->d_size - esz; off += esz) {
		uint64_t a = sh->sh_addr + off;
		struct got_name key, *hit;
		int err;

		key.slot = x86_slot(b + off, esz, a);
		if (!key.slot)
			continue;
		hit = bsearch(&key, g->v, g->n, sizeof(*g->v), cmp_got);
		if (!hit)
			continue;
		if (hit->name)
			err = add_plt(t, a, esz, hit->name);
		else
			err = add_abs_plt(t, a, esz, hit->addend);
		if (err)
			return err;
	}
	return 0;
}

static Elf_Scn *scn_named(Elf *e, size_t shstrndx, const char *want,
			  GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			return NULL;
		name = elf_strptr(e, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int x86_plt(struct mt_symtab *t, Elf *e, size_t shstrndx,
		   struct got_names *g)
{
	/* .plt.got jumps through slots that .rela.dyn fills; lld puts a
	 * static executable's IRELATIVE entries in .iplt, .rela.iplt */
	static const char *const rela[] = { ".rela.dyn", ".rela.iplt" };
	static const char *const plt[] = { ".plt.got", ".iplt" };
	GElf_Shdr sh;
	Elf_Scn *scn;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < 2; i++)
		if ((scn = scn_named(e, shstrndx, rela[i], &sh)))
			err = rela_names(e, scn, &sh, 1, g);
	if (!err && g->nirel)
		err = name_ifuncs(e, g);
	if (err || !g->n)
		return err;
	qsort(g->v, g->n, sizeof(*g->v), cmp_got);
	if ((scn = scn_named(e, shstrndx, ".plt.sec", &sh)) ||
	    (scn = scn_named(e, shstrndx, ".plt", &sh)))
		err = x86_entries(t, scn, &sh, g);
	for (i = 0; !err && i < 2; i++)
		if ((scn = scn_named(e, shstrndx, plt[i], &sh)))
			err = x86_entries(t, scn, &sh, g);
	return err;
}

static int read_plt(struct mt_symtab *t, Elf *e, size_t shstrndx)
{
	GElf_Ehdr eh;
	GElf_Shdr sh, rsh;
	Elf_Scn *scn, *rscn;
	struct got_names g = { NULL, 0, 0, 0 };
	int err = 0, x86;

	if (!gelf_getehdr(e, &eh))
		return MT_ECORRUPT;
	x86 = eh.e_machine == EM_X86_64;
	rscn = scn_named(e, shstrndx, ".rela.plt", &rsh);
	if (rscn)
		err = rela_names(e, rscn, &rsh, x86, &g);
	if (!err && x86) {
		err = x86_plt(t, e, shstrndx, &g);
	} else if (!err && eh.e_machine == EM_AARCH64 &&
		   (scn = scn_named(e, shstrndx, ".plt", &sh))) {
		size_t i; /* a 32-byte header, then 16 bytes per relocation */

		for (i = 0; !err && i < g.n && 32 + 16 * (i + 1) <= sh.sh_size; i++)
			err = add_plt(t, sh.sh_addr + 32 + 16 * i, 16,
				      g.v[i].name);
	}
	free(g.v);
	return err;
}

/* ---- functions from .eh_frame ---- */

#define PLT_SECTIONS 4

/* What read_elf notes of the sections for the FDEs. */
struct unwind_src {
	Elf_Scn *eh;               /* .eh_frame, or NULL */
	uint64_t eh_addr;
	uint64_t plt[PLT_SECTIONS][2]; /* the PLT sections: start, end */
	size_t nplt;
	uint64_t dbase;            /* .got.plt, else .got: DW_EH_PE_datarel */
	int has_dbase;             /* 2: .got.plt, 1: .got */
};

static void note_section(struct unwind_src *u, Elf_Scn *scn, const GElf_Shdr *sh,
			 const char *name)
{
	if (sh->sh_type == SHT_NOBITS)
		return;
	if (!strcmp(name, ".eh_frame")) {
		u->eh = scn;
		u->eh_addr = sh->sh_addr;
	} else if ((!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
		    !strcmp(name, ".plt.got") || !strcmp(name, ".iplt")) &&
		   u->nplt < PLT_SECTIONS) {
		u->plt[u->nplt][0] = sh->sh_addr;
		u->plt[u->nplt++][1] = sh->sh_addr + sh->sh_size;
	} else if (!strcmp(name, ".got.plt")) {
		u->dbase = sh->sh_addr;
		u->has_dbase = 2;
	} else if (!strcmp(name, ".got") && u->has_dbase < 2) {
		u->dbase = sh->sh_addr;
		u->has_dbase = 1;
	}
}

static int cmp_seg(const void *a, const void *b)
{
	const struct mt_seg *x = a, *y = b;

	return MT_CMP(x->vaddr, y->vaddr);
}

/* Whether [a, a + size) is inside the file bytes of the executable
 * segment that starts last at or below a; code: the executable segments,
 * n of them, by address (a file's do not overlap; a forged file's that do
 * lose FDEs, and a search stays a search however many it has). */
static int in_code(const struct mt_seg *code, size_t n, uint64_t a, uint64_t size)
{
	size_t lo = 0, hi = n;
	const struct mt_seg *sg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (code[mid].vaddr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	sg = &code[lo - 1];
	return a - sg->vaddr <= sg->filesz && size <= sg->filesz - (a - sg->vaddr);
}

/* Whether [a, a + size) overlaps a PLT section: the PLT's own FDE, whose
 * entries are named NAME@plt. */
static int in_plt(const struct unwind_src *u, uint64_t a, uint64_t size)
{
	size_t i;

	for (i = 0; i < u->nplt; i++)
		if (a < u->plt[i][1] && u->plt[i][0] - a < size)
			return 1;
	return 0;
}

/* t->fde from .eh_frame: 0, or MT_ENOMEM. */
static int read_fdes(struct mt_symtab *t, Elf *e, const struct unwind_src *u)
{
	struct mt_fdes all = MT_FDES_INIT;
	struct mt_ehframe_where w;
	struct mt_seg *code;
	uint64_t end = 0;
	Elf_Data *data;
	GElf_Ehdr eh;
	size_t i, out = 0, ncode = 0;
	int n;

	if (!u->eh || !gelf_getehdr(e, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	data = elf_getdata(u->eh, NULL);
	if (!data || !data->d_buf || !data->d_size) {
		(void)elf_errno(); /* beyond the file: no FDEs, no error */
		return 0;
	}
	w.addr = u->eh_addr;
	w.dbase = u->dbase;
	w.has_dbase = u->has_dbase != 0;
	w.ptr_size = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	w.machine = eh.e_machine;
	n = mt_ehframe_read(data->d_buf, data->d_size, &w, &all, &t->fde_bad_off);
	if (n == MT_ENOMEM)
		return n;
	if (n < 0) {
		t->fde_err = n;
		return 0;
	}
	if (!(code = malloc((t->nseg ? t->nseg : 1) * sizeof(*code)))) {
		mt_fdes_release(&all);
		return MT_ENOMEM;
	}
	for (i = 0; i < t->nseg; i++)
		if (t->seg[i].exec)
			code[ncode++] = t->seg[i];
	if (ncode)
		qsort(code, ncode, sizeof(*code), cmp_seg);
	for (i = 0; i < all.n; i++) {
		const struct mt_fde *f = &all.v[i];

		if (!in_code(code, ncode, f->start, f->size) || in_plt(u, f->start, f->size) ||
		    (out && f->start < end))
			continue;
		end = f->start + f->size;
		all.v[out++] = *f;
	}
	free(code);
	all.n = out;
	t->fde = all;
	return 0;
}

/* A symbol's end, not wrapping. */
static uint64_t sym_end(const struct mt_sym *s)
{
	return s->size > UINT64_MAX - s->addr ? UINT64_MAX : s->addr + s->size;
}

/* The index of the first symbol of t at or above addr (t->n: none). */
static size_t first_at(const struct mt_symtab *t, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int finish(struct mt_symtab *t);

int mt_symtab_add_fdes(struct mt_symtab *t, const char *file)
{
	size_t i, n0, len;
	uint64_t *reach = NULL;
	char *name;
	int err = 0;

	if (!t || !file)
		return MT_EINVAL;
	if (!t->fde.n)
		return (int)t->n;
	n0 = t->n;
	len = strlen(file);
	if (n0 && !(reach = malloc(n0 * sizeof(*reach))))
		return MT_ENOMEM;
	/* reach[i]: the greatest end of the symbols up to i */
	for (i = 0; i < n0; i++)
		reach[i] = i && reach[i - 1] > sym_end(&t->v[i]) ? reach[i - 1] : sym_end(&t->v[i]);
	name = malloc(len + sizeof("+0x") + 16);
	if (!name)
		err = MT_ENOMEM;
	for (i = 0; !err && i < t->fde.n; i++) {
		const struct mt_fde *f = &t->fde.v[i];
		size_t k = first_at(t, n0, f->start);
		GElf_Sym s;

		if ((k && reach[k - 1] > f->start) || (k < n0 && t->v[k].addr - f->start < f->size))
			continue; /* a symbol names (some of) it */
		memcpy(name, file, len);
		snprintf(name + len, sizeof("+0x") + 16, "+0x%" PRIx64, f->start);
		memset(&s, 0, sizeof(s));
		s.st_value = f->start;
		s.st_size = f->size;
		err = add(t, &s, name);
		if (!err)
			t->v[t->n - 1].bind = f->flags & MT_FDE_NOT_CALLED ? MT_SYM_FDE_PART :
					      MT_SYM_FDE;
	}
	free(name);
	free(reach);
	if (err) {
		for (i = n0; i < t->n; i++)
			free(t->v[i].name);
		t->n = n0;
		return err;
	}
	return t->n == n0 ? (int)t->n : finish(t);
}

static int is_go_section(const char *name)
{
	return !strcmp(name, ".gopclntab") || !strcmp(name, ".go.buildinfo") ||
	       !strcmp(name, ".note.go.buildid");
}

/* symbols_only: a debug file being merged (its other fields unused). */
static int read_elf(struct mt_symtab *t, Elf *e, uint64_t fsize,
		    int symbols_only)
{
	struct unwind_src u;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	int err;

	memset(&u, 0, sizeof(u));
	if (elf_kind(e) != ELF_K_ELF)
		return MT_EMAGIC;
	err = check_size(e, fsize);
	if (err)
		return err;
	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) != 0)
		return MT_ECORRUPT;
	t->etype = eh.e_type;
	t->entry = eh.e_entry;
	if (!symbols_only) {
		err = read_segments(t, e);
		if (err)
			return err;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return MT_ECORRUPT;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			return MT_ECORRUPT;
		if (!strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS)
			t->has_debug_info = 1;
		if (sh.sh_type == SHT_NOTE && !t->build_id_len)
			read_build_id(t, scn);
		if (!symbols_only) {
			note_section(&u, scn, &sh, name);
			if (!strcmp(name, ".gnu_debuglink") && !t->debuglink)
				err = read_debuglink(t, scn);
			else if (is_go_section(name))
				t->is_go = 1;
		}
		if (!err && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)) {
			if (sh.sh_type == SHT_SYMTAB)
				t->has_symtab = 1;
			err = read_table(t, e, scn, &sh);
		}
		if (err)
			return err;
	}
	if (elf_errno() != 0)
		return MT_ECORRUPT;
	if (symbols_only)
		return 0;
	err = read_plt(t, e, shstrndx);
	return err ? err : read_fdes(t, e, &u);
}

static int finish(struct mt_symtab *t)
{
	sort_unique(t);
	if (t->n > (size_t)0x7fffffff)
		return MT_ERANGE;
	return (int)t->n;
}

static int read_with(struct mt_symtab *t, Elf *e, uint64_t fsize)
{
	int err;

	if (!e) {
		/* libelf fails here only when it cannot read the file */
		if (!errno)
			errno = EIO;
		return MT_EIO;
	}
	err = read_elf(t, e, fsize, 0);
	elf_end(e);
	if (!err)
		err = finish(t);
	if (err < 0)
		mt_symtab_release(t);
	return err;
}

static int lib_ready(struct mt_symtab *t)
{
	if (!t || t->n || t->nseg || t->etype)
		return MT_EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return MT_EINVAL;
	(void)elf_errno(); /* clear */
	errno = 0;
	return 0;
}

int mt_symtab_read(struct mt_symtab *t, int fd)
{
	struct stat st;
	int err = lib_ready(t);

	if (err)
		return err;
	if (fstat(fd, &st) != 0)
		return MT_EIO;
	return read_with(t, elf_begin(fd, ELF_C_READ_MMAP, NULL), (uint64_t)st.st_size);
}

int mt_symtab_read_mem(struct mt_symtab *t, const void *image, size_t size)
{
	int err = lib_ready(t);

	if (err)
		return err;
	if (size < EI_NIDENT || memcmp(image, ELFMAG, SELFMAG))
		return MT_EMAGIC;
	/* ELF_C_READ: libelf does not write to the image */
	return read_with(t, elf_memory((char *)(uintptr_t)image, size), size);
}

int mt_symtab_merge(struct mt_symtab *t, int fd)
{
	struct mt_symtab d = MT_SYMTAB_INIT;
	struct stat st;
	size_t i, need;
	Elf *e;
	int err;

	if (!t || elf_version(EV_CURRENT) == EV_NONE)
		return MT_EINVAL;
	(void)elf_errno();
	errno = 0;
	if (fstat(fd, &st) != 0)
		return MT_EIO;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return errno = errno ? errno : EIO, MT_EIO;
	err = read_elf(&d, e, (uint64_t)st.st_size, 1);
	elf_end(e);
	if (!err && t->build_id_len && d.build_id_len &&
	    (t->build_id_len != d.build_id_len ||
	     memcmp(t->build_id, d.build_id, d.build_id_len)))
		err = MT_EMISMATCH;
	need = t->n + d.n;
	if (!err && need > t->cap) {
		struct mt_sym *v = realloc(t->v, need * sizeof(*v));

		if (!v) {
			err = MT_ENOMEM;
		} else {
			mt_prefault(v + t->n, (need - t->n) * sizeof(*v)); /* filled next */
			t->v = v;
			t->cap = need;
		}
	}
	if (err) {
		mt_symtab_release(&d);
		return err;
	}
	for (i = 0; i < d.n; i++)
		t->v[t->n++] = d.v[i];
	d.n = 0;
	if (d.has_debug_info)
		t->has_debug_info = 1;
	mt_symtab_release(&d);
	return finish(t);
}

/* ---- separate debug files ---- */

/* The CRC-32 of the size bytes of fd (its size when it was opened: a
 * file that grows meanwhile is not read on for ever). */
static int crc_matches(int fd, off_t size, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, Z_NULL, 0);
	off_t at = 0;
	ssize_t got = 0;

	while (at < size) {
		size_t n = size - at < (off_t)sizeof(buf) ? (size_t)(size - at) : sizeof(buf);

		got = pread(fd, buf, n, at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		crc = crc32(crc, buf, (uInt)got);
		at += got;
	}
	return at == size && (uint32_t)crc == want;
}

static int build_id_matches(const struct mt_symtab *t, int fd)
{
	struct mt_symtab d = MT_SYMTAB_INIT;
	Elf *e;
	int ok = 0;

	/* mt_symtab_find_debug_at() may come before any read: libelf
	 * begins nothing until told its version */
	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return 0;
	if (elf_kind(e) == ELF_K_ELF) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;

		while ((scn = elf_nextscn(e, scn)) != NULL && !d.build_id_len)
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE)
				read_build_id(&d, scn);
		ok = d.build_id_len == t->build_id_len &&
		     !memcmp(d.build_id, t->build_id, d.build_id_len);
	}
	elf_end(e);
	return ok;
}

/* mode 0: check the build-id; 1: check the debuglink CRC. Only a regular
 * file is opened (mt_open_regular): a candidate is a path the traced
 * process may have chosen. */
static int try_path(const struct mt_symtab *t, int root, char *path, int mode,
		    char **found)
{
	struct stat st;
	int fd = mt_open_regular(root, path, &st);

	if (fd < 0) {
		free(path);
		return MT_ENOENT;
	}
	if (mode ? crc_matches(fd, st.st_size, t->debuglink_crc) : build_id_matches(t, fd)) {
		if (found)
			*found = path;
		else
			free(path);
		return fd;
	}
	close(fd);
	free(path);
	return MT_ENOENT;
}

static int try_build_id(const struct mt_symtab *t, int root, const char *dir,
			char **found)
{
	char hex[2 * MT_BUILD_ID_MAX + 1], *path;
	size_t i;

	if (!t->build_id_len)
		return MT_ENOENT;
	for (i = 0; i < t->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", t->build_id[i]);
	if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2) < 0)
		return MT_ENOMEM;
	return try_path(t, root, path, 0, found);
}

static int try_link(const struct mt_symtab *t, int root, const char *a, const char *b,
		    const char *c, char **found)
{
	char *path;

	if (asprintf(&path, "%s%s%s%s", a, b, c, t->debuglink) < 0)
		return MT_ENOMEM;
	return try_path(t, root, path, 1, found);
}

int mt_symtab_find_debug(const struct mt_symtab *t, const char *path,
			 const char *const *dirs, size_t ndirs, char **found)
{
	return mt_symtab_find_debug_at(t, MT_ROOT_OWN, path, dirs, ndirs, found);
}

int mt_symtab_find_debug_at(const struct mt_symtab *t, int root, const char *path,
			    const char *const *dirs, size_t ndirs, char **found)
{
	char *dir;
	const char *slash;
	size_t i;
	int fd = MT_ENOENT;

	for (i = 0; i < ndirs && fd == MT_ENOENT; i++) {
		fd = try_build_id(t, root, dirs[i], found);
		if (fd == MT_ENOENT && t->debuglink)
			fd = try_link(t, root, dirs[i], "/", "", found);
	}
	if (fd == MT_ENOENT)
		fd = try_build_id(t, root, "/usr/lib/debug", found);
	if (fd != MT_ENOENT || !t->debuglink)
		return fd;
	slash = strrchr(path, '/');
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return MT_ENOMEM;
	if (slash && slash == path)
		dir[0] = '\0'; /* a file in / */
	fd = try_link(t, root, dir, "/", "", found);
	if (fd == MT_ENOENT)
		fd = try_link(t, root, dir, "/.debug/", "", found);
	if (fd == MT_ENOENT && dir[0] == '/')
		fd = try_link(t, root, "/usr/lib/debug", dir, "/", found);
	free(dir);
	return fd;
}

/* ---- perf maps ---- */

static int hex_field(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	char *end;
	unsigned long long x;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return -1;
	errno = 0;
	x = strtoull(p, &end, 16);
	if (errno || (*end != ' ' && *end != '\t'))
		return -1;
	*v = x;
	*pp = end;
	return 0;
}

static int perfmap_line(struct mt_symtab *t, char *line)
{
	const char *p = line;
	GElf_Sym s;
	uint64_t start, size;
	size_t len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (!len)
		return 0;
	if (hex_field(&p, &start) || hex_field(&p, &size))
		return MT_ESYNTAX;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return MT_ESYNTAX;
	memset(&s, 0, sizeof(s));
	s.st_value = start;
	s.st_size = size;
	if (add(t, &s, p))
		return MT_ENOMEM;
	t->v[t->n - 1].bind = MT_SYM_JIT;
	return 0;
}

int mt_symtab_read_perfmap(struct mt_symtab *t, int fd, size_t *bad_line)
{
	size_t first = t->n, lineno = 0, i;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int fd2 = dup(fd), err = 0;

	if (fd2 < 0 || !(f = fdopen(fd2, "r"))) {
		if (fd2 >= 0)
			close(fd2);
		return MT_EIO;
	}
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)len))
			err = MT_ESYNTAX;
		else
			err = perfmap_line(t, line);
	}
	if (!err && ferror(f))
		err = MT_EIO;
	free(line);
	fclose(f);
	if (err) {
		for (i = first; i < t->n; i++)
			free(t->v[i].name);
		t->n = first;
		if (err == MT_ESYNTAX && bad_line)
			*bad_line = lineno;
		return err;
	}
	return finish(t);
}

/* ---- addresses ---- */

int mt_symtab_file_offset(const struct mt_symtab *t, uint64_t vaddr,
			  uint64_t *off)
{
	size_t i;

	for (i = 0; i < t->nseg; i++) {
		const struct mt_seg *sg = &t->seg[i];

		if (vaddr >= sg->vaddr && vaddr - sg->vaddr < sg->filesz) {
			*off = vaddr - sg->vaddr + sg->offset;
			return 0;
		}
	}
	return MT_ERANGE;
}

int mt_symtab_bias(const struct mt_symtab *t, uint64_t start, uint64_t pgoff,
		   uint64_t *bias)
{
	const struct mt_seg *best = NULL;
	int rank = 0;
	size_t i;

	/* the loader maps each segment from its offset rounded down to a
	 * page: a segment whose rounded offset is pgoff is the one mapped
	 * there (an executable one first: the previous segment may end in
	 * the same page); failing that, one whose bytes hold pgoff */
	for (i = 0; i < t->nseg; i++) {
		const struct mt_seg *sg = &t->seg[i];
		uint64_t page = sg->offset & ~(uint64_t)0xfff;
		int r = 0;

		if (page == pgoff)
			r = sg->exec ? 3 : 2;
		else if (pgoff >= page && pgoff - sg->offset < (sg->filesz ? sg->filesz : 1))
			r = 1;
		if (r > rank) {
			rank = r;
			best = sg;
		}
	}
	if (!best)
		return MT_ERANGE;
	*bias = start - pgoff - (best->vaddr - best->offset);
	return 0;
}

const struct mt_sym *mt_symtab_lookup(const struct mt_symtab *t, uint64_t addr)
{
	const struct mt_sym *best = NULL;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct mt_sym *s = &t->v[i];

		if (s->addr > addr)
			break; /* sorted by address */
		if (s->size ? addr - s->addr >= s->size : addr != s->addr)
			continue;
		if (!best || s->addr > best->addr ||
		    (best->bind == MT_SYM_LOCAL && s->bind != MT_SYM_LOCAL))
			best = s;
	}
	return best;
}

const char *mt_sym_bind_name(int bind)
{
	switch (bind) {
	case MT_SYM_LOCAL:
		return "local";
	case MT_SYM_GLOBAL:
		return "global";
	case MT_SYM_WEAK:
		return "weak";
	case MT_SYM_UNIQUE:
		return "unique";
	case MT_SYM_PLT:
		return "plt";
	case MT_SYM_JIT:
		return "jit";
	case MT_SYM_FDE:
		return "fde";
	case MT_SYM_FDE_PART:
		return "fde-part";
	}
	return "?";
}
