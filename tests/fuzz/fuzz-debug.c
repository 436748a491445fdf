/*
 * libFuzzer harness for the debug-file search (common/symtab.c:
 * mt_symtab_find_debug, mt_symtab_find_debug_at) over the build-id and
 * .gnu_debuglink of a fuzzed ELF image: whatever they name, the search
 * must end, in a scratch directory (made once) that holds what a hostile
 * process may put at those names: a FIFO (whose open waited for a writer
 * for ever), a symbolic link to /dev/zero (whose CRC read never ended), a
 * directory, a regular file, a link out of the root, a .build-id tree whose
 * file is a FIFO. A blocking or endless read shows as a timeout (the run
 * script's -timeout). What it opens must be a regular file.
 *
 * The first byte of the input steers: its low three bits (when not 7)
 * pick a scratch name as the debuglink in place of the image's, with the
 * CRC of the next four bytes; bit 3 gives the table the build-id ab cd ef,
 * whose .build-id file is a FIFO. The rest is the ELF image
 * (mt_symtab_read_mem; on error the table is empty and searched for all
 * that).
 *
 * Built and run by tests/fuzz/run, which reads the two lines below.
 * fuzz-link: common/symtab.c -lelf -lz
 * fuzz-seed: /bin/true
 */
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "symtab.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

static char scratch[] = "/tmp/fuzz-debug.XXXXXX";
static int root = -1;

static const char *const names[] = {
	"fifo", "zero", "dir", "file", "missing", "../fifo", "up"
};

/* scratch/rel, in a static buffer */
static const char *at(const char *rel)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	return path;
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	require(f);
	fputs(text, f);
	fclose(f);
}

static void cleanup(void)
{
	static const char *const rm[] = {
		".debug/fifo", ".debug/zero", ".debug/file", ".build-id/ab/cdef.debug",
		"usr/lib/debug/.build-id/ab/cdef.debug", "usr/lib/debug/.build-id/ab",
		"usr/lib/debug/.build-id", "usr/lib/debug", "usr/lib", "usr", ".build-id/ab",
		".build-id", ".debug", "dir", "fifo", "zero", "up", "file"
	};
	size_t i;

	for (i = 0; i < sizeof(rm) / sizeof(rm[0]); i++)
		remove(at(rm[i]));
	rmdir(scratch);
}

/* The scratch directory (removed at exit): each of names, in it and in .debug/; a FIFO as
 * the build-id file of ab cd ef, in it and in its usr/lib/debug (for the
 * search in it as a root). */
static void setup(void)
{
	static const char *const dirs[] = {
		".debug", ".build-id", ".build-id/ab", "usr", "usr/lib", "usr/lib/debug",
		"usr/lib/debug/.build-id", "usr/lib/debug/.build-id/ab", "dir"
	};
	size_t i;

	require(mkdtemp(scratch));
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		require(!mkdir(at(dirs[i]), 0700));
	require(!mkfifo(at("fifo"), 0600) && !mkfifo(at(".debug/fifo"), 0600));
	require(!mkfifo(at(".build-id/ab/cdef.debug"), 0600));
	require(!mkfifo(at("usr/lib/debug/.build-id/ab/cdef.debug"), 0600));
	require(!symlink("/dev/zero", at("zero")) && !symlink("/dev/zero", at(".debug/zero")));
	require(!symlink("../../../../../../../../dev/zero", at("up")));
	put("file", "a regular file");
	put(".debug/file", "another");
	root = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
	require(root >= 0);
	atexit(cleanup);
}

/* What the search found: a regular file, named. */
static void check(int fd, char *found)
{
	struct stat st;

	require(fd >= 0 || fd == MT_ENOENT || fd == MT_ENOMEM);
	if (fd < 0)
		return;
	require(found && found[0]);
	require(!fstat(fd, &st) && S_ISREG(st.st_mode));
	close(fd);
	free(found);
}

/* The table as the first byte says. */
static void steer(struct mt_symtab *t, const uint8_t *data, size_t size)
{
	uint8_t c = data[0];
	uint32_t crc = 0;

	if ((c & 7) != 7) {
		if (size >= 5)
			crc = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
			      (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
		free(t->debuglink);
		t->debuglink = strdup(names[c & 7]);
		require(t->debuglink);
		t->debuglink_crc = crc;
	}
	if (c & 8) {
		static const unsigned char id[] = { 0xab, 0xcd, 0xef };

		memcpy(t->build_id, id, sizeof(id));
		t->build_id_len = sizeof(id);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_symtab t = MT_SYMTAB_INIT;
	const char *dirs[1];
	char lib[PATH_MAX], *found = NULL;
	int n, fd;

	if (root < 0)
		setup();
	if (!size)
		return 0;
	n = mt_symtab_read_mem(&t, data + 1, size - 1);
	require(n >= 0 || (n >= MT_ERR_MIN && t.n == 0));
	steer(&t, data, size);

	snprintf(lib, sizeof(lib), "%s/lib.so", scratch);
	dirs[0] = scratch;
	fd = mt_symtab_find_debug(&t, lib, dirs, 1, &found);
	check(fd, found);
	found = NULL;
	/* the same names in the scratch directory as a process's root */
	dirs[0] = "/";
	fd = mt_symtab_find_debug_at(&t, root, "/lib.so", dirs, 1, &found);
	check(fd, found);
	mt_symtab_release(&t);
	return 0;
}
