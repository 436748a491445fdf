/*
 * Unit tests for the symbol cache's entries (mt-record/symentry.h): the
 * tables mt_symfile_read() makes of real files (glibc with libc6-dbg's
 * symbols merged when installed, python3 with its FDE functions, this
 * test) written and read back the same, field by field; and bytes that
 * are not an entry (each byte changed, cut short, out of order) refused
 * or read as a table that keeps the table's order, never past the end
 * (ASan).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../mt-record/symentry.h"
#include "err.h"
#include "unit.h"
#include "banned.h"

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_same(const struct mt_symfile *a, const struct mt_symfile *b)
{
	size_t i;

	CHECK_EQ(a->t.n, b->t.n);
	for (i = 0; i < a->t.n && i < b->t.n; i++) {
		CHECK(a->t.v[i].addr == b->t.v[i].addr && a->t.v[i].size == b->t.v[i].size &&
		      a->t.v[i].bind == b->t.v[i].bind);
		CHECK_STR(a->t.v[i].name, b->t.v[i].name);
	}
	CHECK_EQ(a->t.nseg, b->t.nseg);
	for (i = 0; i < a->t.nseg && i < b->t.nseg; i++) /* by field: the padding differs */
		CHECK(a->t.seg[i].vaddr == b->t.seg[i].vaddr && a->t.seg[i].memsz == b->t.seg[i].memsz &&
		      a->t.seg[i].offset == b->t.seg[i].offset &&
		      a->t.seg[i].filesz == b->t.seg[i].filesz && a->t.seg[i].exec == b->t.seg[i].exec);
	CHECK_EQ(a->t.fde.n, b->t.fde.n);
	for (i = 0; i < a->t.fde.n && i < b->t.fde.n; i++)
		CHECK(a->t.fde.v[i].start == b->t.fde.v[i].start &&
		      a->t.fde.v[i].size == b->t.fde.v[i].size &&
		      a->t.fde.v[i].flags == b->t.fde.v[i].flags);
	CHECK_EQ(a->t.fde.skipped, b->t.fde.skipped);
	CHECK_EQ(a->t.etype, b->t.etype);
	CHECK_EQ(a->t.entry, b->t.entry);
	CHECK_EQ(a->t.has_symtab, b->t.has_symtab);
	CHECK_EQ(a->t.has_debug_info, b->t.has_debug_info);
	CHECK_EQ(a->t.is_go, b->t.is_go);
	CHECK_EQ(a->t.build_id_len, b->t.build_id_len);
	CHECK(!memcmp(a->t.build_id, b->t.build_id, sizeof(a->t.build_id)));
	CHECK(same_str(a->t.debuglink, b->t.debuglink));
	CHECK_EQ(a->t.debuglink_crc, b->t.debuglink_crc);
	CHECK_EQ(a->t.fde_err, b->t.fde_err);
	CHECK_EQ(a->t.fde_bad_off, b->t.fde_bad_off);
	CHECK(same_str(a->debug, b->debug));
	CHECK_EQ(a->debug_err, b->debug_err);
	CHECK_EQ(b->dwfd, -1);
}

/* f's entry, or NULL; *n its size. */
static char *entry_of(const struct mt_symfile *f, size_t *n)
{
	struct mt_buf b;

	mt_buf_init(&b);
	CHECK_EQ(symentry_write(f, &b), 0);
	return mt_buf_detach(&b, n);
}

static void test_real_files(void)
{
	const char *files[] = { "/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/python3",
				"/proc/self/exe" };
	size_t k, n;
	int read = 0;

	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		struct mt_symfile f = MT_SYMFILE_INIT, g;
		int fd = open(files[k], O_RDONLY | O_CLOEXEC);
		char *e;

		if (fd < 0)
			continue;
		CHECK(mt_symfile_read(&f, fd, files[k], NULL, 0, 0) > 0);
		close(fd);
		e = entry_of(&f, &n);
		CHECK(e != NULL);
		poison(&g);
		CHECK_EQ(symentry_read(e, n, &g), 0);
		check_same(&f, &g);
		mt_symfile_release(&g);
		free(e);
		mt_symfile_release(&f);
		read++;
	}
	CHECK(read >= 2);
}

/* Every byte of libc's entry changed in turn (every 97th, and all of the
 * head): refused, or a table in order; never read past the end. Cut
 * short anywhere: refused. */
static void test_damaged(void)
{
	struct mt_symfile f = MT_SYMFILE_INIT, g;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	size_t n, i, j;
	char *e;

	CHECK(fd >= 0);
	CHECK(mt_symfile_read(&f, fd, "/proc/self/exe", NULL, 0, 0) > 0);
	close(fd);
	e = entry_of(&f, &n);
	for (i = 0; i < n; i += i < 400 ? 1 : 97) {
		char *c = malloc(n);

		memcpy(c, e, n);
		c[i] ^= 0x5a;
		if (symentry_read(c, n, &g) == 0) {
			for (j = 1; j < g.t.n; j++)
				CHECK(g.t.v[j - 1].addr < g.t.v[j].addr ||
				      (g.t.v[j - 1].addr == g.t.v[j].addr &&
				       (g.t.v[j - 1].size < g.t.v[j].size ||
					(g.t.v[j - 1].size == g.t.v[j].size &&
					 strcmp(g.t.v[j - 1].name, g.t.v[j].name) < 0))));
			for (j = 0; j < g.t.n; j++)
				CHECK(g.t.v[j].name && *g.t.v[j].name);
			mt_symfile_release(&g);
		} else {
			CHECK(g.t.n == 0 && g.t.v == NULL && g.debug == NULL);
		}
		free(c);
	}
	for (i = 0; i < n; i += i < 200 ? 1 : 61) {
		char *c = malloc(i ? i : 1);

		memcpy(c, e, i);
		CHECK_EQ(symentry_read(c, i, &g), MT_ECORRUPT);
		free(c);
	}
	/* two symbols swapped: out of order */
	if (f.t.n >= 2) {
		struct mt_sym s = f.t.v[0];
		char *c;
		size_t m;

		f.t.v[0] = f.t.v[1];
		f.t.v[1] = s;
		c = entry_of(&f, &m);
		CHECK_EQ(symentry_read(c, m, &g), MT_ECORRUPT);
		free(c);
		f.t.v[1] = f.t.v[0];
		f.t.v[0] = s;
	}
	free(e);
	mt_symfile_release(&f);
}

int main(void)
{
	RUN(test_real_files);
	RUN(test_damaged);
	return unit_done();
}
