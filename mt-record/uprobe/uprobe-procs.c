/*
 * The uprobe engine's threads and processes (uprobe.h, uprobe-internal.h):
 * which processes are the target's, each thread's names over time and its
 * open calls, each process's executable mappings over time, from /proc at
 * attach and from the side events (forks, exits, names, mappings) taken
 * in time order.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "procsyms.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

/* ---- threads ---- */

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static int rehash(struct mt_uprobe *u)
{
	size_t cap = u->thash_cap ? u->thash_cap * 2 : 64, i;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return MT_ENOMEM;
	for (i = 0; i < u->nthreads; i++) {
		size_t k = hash32(u->threads[i].tid) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(u->thash);
	u->thash = h;
	u->thash_cap = cap;
	return 0;
}

struct mt_uprobe_thread *uprobe_thread_find(struct mt_uprobe *u, uint32_t tid)
{
	size_t k;

	if (!u->thash_cap)
		return NULL;
	for (k = hash32(tid) & (u->thash_cap - 1); u->thash[k];
	     k = (k + 1) & (u->thash_cap - 1))
		if (u->threads[u->thash[k] - 1].tid == tid)
			return &u->threads[u->thash[k] - 1];
	return NULL;
}

/* The thread tid, created if new; NULL when memory runs out. */
struct mt_uprobe_thread *uprobe_thread_get(struct mt_uprobe *u, uint32_t tid,
					   uint32_t pid)
{
	struct mt_uprobe_thread *t = uprobe_thread_find(u, tid);
	size_t k;

	if (t) {
		if (pid != NONE32)
			t->pid = pid;
		return t;
	}
	if ((u->nthreads + 1) * 2 > u->thash_cap && rehash(u))
		return NULL;
	if (mt_grow(&u->threads, &u->capthreads, u->nthreads + 1, sizeof(*u->threads)))
		return NULL;
	t = &u->threads[u->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	for (k = hash32(tid) & (u->thash_cap - 1); u->thash[k];
	     k = (k + 1) & (u->thash_cap - 1))
		;
	u->thash[k] = (uint32_t)++u->nthreads;
	u->st.threads++;
	return t;
}

static int comm_add(struct mt_uprobe_thread *t, uint64_t time, const char *name,
		    size_t len)
{
	struct comm *c;

	if (len > 15)
		len = 15;
	if (t->ncomm && t->comm[t->ncomm - 1].time <= time &&
	    strlen(t->comm[t->ncomm - 1].name) == len &&
	    !memcmp(t->comm[t->ncomm - 1].name, name, len))
		return 0;
	if (mt_grow(&t->comm, &t->capcomm, t->ncomm + 1, sizeof(*t->comm)))
		return MT_ENOMEM;
	c = &t->comm[t->ncomm++];
	c->time = time;
	memcpy(c->name, name, len);
	c->name[len] = '\0';
	return 0;
}

/* The name at time: the last given at or before it, else the first. */
const char *uprobe_comm_at(const struct mt_uprobe_thread *t, uint64_t time)
{
	const char *best = NULL;
	size_t i;

	for (i = 0; i < t->ncomm; i++)
		if (t->comm[i].time <= time || !best)
			best = t->comm[i].name;
	return best;
}

/* The thread's name from /proc, once, for threads whose name no event
 * gave. */
int uprobe_comm_from_proc(struct mt_uprobe *u, struct mt_uprobe_thread *t)
{
	char path[64], name[32];

	if (t->proc_tried || t->ncomm)
		return 0;
	t->proc_tried = 1;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm",
		 t->pid == NONE32 ? t->tid : t->pid, t->tid);
	if (uprobe_read_line(path, name, sizeof(name)))
		return 0;
	return comm_add(t, 0, name, strlen(name));
}

/* ---- processes and their mappings ---- */

/* The process pid, or NULL when it has no mappings yet. */
static struct mt_uprobe_proc *proc_find(struct mt_uprobe *u, uint32_t pid)
{
	size_t i;

	for (i = u->nprocs; i > 0; i--)
		if (u->procs[i - 1].pid == pid)
			return &u->procs[i - 1];
	return NULL;
}

static struct mt_uprobe_proc *proc_get(struct mt_uprobe *u, uint32_t pid)
{
	struct mt_uprobe_proc *pr = proc_find(u, pid);

	if (pr)
		return pr;
	if (mt_grow(&u->procs, &u->capprocs, u->nprocs + 1, sizeof(*u->procs)))
		return NULL;
	memset(&u->procs[u->nprocs], 0, sizeof(u->procs[0]));
	u->procs[u->nprocs].pid = pid;
	return &u->procs[u->nprocs++];
}

static int map_add(struct mt_uprobe *u, uint32_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path,
		   size_t pathlen, uint64_t time)
{
	size_t known = u->nfiles;
	struct mt_uprobe_proc *pr = proc_get(u, pid);
	struct map *m;
	uint32_t fi;

	if (!pr || uprobe_file_index(u, path, pathlen, &fi) ||
	    mt_grow(&pr->maps, &pr->cap, pr->n + 1, sizeof(*pr->maps)))
		return MT_ENOMEM;
	m = &pr->maps[pr->n++];
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	m->from = time;
	m->to = UINT64_MAX;
	m->file = fi;
	/* a file first mapped after a running process's attach (a file's
	 * name starts with '/'; anonymous code is "//anon") */
	if (fi >= known && u->attach_files && !u->late_file && pathlen && path[0] == '/' &&
	    !(pathlen >= 6 && !memcmp(path, "//anon", 6)))
		u->late_file = (size_t)fi + 1;
	return 0;
}

/* execve: the process's mappings end. */
static void maps_end(struct mt_uprobe *u, uint32_t pid, uint64_t time)
{
	struct mt_uprobe_proc *pr = proc_get(u, pid);
	size_t i;

	for (i = 0; pr && i < pr->n; i++)
		if (pr->maps[i].to > time)
			pr->maps[i].to = time;
}

/* fork: the child has its parent's mappings. */
static int maps_copy(struct mt_uprobe *u, uint32_t ppid, uint32_t pid,
		     uint64_t time)
{
	size_t from, to, i;

	if (ppid == pid)
		return 0;
	/* indices: proc_get() may move the array */
	if (!proc_get(u, pid) || !proc_get(u, ppid))
		return MT_ENOMEM;
	from = (size_t)(proc_get(u, ppid) - u->procs);
	to = (size_t)(proc_get(u, pid) - u->procs);
	for (i = 0; i < u->procs[from].n; i++) {
		struct mt_uprobe_proc *t = &u->procs[to];
		struct map m = u->procs[from].maps[i];

		if (m.from > time || m.to <= time)
			continue;
		if (mt_grow(&t->maps, &t->cap, t->n + 1, sizeof(*t->maps)))
			return MT_ENOMEM;
		m.from = time;
		t->maps[t->n++] = m;
	}
	return 0;
}

const struct map *uprobe_map_find(struct mt_uprobe *u, uint32_t pid,
				  uint64_t ip, uint64_t time)
{
	struct mt_uprobe_proc *pr = proc_find(u, pid);
	size_t i;

	for (i = pr ? pr->n : 0; i > 0; i--) {
		const struct map *m = &pr->maps[i - 1];

		if (ip >= m->start && ip < m->end && time >= m->from && time < m->to)
			return m;
	}
	return NULL;
}

/* Where the probed function of a return is in process pid, when its call
 * was not seen. */
uint64_t uprobe_probe_addr(struct mt_uprobe *u, uint32_t pid,
			   const struct mt_uprobe_probe *p, uint64_t time)
{
	struct mt_uprobe_proc *pr = proc_find(u, pid);
	size_t i;

	for (i = pr ? pr->n : 0; i > 0; i--) {
		const struct map *m = &pr->maps[i - 1];

		if (m->file == p->file && time >= m->from && time < m->to &&
		    p->offset >= m->pgoff && p->offset - m->pgoff < m->end - m->start)
			return m->start + (p->offset - m->pgoff);
	}
	return 0;
}

/*
 * A deleted file that the process maps is opened through the kernel's
 * link to its mapping, now: the process may be gone when the snapshot is
 * symbolized.
 */
static int deleted_source(struct mt_uprobe *u, const struct mt_procsyms *ps,
			  const struct mt_procmap *m)
{
	struct mt_uprobe_file *f;
	char link[MT_PROCSYMS_LINK_SIZE];
	uint32_t fi;
	int err = uprobe_file_index(u, m->path, strlen(m->path), &fi);

	if (err)
		return err;
	f = &u->files[fi];
	mt_procsyms_link(ps, m, link);
	if (!f->source && !(f->source = strdup(link)))
		return MT_ENOMEM;
	if (!f->loaded)
		uprobe_file_load(u, fi); /* unreadable: [unknown] symbols */
	return 0;
}

/* The executable mappings of a running process, from /proc/PID/maps. */
int uprobe_read_proc_maps(struct mt_uprobe *u, pid_t pid)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	size_t i;
	int err = mt_procsyms_read(&ps, pid);

	if (err == MT_ENOENT || err == MT_EIO) {
		int e = errno;

		uprobe_what(u, "opening /proc/%d/maps", (int)pid);
		errno = e;
		return err;
	}
	if (err == MT_ETRUNCATED)
		err = 0; /* what could be read */
	for (i = 0; err >= 0 && i < ps.nmaps; i++) {
		const struct mt_procmap *m = &ps.maps[i];
		size_t len = strlen(m->path);

		if (m->file == MT_PROCSYMS_NOFILE)
			continue; /* not executable, or anonymous */
		err = map_add(u, (uint32_t)pid, m->start, m->end - m->start,
			      m->pgoff, m->path, len, 0);
		if (!err && uprobe_is_deleted(m->path, len))
			err = deleted_source(u, &ps, m);
	}
	mt_procsyms_release(&ps);
	return err < 0 ? err : 0;
}

