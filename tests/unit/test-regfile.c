/* Unit tests for common/regfile (mt_open_regular, mt_proc_root) and the
 * debug-file search that opens its candidates with it
 * (mt_symtab_find_debug_at), in a scratch directory: a FIFO, a link to
 * /dev/zero, a directory, a file too large, files in a root of their
 * own. A FIFO's open that waited, or a read of /dev/zero, would hang the
 * test. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "err.h"
#include "regfile.h"
#include "symtab.h"
#include "unit.h"
#include "banned.h"

static char dir[] = "/tmp/test-regfile.XXXXXX";

/* dir/name, in a static buffer. */
static const char *in_dir(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(in_dir(name), "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int setup(void)
{
	if (!mkdtemp(dir))
		return -1;
	put("file", "hello\n");
	if (mkfifo(in_dir("fifo"), 0600) || symlink("/dev/zero", in_dir("zero")) ||
	    mkdir(in_dir("sub"), 0700) || mkdir(in_dir("sub/lib"), 0700) ||
	    symlink("/lib/target", in_dir("sub/abs")) ||
	    symlink("../../../../file", in_dir("sub/lib/up")))
		return -1;
	put("sub/lib/target", "in the root\n");
	return 0;
}

static void cleanup(void)
{
	static const char *const names[] = {
		"sub/lib/x.debug", "sub/lib/up", "sub/lib/target", "sub/lib/lib.so",
		"sub/abs", "sub/lib", "sub", "big", "file", "fifo", "zero", "x.debug"
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		remove(in_dir(names[i]));
	rmdir(dir);
}

static void test_regular(void)
{
	struct stat st;
	int fd = mt_open_regular(MT_ROOT_OWN, in_dir("file"), &st);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(st.st_size, 6);
	CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	close(fd);
	fd = mt_open_regular(MT_ROOT_OWN, in_dir("file"), NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

/* Nothing but a regular file, and nothing is opened for the others: a
 * FIFO's open would wait here for a writer. */
static void test_not_regular(void)
{
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, in_dir("fifo"), NULL), MT_ENOTREG);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, in_dir("zero"), NULL), MT_ENOTREG);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, in_dir("sub"), NULL), MT_ENOTREG);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, "/dev/null", NULL), MT_ENOTREG);
	errno = 0;
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, in_dir("missing"), NULL), MT_ENOENT);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, "", NULL), MT_EINVAL);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, NULL, NULL), MT_EINVAL);
}

static void test_too_big(void)
{
	int fd = open(in_dir("big"), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	if (ftruncate(fd, MT_REGULAR_MAX + 1)) { /* sparse; a filesystem may refuse */
		close(fd);
		return;
	}
	close(fd);
	CHECK_EQ(mt_open_regular(MT_ROOT_OWN, in_dir("big"), NULL), MT_EFBIG);
	remove(in_dir("big"));
}

/* Paths in a root of their own: an absolute one, an absolute symbolic
 * link and ".." stay under it; no magic link is followed there. */
static void test_root(void)
{
	char buf[32];
	int root = open(in_dir("sub"), O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	ssize_t n;

	CHECK(root >= 0);
	if (root < 0)
		return;
	fd = mt_open_regular(root, "/lib/target", NULL);
	CHECK(fd >= 0);
	n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
	buf[n > 0 ? n : 0] = '\0';
	CHECK_STR(buf, "in the root\n");
	if (fd >= 0)
		close(fd);
	fd = mt_open_regular(root, "/abs", NULL); /* -> /lib/target, in root */
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* dir/file is above the root: not reached */
	CHECK_EQ(mt_open_regular(root, "/lib/up", NULL), MT_ENOENT);
	CHECK_EQ(mt_open_regular(root, "/../file", NULL), MT_ENOENT);
	CHECK_EQ(mt_open_regular(root, "/file", NULL), MT_ENOENT);
	close(root);

	/* /proc/self/exe is a magic link: followed in mt's own root only */
	fd = mt_open_regular(MT_ROOT_OWN, "/proc/self/exe", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	errno = 0;
	CHECK_EQ(mt_open_regular(root, "/proc/self/exe", NULL), MT_ENOENT);
	CHECK(errno == ELOOP || errno == ENOSYS);
	close(root);
}

static void test_proc_root(void)
{
	int root = -2;

	CHECK_EQ(mt_proc_root(getpid(), &root), 0);
	CHECK_EQ(root, MT_ROOT_OWN);
	mt_proc_root_close(root);
	mt_proc_root_close(-1);
	root = -2;
	CHECK_EQ(mt_proc_root(INT_MAX, &root), MT_ENOENT);
	CHECK_EQ(root, -2);
}

/* A table with a debug link to name, whose CRC is that of text. */
static void link_to(struct mt_symtab *t, const char *name, const char *text)
{
	mt_symtab_init(t);
	t->debuglink = strdup(name);
	t->debuglink_crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), (const Bytef *)text,
					   (uInt)strlen(text));
}

/* The debug-file search passes over a FIFO and a link to /dev/zero at the
 * link's name (it hung on both), finds a regular file that fits, in
 * mt's root and in another. */
static void test_find_debug(void)
{
	struct mt_symtab t;
	char lib[PATH_MAX], *found = NULL;
	int fd, root;

	snprintf(lib, sizeof(lib), "%s/lib.so", dir);
	link_to(&t, "fifo", "");
	CHECK_EQ(mt_symtab_find_debug(&t, lib, NULL, 0, &found), MT_ENOENT);
	mt_symtab_release(&t);
	link_to(&t, "zero", "");
	CHECK_EQ(mt_symtab_find_debug(&t, lib, NULL, 0, &found), MT_ENOENT);
	mt_symtab_release(&t);

	put("x.debug", "debug bytes");
	link_to(&t, "x.debug", "other bytes");
	CHECK_EQ(mt_symtab_find_debug(&t, lib, NULL, 0, &found), MT_ENOENT);
	mt_symtab_release(&t);
	link_to(&t, "x.debug", "debug bytes");
	fd = mt_symtab_find_debug(&t, lib, NULL, 0, &found);
	CHECK(fd >= 0);
	CHECK_STR(found, in_dir("x.debug"));
	if (fd >= 0)
		close(fd);
	free(found);
	found = NULL;

	/* in a root: /lib/lib.so's link is /lib/x.debug there, not
	 * dir/x.debug */
	root = open(in_dir("sub"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(root >= 0);
	CHECK_EQ(mt_symtab_find_debug_at(&t, root, "/lib/lib.so", NULL, 0, &found), MT_ENOENT);
	put("sub/lib/x.debug", "debug bytes");
	fd = mt_symtab_find_debug_at(&t, root, "/lib/lib.so", NULL, 0, &found);
	CHECK(fd >= 0);
	CHECK_STR(found, "/lib/x.debug");
	if (fd >= 0)
		close(fd);
	free(found);
	if (root >= 0)
		close(root);
	mt_symtab_release(&t);
}

int main(void)
{
	if (setup()) {
		perror("test-regfile: setting up the scratch directory");
		cleanup();
		return 1;
	}
	RUN(test_regular);
	RUN(test_not_regular);
	RUN(test_too_big);
	RUN(test_root);
	RUN(test_proc_root);
	RUN(test_find_debug);
	cleanup();
	return unit_done();
}
