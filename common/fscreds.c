#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "fscreds.h"
#include "cmp.h"
#include "banned.h"

/* the 32-bit ids' calls where the old 16-bit ones keep the plain names */
#ifdef SYS_setfsuid32
#define SYS_SETFSUID SYS_setfsuid32
#define SYS_SETFSGID SYS_setfsgid32
#define SYS_SETGROUPS SYS_setgroups32
#else
#define SYS_SETFSUID SYS_setfsuid
#define SYS_SETFSGID SYS_setfsgid
#define SYS_SETGROUPS SYS_setgroups
#endif

void mt_fscreds_init(struct mt_fscreds *c)
{
	memset(c, 0, sizeof(*c));
}

void mt_fscreds_release(struct mt_fscreds *c)
{
	free(c->groups);
	mt_fscreds_init(c);
}

static int cmp_gid(const void *a, const void *b)
{
	return MT_CMP(*(const gid_t *)a, *(const gid_t *)b);
}

/* Sorted, each once. */
static void normalise(struct mt_fscreds *c)
{
	size_t i, n = 0;

	if (!c->ngroups)
		return;
	qsort(c->groups, c->ngroups, sizeof(*c->groups), cmp_gid);
	for (i = 0; i < c->ngroups; i++)
		if (!n || c->groups[n - 1] != c->groups[i])
			c->groups[n++] = c->groups[i];
	c->ngroups = n;
}

/* The fourth id of "Uid:\tR\tE\tS\tF" after its name. */
static int fourth_id(const char *p, unsigned long *id)
{
	char *end;
	int k;

	for (k = 0; k < 4; k++) {
		errno = 0;
		*id = strtoul(p, &end, 10);
		if (end == p || errno || *id > 0xffffffffUL)
			return -1;
		p = end;
	}
	return 0;
}

static int parse_groups(struct mt_fscreds *c, const char *p)
{
	size_t cap = 0;

	for (;;) {
		unsigned long g;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			return 0;
		errno = 0;
		g = strtoul(p, &end, 10);
		if (end == p || errno || g > 0xffffffffUL)
			return MT_ECORRUPT;
		if (c->ngroups == cap) {
			gid_t *v = realloc(c->groups, (cap ? 2 * cap : 16) * sizeof(*v));

			if (!v)
				return MT_ENOMEM;
			c->groups = v;
			cap = cap ? 2 * cap : 16;
		}
		c->groups[c->ngroups++] = (gid_t)g;
		p = end;
	}
}

int mt_fscreds_of(struct mt_fscreds *c, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	unsigned long uid, gid;
	int have = 0, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return errno == ENOENT || errno == ESRCH ? MT_ENOENT : MT_EIO;
	while (!err && getline(&line, &cap, f) >= 0) {
		if (!strncmp(line, "Uid:", 4) && !fourth_id(line + 4, &uid))
			have |= 1;
		else if (!strncmp(line, "Gid:", 4) && !fourth_id(line + 4, &gid))
			have |= 2;
		else if (!strncmp(line, "Groups:", 7) && !(err = parse_groups(c, line + 7)))
			have |= 4;
	}
	if (!err && ferror(f))
		err = MT_EIO;
	free(line);
	fclose(f);
	if (!err && have != 7)
		err = MT_ECORRUPT;
	if (err) {
		mt_fscreds_release(c);
		return err;
	}
	c->uid = (uid_t)uid;
	c->gid = (gid_t)gid;
	normalise(c);
	return 0;
}

int mt_fscreds_self(struct mt_fscreds *c)
{
	int n = getgroups(0, NULL);

	/* an invalid id changes nothing: the call says the current one */
	c->uid = (uid_t)syscall(SYS_SETFSUID, (uid_t)-1);
	c->gid = (gid_t)syscall(SYS_SETFSGID, (gid_t)-1);
	if (n < 0)
		return MT_EIO;
	if (n && !(c->groups = malloc((size_t)n * sizeof(*c->groups))))
		return MT_ENOMEM;
	n = n ? getgroups(n, c->groups) : 0;
	if (n < 0) {
		mt_fscreds_release(c);
		return MT_EIO;
	}
	c->ngroups = (size_t)n;
	normalise(c);
	return 0;
}

int mt_fscreds_equal(const struct mt_fscreds *a, const struct mt_fscreds *b)
{
	return a->uid == b->uid && a->gid == b->gid && a->ngroups == b->ngroups &&
	       (!a->ngroups || !memcmp(a->groups, b->groups, a->ngroups * sizeof(*a->groups)));
}

int mt_fscreds_set(const struct mt_fscreds *c)
{
	if (syscall(SYS_SETGROUPS, c->ngroups, c->groups))
		return MT_EIO;
	/* setfsgid and setfsuid say no error: the id taken is checked */
	syscall(SYS_SETFSGID, c->gid);
	syscall(SYS_SETFSUID, c->uid);
	if ((gid_t)syscall(SYS_SETFSGID, (gid_t)-1) != c->gid ||
	    (uid_t)syscall(SYS_SETFSUID, (uid_t)-1) != c->uid) {
		errno = EPERM;
		return MT_EIO;
	}
	return 0;
}
