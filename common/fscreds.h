/*
 * Filesystem credentials: the fsuid, fsgid and supplementary groups that
 * the kernel checks a file's permissions against, per thread. mt-record,
 * root, opens a traced process's files with that process's, so that it
 * reads nothing the process could not (mt-record/target-open.h).
 *
 * mt_fscreds_set() changes the calling thread only: it makes the raw
 * system calls (setgroups, setfsgid, setfsuid), not glibc's wrappers,
 * whose setgroups changes every thread of the process. Changing the
 * fsuid from 0 drops the thread's filesystem capabilities
 * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, ...) until it is 0
 * again; its other capabilities (CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_SETUID,
 * CAP_SETGID) stay.
 *
 * Ownership: struct mt_fscreds owns groups; mt_fscreds_release() frees it
 * and leaves an empty, reusable struct. Nothing is printed; errors are
 * MT_E* codes (err.h).
 */
#ifndef MT_FSCREDS_H
#define MT_FSCREDS_H

#include <stddef.h>
#include <sys/types.h>

struct mt_fscreds {
	uid_t uid;       /* fsuid */
	gid_t gid;       /* fsgid */
	gid_t *groups;   /* the supplementary groups, sorted, each once */
	size_t ngroups;
};

#define MT_FSCREDS_INIT { 0, 0, NULL, 0 }

void mt_fscreds_init(struct mt_fscreds *c);
void mt_fscreds_release(struct mt_fscreds *c);

/*
 * Process pid's (its main thread's), from /proc/PID/status: the fourth
 * fields of its Uid: and Gid: lines and its Groups:, into c, which must
 * be empty. 0, or
 *   MT_ENOENT    no such process (errno ENOENT or ESRCH)
 *   MT_EIO       its status cannot be read (errno)
 *   MT_ECORRUPT  a line is missing or does not parse
 *   MT_ENOMEM
 * On error c is left empty.
 */
int mt_fscreds_of(struct mt_fscreds *c, pid_t pid);

/* The calling thread's, into c (empty): 0, MT_EIO (getgroups failed,
 * errno), MT_ENOMEM. */
int mt_fscreds_self(struct mt_fscreds *c);

/* Whether a and b are the same credentials. */
int mt_fscreds_equal(const struct mt_fscreds *a, const struct mt_fscreds *b);

/*
 * The calling thread takes c: its groups, then its fsgid, then its fsuid.
 * Needs CAP_SETGID and CAP_SETUID (root's), unless c is what the thread
 * has. 0, or MT_EIO with errno EPERM when the thread may not: it may then
 * have taken some of them; give it its own back with mt_fscreds_set() of
 * what mt_fscreds_self() said before.
 */
int mt_fscreds_set(const struct mt_fscreds *c);

#endif
