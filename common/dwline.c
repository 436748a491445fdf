#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "dwline.h"
#include "err.h"
#include "intern.h"
#include "banned.h"

struct cu {
	Dwarf_Die die;
};

struct mt_dwlines {
	Dwarf *dw;
	struct cu *cus;   /* every compilation unit, for files without
			   * .debug_aranges (clang, some DWARF 5) */
	size_t ncus;
	int cus_read;
	struct mt_intern paths; /* joined paths handed out */
};

int mt_dwlines_open(struct mt_dwlines **out, int fd)
{
	struct mt_dwlines *d;
	Dwarf *dw;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return MT_EINVAL;
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw)
		return MT_ENOENT; /* libdw's codes are private: no DWARF, or
				   * none it can use */
	d = calloc(1, sizeof(*d));
	if (!d) {
		dwarf_end(dw);
		return MT_ENOMEM;
	}
	d->dw = dw;
	mt_intern_init(&d->paths);
	*out = d;
	return 0;
}

static int read_cus(struct mt_dwlines *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	d->cus_read = 1;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		struct cu *v;

		v = realloc(d->cus, (d->ncus + 1) * sizeof(*v));
		if (!v)
			return MT_ENOMEM;
		d->cus = v;
		if (dwarf_offdie(d->dw, off + hsize, &v[d->ncus].die))
			d->ncus++;
		off = next;
	}
	return 0;
}

static int find_cu(struct mt_dwlines *d, uint64_t addr, Dwarf_Die *cu)
{
	size_t i;
	int err;

	if (dwarf_addrdie(d->dw, addr, cu))
		return 0;
	if (!d->cus_read && (err = read_cus(d)) != 0)
		return err;
	for (i = 0; i < d->ncus; i++) {
		if (dwarf_haspc(&d->cus[i].die, addr) == 1) {
			*cu = d->cus[i].die;
			return 0;
		}
	}
	return MT_ENOENT;
}

int mt_dwlines_lookup(struct mt_dwlines *d, uint64_t addr, const char **file,
		      int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *row;
	const char *src, *dir;
	uint32_t id;
	int err, n;

	err = find_cu(d, addr, &cu);
	if (err)
		return err;
	row = dwarf_getsrc_die(&cu, addr);
	if (!row)
		return MT_ENOENT;
	src = dwarf_linesrc(row, NULL, NULL);
	if (!src || dwarf_lineno(row, &n) != 0)
		return MT_ENOENT;
	*line = n;
	dir = src[0] == '/' ? NULL : dwarf_formstring(
		dwarf_attr(&cu, DW_AT_comp_dir, &(Dwarf_Attribute){ 0 }));
	if (dir && *dir) {
		size_t a = strlen(dir), b = strlen(src);
		char *full = malloc(a + b + 2);

		if (!full)
			return MT_ENOMEM;
		memcpy(full, dir, a);
		full[a] = '/';
		memcpy(full + a + 1, src, b + 1);
		err = mt_intern_get(&d->paths, full, a + b + 1, &id, NULL);
		free(full);
		if (err)
			return err;
		src = mt_intern_str(&d->paths, id, NULL);
	}
	*file = src;
	return 0;
}

int mt_dwlines_addr_of(struct mt_dwlines *d, const char *file, int line,
		       int col, uint64_t *addr)
{
	Dwarf_Line **rows = NULL;
	size_t n = 0, i;
	uint64_t best = UINT64_MAX;

	if (line <= 0 || col < 0 ||
	    dwarf_getsrc_file(d->dw, file, line, col, &rows, &n) != 0)
		return MT_ENOENT;
	for (i = 0; i < n; i++) {
		Dwarf_Addr a;
		int ln, c = 0;

		/* libdw may give the nearest line after a line without code */
		if (dwarf_lineno(rows[i], &ln) == 0 && ln == line &&
		    (!col || (dwarf_linecol(rows[i], &c) == 0 && c == col)) &&
		    dwarf_lineaddr(rows[i], &a) == 0 && a < best)
			best = a;
	}
	free(rows);
	if (best == UINT64_MAX)
		return MT_ENOENT;
	*addr = best;
	return 0;
}

void mt_dwlines_free(struct mt_dwlines *d)
{
	if (!d)
		return;
	dwarf_end(d->dw);
	free(d->cus);
	mt_intern_release(&d->paths);
	free(d);
}
