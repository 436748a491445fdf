/*
 * Placing the uprobe engine's probes (uprobe.h, uprobe-internal.h): a
 * perf event of the uprobe PMU per probe, return probe and CPU, and a
 * dummy event per CPU for the side events, all of a CPU writing into one
 * mmapped ring; enabling them; closing them, which removes the probes,
 * here or in a detached process (opts.background_close).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "proc.h"
#include "spawn.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "cmp.h"
#include "banned.h"

static int perf_open(struct perf_event_attr *a, int cpu)
{
	static int bumped;
	int fd;

	for (;;) {
		fd = (int)syscall(SYS_perf_event_open, a, -1, cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0 || errno != EMFILE || bumped)
			return fd;
		/* as perf does: the events may need many descriptors */
		bumped = 1;
		{
			struct rlimit rl;

			if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
				return fd;
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl))
				return fd;
		}
	}
}

/*
 * Every event is a CPU's (pid -1), not a task's, and none is inherited:
 * the uprobe PMU reads config1, the path, from the memory of the task
 * that creates an inherited copy, so an inherited uprobe event makes the
 * target's fork() and pthread_create() fail with EFAULT (verified on
 * 6.18). A CPU's events see every thread from its first instruction; the
 * samples of other processes are dropped when processed.
 */
static void base_attr(struct mt_uprobe *u, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->disabled = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(u->opts.mmap_bytes / 4);
}

static int add_pev(struct mt_uprobe *u, int fd, uint32_t probe, int kind,
		   uint32_t ring)
{
	struct mt_uprobe_pev *e;

	if (mt_grow(&u->pevs, &u->cappevs, u->npevs + 1, sizeof(*u->pevs))) {
		close(fd);
		return MT_ENOMEM;
	}
	e = &u->pevs[u->npevs++];
	e->fd = fd;
	e->probe = probe;
	e->kind = kind;
	e->ring = ring;
	e->id = 0;
	return 0;
}

/* The new event fd writes into ring r (which it creates when first). */
static int to_ring(struct mt_uprobe *u, struct mt_uprobe_ring *r, int fd)
{
	size_t data = u->page_size;

	if (r->fd >= 0) {
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
			uprobe_what(u, "redirecting an event to the ring of cpu %d",
				    r->cpu);
			return MT_EIO;
		}
		return 0;
	}
	while (data < u->opts.mmap_bytes)
		data *= 2;
	r->map_len = data + u->page_size;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		uprobe_what(u, "mapping a %zu-byte ring for cpu %d", r->map_len,
			    r->cpu);
		return MT_EIO;
	}
	r->data_size = data;
	r->fd = fd;
	return 0;
}

static int open_probe(struct mt_uprobe *u, uint32_t pi, int ret, uint32_t ri)
{
	struct mt_uprobe_probe *p = &u->probes[pi];
	struct mt_uprobe_ring *r = &u->rings[ri];
	struct perf_event_attr a;
	int fd, err;

	base_attr(u, &a);
	a.type = (uint32_t)u->pmu_type;
	a.config = ret ? 1ull << u->retprobe_bit : 0;
	a.config1 = (uint64_t)(uintptr_t)uprobe_file_source(&u->files[p->file]);
	a.config2 = p->offset;
	a.sample_period = 1;
	/* losses that no PERF_RECORD_LOST reports (nothing was written
	 * after them) are read at the end (Linux 6.0+) */
	a.read_format = u->no_format_lost ? 0 : PERF_FORMAT_LOST;
	if (!ret && (int)pi == u->trigger_probe) {
		/* wake the reader at once */
		a.watermark = 0;
		a.wakeup_events = 1;
		/* its first two arguments, as magic-trace's breakpoint reads
		 * a stop indicator's (perf's x86 numbers: si 4, di 5) */
		a.sample_type |= PERF_SAMPLE_REGS_USER;
		a.sample_regs_user = (1ull << 4) | (1ull << 5);
	}
	fd = perf_open(&a, r->cpu);
	if (fd < 0 && errno == EINVAL && a.read_format) {
		u->no_format_lost = 1;
		a.read_format = 0;
		fd = perf_open(&a, r->cpu);
	}
	if (fd < 0) {
		uprobe_what(u, "perf_event_open(uprobe%s %s:0x%llx '%s' on cpu %d)",
			    ret ? " return" : "", u->files[p->file].path,
			    (unsigned long long)p->offset, p->sym, r->cpu);
		return MT_EIO;
	}
	err = add_pev(u, fd, pi, ret ? PEV_RETURN : PEV_ENTRY, ri);
	if (!err)
		err = to_ring(u, r, fd);
	return err;
}