int uprobe_traced(const struct mt_uprobe *u, uint32_t pid)
{
	size_t i;

	for (i = u->npids; i > 0; i--)
		if (u->pids[i - 1] == pid)
			return 1;
	return 0;
}

int uprobe_trace_pid(struct mt_uprobe *u, uint32_t pid)
{
	if (uprobe_traced(u, pid))
		return 0;
	if (mt_grow(&u->pids, &u->cappids, u->npids + 1, sizeof(*u->pids)))
		return MT_ENOMEM;
	u->pids[u->npids++] = pid;
	return 0;
}

/* The names of the threads of a running process, from /proc. */
int uprobe_read_proc_threads(struct mt_uprobe *u, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		uprobe_what(u, "listing %s", path);
		return errno == ENOENT ? MT_ENOENT : MT_EIO;
	}
	while (!err && (d = readdir(dir)) != NULL) {
		struct mt_uprobe_thread *t;
		char *end;
		long tid = strtol(d->d_name, &end, 10);

		if (end == d->d_name || *end || tid <= 0)
			continue;
		t = uprobe_thread_get(u, (uint32_t)tid, (uint32_t)pid);
		err = t ? uprobe_comm_from_proc(u, t) : MT_ENOMEM;
	}
	closedir(dir);
	return err;
}

