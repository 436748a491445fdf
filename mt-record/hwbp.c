/*
 * Hardware execute breakpoints as a trigger: see hwbp.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "hwbp.h"
#include "proc.h"
#include "banned.h"

struct mt_hwbp_ring {
	int cpu;
	int fd;        /* the event whose ring it is */
	void *base;    /* header page, then the data pages */
	size_t len;
	int hup;       /* its task is gone: poll no longer waits on it */
	uint64_t next_tail; /* past the hit peek() found */
};

/* perf's x86 register numbers (asm/perf_regs.h): si 4, di 5; a sample
 * gives them in that order */
#define HWBP_REGS ((1ull << 4) | (1ull << 5))

static long open_event(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void bp_attr(struct perf_event_attr *a, uint64_t addr)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = HW_BREAKPOINT_X;
	a->bp_addr = addr;
	a->bp_len = sizeof(long); /* what the kernel wants for X on x86 */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* The function mt_hwbp_fires() stops at: a call the compiler keeps. */
__attribute__((noinline)) static void fires_here(void)
{
	__asm__ volatile("" ::: "memory");
}

int mt_hwbp_fires(void)
{
	struct perf_event_attr a;
	void (*volatile f)(void) = fires_here;
	uint64_t count = 0;
	long fd;
	int i;

	bp_attr(&a, (uint64_t)(uintptr_t)fires_here);
	fd = open_event(&a, 0, -1);
	if (fd < 0)
		return MT_EIO;
	for (i = 0; i < 4; i++)
		f();
	if (read((int)fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		int e = errno;

		close((int)fd);
		errno = e;
		return MT_EIO;
	}
	close((int)fd);
	return count > 0;
}

static int failed(struct mt_hwbp *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int failed(struct mt_hwbp *b, int err, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->what, sizeof(b->what), fmt, ap);
	va_end(ap);
	errno = e;
	return err;
}

/* Breakpoints on thread tid, one per CPU, into the CPUs' rings: 1 when
 * armed, 0 when the thread is gone. */
static int arm_thread(struct mt_hwbp *b, uint32_t tid)
{
	struct perf_event_attr a;
	size_t r, first = b->nfds;
	long fd;

	bp_attr(&a, b->addr);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = HWBP_REGS; /* magic-trace's: a stop indicator's arguments */
	a.inherit = 1;
	a.wakeup_events = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.disabled = 1; /* until its ring is set: no hit goes unseen */
	for (r = 0; r < b->nrings; r++) {
		struct mt_hwbp_ring *g = &b->rings[r];

		if (mt_grow(&b->fds, &b->capfds, b->nfds + 1, sizeof(*b->fds)))
			return MT_ENOMEM;
		fd = open_event(&a, (pid_t)tid, g->cpu);
		if (fd < 0 && errno == ESRCH)
			return 0; /* gone: the events opened stay (a ring may be
				   * one of them), harmless until release */
		if (fd < 0)
			return failed(b, MT_EIO, "perf_event_open(breakpoint on "
				      "thread %ld, cpu %d)", (long)tid, g->cpu);
		b->fds[b->nfds++] = (int)fd;
		if (!g->base) {
			g->len = 2 * b->page_size; /* header and one data page */
			g->base = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_SHARED,
				       (int)fd, 0);
			if (g->base == MAP_FAILED) {
				g->base = NULL;
				return failed(b, MT_EIO, "mmap(breakpoint ring of cpu "
					      "%d)", g->cpu);
			}
			g->fd = (int)fd;
		} else if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, g->fd)) {
			return failed(b, MT_EIO, "ioctl(PERF_EVENT_IOC_SET_OUTPUT, "
				      "thread %ld, cpu %d)", (long)tid, g->cpu);
		}
	}
	for (r = first; r < b->nfds; r++)
		if (ioctl(b->fds[r], PERF_EVENT_IOC_ENABLE, 0))
			return failed(b, MT_EIO, "ioctl(PERF_EVENT_IOC_ENABLE, thread "
				      "%ld)", (long)tid);
	if (mt_grow(&b->tids, &b->captids, b->ntids + 1, sizeof(*b->tids)))
		return MT_ENOMEM;
	b->tids[b->ntids++] = tid;
	return 1;
}

/* Arms the threads of the process not armed yet: how many were. */
static int scan_threads(struct mt_hwbp *b)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int armed = 0, r;
	size_t k;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)b->pid);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return failed(b, MT_ENOENT, "process %ld", (long)b->pid);
		return failed(b, MT_EIO, "opendir(/proc/%ld/task)", (long)b->pid);
	}
	while ((e = readdir(d)) != NULL) {
		char *end;
		unsigned long tid = strtoul(e->d_name, &end, 10);

		if (*end || !tid)
			continue;
		for (k = 0; k < b->ntids && b->tids[k] != tid; k++)
			;
		if (k < b->ntids)
			continue;
		r = arm_thread(b, (uint32_t)tid);
		if (r < 0) {
			closedir(d);
			return r;
		}
		armed += r;
	}
	closedir(d);
	return armed;
}