/* The event that brings thread names, thread and process starts and
 * ends, and executable mappings; it owns its CPU's ring. */
static int open_side(struct mt_uprobe *u, uint32_t ri)
{
	struct mt_uprobe_ring *r = &u->rings[ri];
	struct perf_event_attr a;
	int fd, err;

	base_attr(u, &a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, r->cpu);
	if (fd < 0) {
		uprobe_what(u, "perf_event_open(dummy on cpu %d)", r->cpu);
		return MT_EIO;
	}
	err = add_pev(u, fd, NONE32, PEV_SIDE, ri);
	if (!err)
		err = to_ring(u, r, fd);
	return err;
}

int uprobe_rings_init(struct mt_uprobe *u)
{
	int *cpus = NULL;
	size_t ncpus, i;
	int err = mt_online_cpus(&cpus, &ncpus);

	if (err) {
		uprobe_what(u, "reading the online CPUs");
		return err;
	}
	u->rings = calloc(ncpus, sizeof(*u->rings));
	if (!u->rings) {
		free(cpus);
		return MT_ENOMEM;
	}
	u->nrings = ncpus;
	for (i = 0; i < ncpus; i++) {
		u->rings[i].cpu = cpus[i];
		u->rings[i].fd = -1;
		u->rings[i].cap = u->opts.ring_bytes / sizeof(struct ev);
	}
	free(cpus);
	return 0;
}

static int cmp_pev(const void *a, const void *b)
{
	const struct mt_uprobe_pev *x = a, *y = b;

	return MT_CMP(x->id, y->id);
}

int uprobe_open_events(struct mt_uprobe *u)
{
	uint32_t ri, pi;
	size_t i;
	int err = 0;

	for (ri = 0; !err && ri < u->nrings; ri++) {
		err = open_side(u, ri);
		for (pi = 0; !err && pi < u->nprobes; pi++) {
			if (u->probes[pi].flags & MT_UPROBE_ENTRY)
				err = open_probe(u, pi, 0, ri);
			if (!err && (u->probes[pi].flags & MT_UPROBE_RETURN))
				err = open_probe(u, pi, 1, ri);
		}
	}
	for (i = 0; !err && i < u->npevs; i++)
		if (ioctl(u->pevs[i].fd, PERF_EVENT_IOC_ID, &u->pevs[i].id)) {
			uprobe_what(u, "reading a perf event's id");
			err = MT_EIO;
		}
	if (!err)
		qsort(u->pevs, u->npevs, sizeof(*u->pevs), cmp_pev);
	return err;
}

int uprobe_enable(struct mt_uprobe *u, int kind)
{
	size_t i;

	for (i = 0; i < u->npevs; i++)
		if (u->pevs[i].kind == kind &&
		    ioctl(u->pevs[i].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			uprobe_what(u, "enabling a perf event");
			return MT_EIO;
		}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return MT_CMP(*(const int *)a, *(const int *)b);
}

/* In the detached child, which has the events open and nothing else:
 * close them, the last references (the caller's closes only drop
 * theirs), which removes the probes. */
static int close_events(void *arg)
{
	(void)arg;
	close_range(0, ~0u, 0);
	return 0;
}

void uprobe_close_in_background(struct mt_uprobe *u)
{
	struct mt_spawn sp = MT_SPAWN_INIT;
	int *fds = malloc((u->npevs + 1) * sizeof(*fds)); /* never 0 bytes */
	size_t i, n = 0;

	if (!fds)
		return; /* uprobe_close_events() does it here */
	for (i = 0; i < u->npevs; i++)
		if (u->pevs[i].fd >= 0)
			fds[n++] = u->pevs[i].fd;
	qsort(fds, n, sizeof(*fds), cmp_int);
	/* nothing but the events: not the caller's output pipe */
	sp.keep = fds;
	sp.nkeep = n;
	sp.new_session = 1;
	sp.detached = 1;
	sp.child_main = close_events;
	mt_spawn_start(&sp, NULL); /* or uprobe_close_events() does it here */
	free(fds);
}

void uprobe_close_events(struct mt_uprobe *u)
{
	size_t i;

	for (i = 0; i < u->nrings; i++) {
		struct mt_uprobe_ring *r = &u->rings[i];

		if (r->base)
			munmap(r->base, r->map_len);
		r->base = NULL;
		r->fd = -1;
	}
	for (i = 0; i < u->npevs; i++)
		if (u->pevs[i].fd >= 0) {
			close(u->pevs[i].fd);
			u->pevs[i].fd = -1;
		}
}
