#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "regfile.h"
#include "banned.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* An O_PATH descriptor of path, resolved in root: the file is looked up,
 * not opened (a device's open acts: a watchdog starts, a tape rewinds). */
static int lookup(int root, const char *path)
{
	int fd, tries = 0;

	if (root == MT_ROOT_OWN)
		return open(path, O_PATH | O_CLOEXEC);
#ifdef SYS_openat2
	{
		struct open_how how;

		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_CLOEXEC;
		how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
		/* EAGAIN: a rename or mount raced the lookup */
		do
			fd = (int)syscall(SYS_openat2, root, path, &how, sizeof(how));
		while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
		return fd;
	}
#else
	(void)fd;
	(void)tries;
	errno = ENOSYS;
	return -1;
#endif
}

int mt_open_regular(int root, const char *path, struct stat *st)
{
	char self[64];
	struct stat sb;
	int p, fd, e;

	if (!path || !*path)
		return MT_EINVAL;
	if ((p = lookup(root, path)) < 0)
		return MT_ENOENT;
	if (fstat(p, &sb)) {
		e = errno;
		close(p);
		errno = e;
		return MT_EIO;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > MT_REGULAR_MAX) {
		close(p);
		return S_ISREG(sb.st_mode) ? MT_EFBIG : MT_ENOTREG;
	}
	/* the file looked up, opened for reading: the same inode (the read
	 * permission is checked now, with the caller's credentials) */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", p);
	fd = open(self, READ_FLAGS);
	e = errno;
	close(p);
	if (fd < 0) {
		errno = e;
		return MT_ENOENT;
	}
	if (st && fstat(fd, st)) {
		e = errno;
		close(fd);
		errno = e;
		return MT_EIO;
	}
	return fd;
}

int mt_proc_root(pid_t pid, int *root)
{
	char path[64];
	struct stat ns, own;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &ns))
		return errno == ENOENT || errno == ESRCH ? MT_ENOENT : MT_EIO;
	if (stat("/proc/self/ns/mnt", &own))
		return MT_EIO;
	if (ns.st_dev == own.st_dev && ns.st_ino == own.st_ino) {
		*root = MT_ROOT_OWN;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? MT_ENOENT : MT_EIO;
	*root = fd;
	return 0;
}

void mt_proc_root_close(int root)
{
	if (root >= 0)
		close(root);
}
