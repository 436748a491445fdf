/* Unit tests for common/procsyms (a process's mappings and its files'
 * symbols, read from this test's own process) and mt_symfile. */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "procsyms.h"
#include "unit.h"
#include "banned.h"

int procsyms_probe(int x);
__attribute__((noinline)) int procsyms_probe(int x)
{
	return x * 3 + 1;
}

/* This program's path, as the maps name it. */
static const char *self_exe(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	path[n > 0 ? n : 0] = '\0';
	return path;
}

static void test_self(void)
{
	struct mt_procsyms ps;
	const struct mt_procmap *m;
	const struct mt_sym *s;
	struct mt_procfile *f;
	uint64_t at = (uint64_t)(uintptr_t)&procsyms_probe, rt = 0;
	char link[MT_PROCSYMS_LINK_SIZE], want[MT_PROCSYMS_LINK_SIZE];
	int i, n;

	poison(&ps);
	mt_procsyms_init(&ps);
	CHECK(ps.maps == NULL && ps.nmaps == 0 && ps.nfiles == 0);
	n = mt_procsyms_read(&ps, getpid());
	CHECK(n >= 2); /* this program, libc or the vdso */
	CHECK_EQ(ps.nfiles, n);
	i = mt_procsyms_find(&ps, self_exe());
	CHECK(i >= 0);
	if (i < 0)
		goto out;
	f = &ps.files[i];
	CHECK_STR(f->path, self_exe());
	CHECK(ps.maps[f->map].exec);
	CHECK_EQ(ps.maps[f->map].file, i);
	CHECK_EQ(f->start, ps.maps[f->map].start);
	CHECK_EQ(f->loaded, 0);
	CHECK_EQ(mt_procsyms_runtime(&ps, ps.nfiles, &f->sym.t, 0, &rt), MT_EINVAL);
	/* an empty table: no segment, no bias */
	CHECK_EQ(mt_procsyms_runtime(&ps, (size_t)i, &f->sym.t, 0, &rt), MT_ENOENT);

	n = mt_procsyms_load(&ps, (size_t)i, NULL, 0, 0);
	CHECK(n > 0);
	CHECK_EQ(f->loaded, 1);
	CHECK_EQ(mt_procsyms_load(&ps, (size_t)i, NULL, 0, 0), n); /* once */
	CHECK_EQ(f->placed, 1);
	CHECK(f->code_end >= f->end);
	CHECK_EQ(f->sym.dwfd, -1);
	/* the function's runtime address, through the bias */
	s = mt_symtab_lookup(&f->sym.t, at - f->bias);
	CHECK(s != NULL);
	if (s) {
		CHECK_STR(s->name, "procsyms_probe");
		CHECK_EQ(s->addr + f->bias, at);
		CHECK_EQ(mt_procsyms_runtime(&ps, (size_t)i, &f->sym.t, s->addr, &rt), 0);
		CHECK_EQ(rt, at);
	}
	CHECK_EQ(mt_procsyms_runtime(&ps, (size_t)i, &f->sym.t, UINT64_MAX / 2, &rt),
		 MT_ENOENT);

	/* the first mapping of the file, whatever its permissions */
	m = mt_procsyms_map_of(&ps, self_exe());
	CHECK(m != NULL && m <= &ps.maps[f->map]);
	mt_procsyms_link(&ps, &ps.maps[f->map], link);
	snprintf(want, sizeof(want), "/proc/%d/map_files/%llx-%llx", (int)getpid(),
		 (unsigned long long)f->start, (unsigned long long)f->end);
	CHECK_STR(link, want);
out:
	mt_procsyms_release(&ps);
	CHECK(ps.maps == NULL && ps.files == NULL && ps.nfiles == 0);
}

static void test_vdso(void)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	int i;

	CHECK(mt_procsyms_read(&ps, getpid()) > 0);
	i = mt_procsyms_find(&ps, "[vdso]");
	if (i >= 0) { /* every x86-64 and arm64 kernel maps one */
		CHECK_EQ(ps.files[i].vdso, 1);
		CHECK(mt_procsyms_load(&ps, (size_t)i, NULL, 0, 0) > 0);
		CHECK_EQ(ps.files[i].placed, 1);
	}
	mt_procsyms_release(&ps);
}

static void test_errors(void)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	size_t k;
	int n;

	/* no such process: pids stop below 2^22 */
	CHECK_EQ(mt_procsyms_read(&ps, 0x3ffffff0), MT_ENOENT);
	CHECK(ps.maps == NULL && ps.nfiles == 0);
	n = mt_procsyms_read(&ps, getpid());
	CHECK(n > 0);
	CHECK_EQ(mt_procsyms_find(&ps, "/no/such/file"), MT_ENOENT);
	CHECK(mt_procsyms_map_of(&ps, "/no/such/file") == NULL);
	CHECK_EQ(mt_procsyms_load(&ps, (size_t)n, NULL, 0, 0), MT_EINVAL);
	/* anonymous and non-executable mappings have no file */
	for (k = 0; k < ps.nmaps; k++)
		if (!ps.maps[k].exec || !ps.maps[k].path[0])
			CHECK_EQ(ps.maps[k].file, MT_PROCSYMS_NOFILE);
	mt_procsyms_release(&ps);
}

static void test_symfile(void)
{
	struct mt_symfile f;
	int fd;

	poison(&f);
	mt_symfile_init(&f);
	CHECK(f.debug == NULL && f.debug_err == 0 && f.dwfd == -1 && f.t.n == 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK_EQ(mt_symfile_read(&f, fd, "/dev/null", NULL, 0, 0), MT_EMAGIC);
	CHECK_EQ(f.t.n, 0);
	close(fd);
	/* this program is built with -g: its DWARF is its own */
	fd = open(self_exe(), O_RDONLY | O_CLOEXEC);
	CHECK(mt_symfile_read(&f, fd, self_exe(), NULL, 0, MT_SYMFILE_DWARF) > 0);
	CHECK(f.t.has_symtab && f.t.has_debug_info);
	CHECK(f.dwfd >= 0 && f.dwfd != fd);
	CHECK(fcntl(f.dwfd, F_GETFD) & FD_CLOEXEC);
	CHECK(f.debug == NULL);
	close(fd);
	mt_symfile_release(&f);
	CHECK(f.dwfd == -1 && f.t.n == 0);
}

int main(void)
{
	RUN(test_self);
	RUN(test_vdso);
	RUN(test_errors);
	RUN(test_symfile);
	return unit_done();
}