int mt_hwbp_arm(struct mt_hwbp *b, pid_t pid, uint64_t addr)
{
	size_t ncpu, k;
	int *cpus, r;
	long ps = sysconf(_SC_PAGESIZE);

	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->addr = addr;
	b->page_size = ps > 0 ? (size_t)ps : 4096;
	r = mt_online_cpus(&cpus, &ncpu);
	if (r)
		return failed(b, r, "reading the online CPUs");
	b->rings = calloc(ncpu, sizeof(*b->rings));
	if (!b->rings) {
		free(cpus);
		return MT_ENOMEM;
	}
	for (k = 0; k < ncpu; k++) {
		b->rings[k].cpu = cpus[k];
		b->rings[k].fd = -1;
	}
	b->nrings = ncpu;
	free(cpus);
	/* threads started while the first ones were armed, until none is */
	do
		r = scan_threads(b);
	while (r > 0);
	if (!r && !b->ntids)
		return failed(b, MT_ENOENT, "process %ld", (long)pid);
	return r < 0 ? r : 0;
}

/* Copies n bytes at offset off of a ring's data area (wrapping). */
static void ring_copy(const struct mt_hwbp_ring *g, size_t page, uint64_t off,
		      void *dst, size_t n)
{
	const char *data = (const char *)g->base + page;
	size_t size = g->len - page, at = (size_t)(off % size), first;

	first = n < size - at ? n : size - at;
	memcpy(dst, data + at, first);
	memcpy((char *)dst + first, data, n - first);
}

/*
 * The first hit of ring g not yet taken, in *hit (1), or 0: the records
 * before it are consumed, the hit itself only by take(), so that hits are
 * taken one at a time, the earliest of every ring first.
 */
static int peek(struct mt_hwbp *b, struct mt_hwbp_ring *g, struct mt_hwbp_hit *hit)
{
	struct perf_event_mmap_page *mp = g->base;
	uint64_t head, tail;

	if (!mp)
		return 0;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		struct {
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time;
		} s;
		struct {
			uint64_t abi; /* PERF_SAMPLE_REGS_ABI_NONE: no registers */
			uint64_t si, di;
		} regs;

		ring_copy(g, b->page_size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot be: the kernel writes whole records */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + sizeof(s)) {
			ring_copy(g, b->page_size, tail + sizeof(h), &s, sizeof(s));
			hit->time = s.time;
			hit->pid = s.pid;
			hit->tid = s.tid;
			hit->ip = s.ip;
			hit->has_args = 0;
			if (h.size >= sizeof(h) + sizeof(s) + sizeof(regs)) {
				ring_copy(g, b->page_size, tail + sizeof(h) + sizeof(s), &regs,
					  sizeof(regs));
				if (regs.abi != PERF_SAMPLE_REGS_ABI_NONE) {
					hit->rsi = regs.si;
					hit->rdi = regs.di;
					hit->has_args = 1;
				}
			}
			g->next_tail = tail + h.size;
			__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
			return 1;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

/* The earliest hit of every ring into *h (1, and *which its ring), or 0. */
static int earliest(struct mt_hwbp *b, struct mt_hwbp_hit *h, size_t *which)
{
	struct mt_hwbp_hit one;
	size_t k;
	int found = 0;

	for (k = 0; k < b->nrings; k++)
		if (peek(b, &b->rings[k], &one) && (!found || one.time < h->time)) {
			*h = one;
			*which = k;
			found = 1;
		}
	return found;
}

int mt_hwbp_wait(struct mt_hwbp *b, int timeout_ms, const sigset_t *mask,
		 struct mt_hwbp_hit *hit)
{
	struct pollfd pf[64];
	struct timespec ts;
	struct mt_hwbp_hit h = { 0 };
	size_t k, n = 0, which = 0;
	int found, r;

	found = earliest(b, &h, &which);
	if (!found && timeout_ms > 0) {
		for (k = 0; k < b->nrings && n < 64; k++)
			if (b->rings[k].base && !b->rings[k].hup) {
				pf[n].fd = b->rings[k].fd;
				pf[n].events = POLLIN;
				pf[n].revents = 0;
				n++;
			}
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		r = ppoll(n ? pf : NULL, n, &ts, mask);
		if (r < 0 && errno == EINTR)
			return MT_HWBP_SIGNAL;
		if (r < 0)
			return failed(b, MT_EIO, "ppoll(breakpoint rings)");
		/* a ring whose task ended reports POLLHUP forever: stop
		 * waiting on it (it is still read, and still written to by
		 * the events of other threads that share it) */
		for (k = 0; k < n; k++)
			if ((pf[k].revents & (POLLHUP | POLLIN)) == POLLHUP) {
				size_t g;

				for (g = 0; g < b->nrings; g++)
					if (b->rings[g].fd == pf[k].fd)
						b->rings[g].hup = 1;
			}
		found = earliest(b, &h, &which);
	}
	if (!found)
		return MT_HWBP_TIMEOUT;
	__atomic_store_n(&((struct perf_event_mmap_page *)b->rings[which].base)->data_tail,
			 b->rings[which].next_tail, __ATOMIC_RELEASE);
	*hit = h;
	return MT_HWBP_HIT;
}

void mt_hwbp_release(struct mt_hwbp *b)
{
	size_t k;

	for (k = 0; k < b->nrings; k++)
		if (b->rings[k].base)
			munmap(b->rings[k].base, b->rings[k].len);
	for (k = 0; k < b->nfds; k++)
		close(b->fds[k]);
	free(b->rings);
	free(b->fds);
	free(b->tids);
	memset(b, 0, sizeof(*b));
}
