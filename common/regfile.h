/*
 * Opening the files mt reads for a traced process's sake: the files it
 * maps and their separate debug files. Their names come from the process
 * (its maps, the .gnu_debuglink of a library it wrote), so they may name
 * whatever its owner could make there: a FIFO, whose open waits for a
 * writer; a symbolic link to /dev/zero, which never ends; a terminal. Only
 * regular files of a bounded size are opened. And where it lives in a
 * mount namespace of its own, its paths are resolved in its root, not in
 * mt's (see mt_proc_root()).
 *
 * Nothing is printed; errors are MT_E* codes (err.h), errno kept where
 * said. The descriptors returned are the caller's to close.
 */
#ifndef MT_REGFILE_H
#define MT_REGFILE_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The largest file opened so: far above any real ELF or debug file (the
 * debug file of a large program is a few GiB). */
#define MT_REGULAR_MAX ((off_t)16 << 30)

/* mt_open_regular()'s root for a path resolved as open(2) resolves it,
 * in mt's own root (and a relative one from its working directory). */
#define MT_ROOT_OWN AT_FDCWD

/*
 * Opens path read-only, non-blocking (the open of a FIFO does not wait;
 * O_NONBLOCK stays set, which changes nothing for a regular file's
 * reads), never as the controlling terminal, close-on-exec; then checks
 * with fstat that it is a regular file of at most MT_REGULAR_MAX bytes,
 * else closes it.
 *
 * root is MT_ROOT_OWN, or a descriptor of a directory (O_PATH will do)
 * in which path is resolved as if it were the root directory: ".." and
 * absolute symbolic links stay under it, and an absolute path starts
 * there (openat2's RESOLVE_IN_ROOT); no magic link (/proc/PID/fd/N,
 * /proc/PID/root, ...) is followed there (RESOLVE_NO_MAGICLINKS). With
 * MT_ROOT_OWN, path may be one of those links (/proc/PID/map_files/...).
 *
 * st, unless NULL, receives the file's fstat.
 *
 * Returns the descriptor, or
 *   MT_ENOENT   path cannot be opened (errno: ENOENT, EACCES, ELOOP,
 *               EXDEV, ...; ENOSYS with a root descriptor where the
 *               kernel has no openat2, Linux before 5.6)
 *   MT_ENOTREG  not a regular file (a FIFO, a device, a directory)
 *   MT_EFBIG    larger than MT_REGULAR_MAX
 *   MT_EIO      fstat failed (errno)
 *   MT_EINVAL   path is NULL or empty
 */
int mt_open_regular(int root, const char *path, struct stat *st);

/*
 * Where the paths that process pid's maps name are resolved, as
 * mt_open_regular()'s root, into *root: MT_ROOT_OWN when the process
 * shares mt's mount namespace (the kernel writes the maps' paths relative
 * to the reader's root: they are mt's paths then, even for a process that
 * chroot'ed), else a descriptor (O_PATH, close-on-exec) of its root
 * directory, /proc/PID/root, which the caller closes. Reading the
 * namespace and root of another user's process needs the rights of
 * ptrace(2) over it (PTRACE_MODE_READ). Returns 0, or
 *   MT_ENOENT  no such process (errno ENOENT or ESRCH)
 *   MT_EIO     its namespace or root cannot be read (errno: EACCES, ...)
 */
int mt_proc_root(pid_t pid, int *root);

/* Closes a root of mt_proc_root() (nothing for MT_ROOT_OWN or -1). */
void mt_proc_root_close(int root);

#endif