/* ---- side events ---- */

/* Thread and process starts and ends, names, mappings: of the target's
 * processes only. */
int uprobe_side_event(struct mt_uprobe *u, const struct mt_uprobe_staged *s)
{
	const struct ev *e = &s->ev;
	struct mt_uprobe_thread *t;
	uint32_t ppid = (uint32_t)(s->x >> 32), ptid = (uint32_t)s->x;

	switch (e->kind) {
	case K_FORK:
		if (!uprobe_traced(u, ppid))
			return 0;
		if (e->pid != ppid && uprobe_trace_pid(u, e->pid))
			return MT_ENOMEM;
		t = uprobe_thread_get(u, e->tid, e->pid);
		if (!t)
			return MT_ENOMEM;
		t->depth = 0; /* a new thread, perhaps with an old tid */
		{
			struct mt_uprobe_thread *p = uprobe_thread_find(u, ptid);
			const char *name = p ? uprobe_comm_at(p, e->time) : NULL;
			char copy[16];

			if (name) {
				memcpy(copy, name, strlen(name) + 1);
				t = uprobe_thread_find(u, e->tid);
				if (comm_add(t, e->time, copy, strlen(copy)))
					return MT_ENOMEM;
			}
		}
		return e->pid != ppid ? maps_copy(u, ppid, e->pid, e->time) : 0;
	case K_EXIT:
		t = uprobe_traced(u, e->pid) ? uprobe_thread_find(u, e->tid) : NULL;
		if (t)
			t->depth = 0;
		return 0;
	case K_COMM:
		if (!uprobe_traced(u, e->pid))
			return 0;
		t = uprobe_thread_get(u, e->tid, e->pid);
		if (!t || comm_add(t, e->time, s->str, strlen(s->str)))
			return MT_ENOMEM;
		if (e->pad) {
			maps_end(u, e->pid, e->time);
			if (e->pid == u->exec_pending)
				u->exec_pending = 0; /* the target's code runs */
		}
		return 0;
	case K_MMAP:
		if (!uprobe_traced(u, e->pid))
			return 0;
		return map_add(u, e->pid, e->ip, e->aux, s->x, s->str,
			       strlen(s->str), e->time);
	}
	return 0;
}
