#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "symtab.h"
#include "banned.h"

void mt_symtab_init(struct mt_symtab *t)
{
	t->v = NULL;
	t->n = t->cap = 0;
}

void mt_symtab_release(struct mt_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
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

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void sort_unique(struct mt_symtab *t)
{
	size_t i, out = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
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
static int check_size(Elf *e, int fd)
{
	GElf_Ehdr eh;
	struct stat st;
	uint64_t shnum;

	if (!gelf_getehdr(e, &eh))
		return MT_ECORRUPT;
	/* e_shnum 0 with headers present: the count is in header 0 */
	shnum = eh.e_shnum ? eh.e_shnum : eh.e_shoff ? 1 : 0;
	if (fstat(fd, &st) != 0)
		return MT_EIO;
	if (!shnum)
		return 0;
	if (eh.e_shoff > (uint64_t)st.st_size || !eh.e_shentsize ||
	    shnum > ((uint64_t)st.st_size - eh.e_shoff) / eh.e_shentsize)
		return MT_ECORRUPT;
	return 0;
}

static int read_elf(struct mt_symtab *t, Elf *e, int fd)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int err;

	if (elf_kind(e) != ELF_K_ELF)
		return MT_EMAGIC;
	err = check_size(e, fd);
	if (err)
		return err;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return MT_ECORRUPT;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return MT_ECORRUPT;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		err = read_table(t, e, scn, &sh);
		if (err)
			return err;
	}
	if (elf_errno() != 0)
		return MT_ECORRUPT;
	return 0;
}

int mt_symtab_read(struct mt_symtab *t, int fd)
{
	Elf *e;
	int err;

	if (!t || t->n)
		return MT_EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return MT_EINVAL;
	(void)elf_errno(); /* clear */
	errno = 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		/* libelf fails here only when it cannot read the file */
		if (!errno)
			errno = EIO;
		return MT_EIO;
	}
	err = read_elf(t, e, fd);
	elf_end(e);
	if (err) {
		mt_symtab_release(t);
		return err;
	}
	sort_unique(t);
	if (t->n > (size_t)0x7fffffff) {
		mt_symtab_release(t);
		return MT_ERANGE;
	}
	return (int)t->n;
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
	}
	return "?";
}
