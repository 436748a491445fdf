/*
 * The uprobe capture engine's public lifecycle (the contract is in
 * uprobe.h): the PMU, init, attach, wait, finish, release, warnings and
 * stats, and the small helpers the engine's files share; the other jobs
 * are in the files that uprobe-internal.h lists. Facts the engine relies
 * on are in docs/perf.md section 4.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "procsyms.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define PMU_DIR "/sys/bus/event_source/devices/uprobe"
#define REORDER_DEFAULT_MS 20

static const char *const warning_texts[] = {
	"return probes were left out of a Go program (they crash it): "
	"only calls are recorded there",
	"calls nested deeper than 64 return probes were left out "
	"(the kernel reports no return for them)",
	"events were lost: the kernel ring was full",
	"events became visible late and were taken out of time order",
	"trigger hits came faster than they were taken: some were dropped",
	"functions whose return address must not be replaced (the entry point, "
	"a signal return, setjmp, vfork) got no return probe (it would change "
	"what the program does): only their calls are recorded",
};

/* ---- small helpers of the engine's files ---- */

void uprobe_what(struct mt_uprobe *u, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(u->what, sizeof(u->what), fmt, ap);
	va_end(ap);
	errno = saved;
}


uint64_t uprobe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first line of a small file, without its newline. */
int uprobe_read_line(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return MT_EIO;
	do
		n = read(fd, out, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return MT_EIO;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

int uprobe_appendf(struct mt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	err = mt_buf_grow(b, 256);
	if (err)
		return err;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MT_EINVAL;
	if ((size_t)n >= b->cap - b->len) {
		err = mt_buf_grow(b, (size_t)n + 1);
		if (err)
			return err;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return 0;
}

/* ---- the PMU ---- */

int mt_uprobe_supported(void)
{
	return access(PMU_DIR "/type", R_OK) == 0;
}

static int read_pmu(struct mt_uprobe *u)
{
	char line[64];
	char *end;
	long v;

	if (uprobe_read_line(PMU_DIR "/type", line, sizeof(line))) {
		uprobe_what(u, "reading %s/type (no uprobe PMU in this kernel?)",
			    PMU_DIR);
		return MT_EIO;
	}
	v = strtol(line, &end, 10);
	if (end == line || v < 0 || v > INT_MAX) {
		errno = EINVAL;
		uprobe_what(u, "reading %s/type: '%s'", PMU_DIR, line);
		return MT_EIO;
	}
	u->pmu_type = (int)v;
	/* "config:0" */
	if (uprobe_read_line(PMU_DIR "/format/retprobe", line, sizeof(line)) ||
	    strncmp(line, "config:", 7)) {
		if (!errno)
			errno = EINVAL;
		uprobe_what(u, "reading %s/format/retprobe", PMU_DIR);
		return MT_EIO;
	}
	v = strtol(line + 7, &end, 10);
	if (end == line + 7 || v < 0 || v > 63) {
		errno = EINVAL;
		uprobe_what(u, "reading %s/format/retprobe: '%s'", PMU_DIR, line);
		return MT_EIO;
	}
	u->retprobe_bit = (int)v;
	return 0;
}

/* ---- lifecycle ---- */

int mt_uprobe_init(struct mt_uprobe *u, const struct mt_uprobe_opts *opts)
{
	long ps = sysconf(_SC_PAGESIZE);

	memset(u, 0, sizeof(*u));
	u->pidfd = -1;
	u->trigger_probe = -1;
	u->page_size = ps > 0 ? (size_t)ps : 4096;
	if (opts)
		u->opts = *opts;
	if (!u->opts.ring_bytes)
		u->opts.ring_bytes = MT_UPROBE_RING_DEFAULT;
	if (!u->opts.mmap_bytes)
		u->opts.mmap_bytes = MT_UPROBE_MMAP_DEFAULT;
	if (!u->opts.reorder_ms)
		u->opts.reorder_ms = REORDER_DEFAULT_MS;
	if (u->opts.ring_bytes < MT_UPROBE_EVENT_BYTES ||
	    u->opts.mmap_bytes > (1u << 30)) {
		uprobe_what(u, "options: ring_bytes %zu, mmap_bytes %zu",
			    u->opts.ring_bytes, u->opts.mmap_bytes);
		return MT_EINVAL;
	}
	/* nothing is allocated yet: on error u is as released */
	return read_pmu(u);
}

void mt_uprobe_release(struct mt_uprobe *u)
{
	size_t i;

	uprobe_close_events(u);
	/* a zeroed engine has pidfd 0 but never attached */
	if (u->state != ST_ADDING && u->pidfd >= 0)
		close(u->pidfd);
	for (i = 0; i < u->nfiles; i++)
		uprobe_file_release(&u->files[i]);
	free(u->files);
	for (i = 0; i < u->nprobes; i++) {
		free(u->probes[i].sym);
		free(u->probes[i].shown);
		free(u->probes[i].event);
		free(u->probes[i].ret_event);
	}
	free(u->probes);
	free(u->pevs);
	for (i = 0; i < u->nrings; i++) {
		free(u->rings[i].tmp);
		free(u->rings[i].v);
	}
	free(u->rings);
	for (i = 0; i < u->nstaged; i++)
		free(u->staged[i].str);
	free(u->staged);
	free(u->pids);
	for (i = 0; i < u->nthreads; i++)
		free(u->threads[i].comm);
	free(u->threads);
	free(u->thash);
	for (i = 0; i < u->nprocs; i++)
		free(u->procs[i].maps);
	free(u->procs);
	memset(u, 0, sizeof(*u));
	u->pidfd = -1;
	u->trigger_probe = -1;
}

/* ---- attaching ---- */


int mt_uprobe_attach(struct mt_uprobe *u, pid_t pid, int mode)
{
	int err;

	if (u->state != ST_ADDING || !u->nprobes || pid <= 0 ||
	    (mode != MT_UPROBE_PROCESS && mode != MT_UPROBE_EXEC)) {
		uprobe_what(u, "attaching to %d: bad arguments or state", (int)pid);
		return MT_EINVAL;
	}
	u->state = ST_FINISHED; /* once only, even when it fails */
	if (kill(pid, 0) && errno == ESRCH) {
		uprobe_what(u, "attaching to process %d", (int)pid);
		return MT_ENOENT;
	}
	err = uprobe_rings_init(u);
	if (err)
		return err;
	u->pid = pid;
	/* before execve() the child runs the caller's code */
	u->exec_pending = mode == MT_UPROBE_EXEC ? (uint32_t)pid : 0;
	err = uprobe_trace_pid(u, (uint32_t)pid);
	if (!err)
		err = uprobe_open_events(u);
	/* mappings and names from now on, then what there is */
	if (!err)
		err = uprobe_enable(u, PEV_SIDE);
	if (!err && mode == MT_UPROBE_PROCESS) {
		err = uprobe_read_proc_maps(u, pid);
		u->attach_files = u->nfiles; /* mappings after: mt_uprobe_late_file() */
		if (!err)
			err = uprobe_read_proc_threads(u, pid);
	}
	/* returns first: a return without its call is harmless, a call
	 * whose return is not recorded leaves a frame open */
	if (!err)
		err = uprobe_enable(u, PEV_RETURN);
	if (!err)
		err = uprobe_enable(u, PEV_ENTRY);
	if (err) {
		uprobe_close_events(u);
		return err;
	}
	u->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	u->state = ST_ATTACHED;
	u->st.perf_events = u->npevs;
	u->st.rings = u->nrings;
	return 0;
}

/* ---- waiting ---- */

static int target_gone(struct mt_uprobe *u)
{
	char path[64], line[512], *p;

	if (u->exited)
		return 1;
	if (u->pidfd >= 0) {
		struct pollfd pf = { .fd = u->pidfd, .events = POLLIN };

		if (poll(&pf, 1, 0) == 1)
			u->exited = 1;
		return u->exited;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)u->pid);
	if (uprobe_read_line(path, line, sizeof(line))) {
		u->exited = 1;
		return 1;
	}
	p = strrchr(line, ')');
	if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
		u->exited = 1;
	return u->exited;
}

int mt_uprobe_wait(struct mt_uprobe *u, int timeout_ms, const sigset_t *sigmask)
{
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX :
			    uprobe_now_ns() + (uint64_t)timeout_ms * 1000000u;
	struct pollfd *pf;
	size_t i, n = 0;
	int err = 0, ret = MT_UPROBE_TIMEOUT;

	if (u->state != ST_ATTACHED) {
		if (u->state == ST_FINISHED)
			return u->triggered || u->hitq_len ? MT_UPROBE_TRIGGERED :
			       MT_UPROBE_EXITED;
		uprobe_what(u, "waiting before attach");
		return MT_EINVAL;
	}
	pf = calloc(u->nrings + 1, sizeof(*pf));
	if (!pf)
		return MT_ENOMEM;
	for (i = 0; i < u->nrings; i++)
		if (u->rings[i].fd >= 0) {
			pf[n].fd = u->rings[i].fd;
			pf[n++].events = POLLIN;
		}
	if (u->pidfd >= 0) {
		pf[n].fd = u->pidfd;
		pf[n++].events = POLLIN;
	}
	for (;;) {
		uint64_t now;
		struct timespec ts;
		int got;

		if (target_gone(u)) {
			/* its last events are in the rings by now */
			err = uprobe_drain(u, 1);
			ret = MT_UPROBE_EXITED;
			break;
		}
		err = uprobe_drain(u, 0);
		if (err)
			break;
		if (u->triggered || u->hitq_len) {
			ret = MT_UPROBE_TRIGGERED;
			break;
		}
		now = uprobe_now_ns();
		if (now >= deadline)
			break;
		/* wake up when the oldest event waiting leaves the reorder
		 * window, and now and then to notice an exit without a
		 * pidfd */
		ts.tv_sec = 0;
		ts.tv_nsec = 50 * 1000000L;
		if (u->nstaged) {
			uint64_t ready = u->staged[0].ev.time +
					 (uint64_t)u->opts.reorder_ms * 1000000u + 1000000u;

			if (ready <= now)
				ts.tv_nsec = 1000000L;
			else if (ready - now < (uint64_t)ts.tv_nsec)
				ts.tv_nsec = (long)(ready - now);
		}
		if (deadline - now < (uint64_t)ts.tv_nsec)
			ts.tv_nsec = (long)(deadline - now);
		got = ppoll(pf, n, &ts, sigmask);
		if (got < 0 && errno == EINTR) {
			err = uprobe_drain(u, 0);
			ret = u->triggered || u->hitq_len ? MT_UPROBE_TRIGGERED :
			      MT_UPROBE_SIGNAL;
			break;
		}
		if (got < 0) {
			uprobe_what(u, "polling the rings");
			err = MT_EIO;
			break;
		}
	}
	free(pf);
	if (!err && ret == MT_UPROBE_EXITED && (u->triggered || u->hitq_len))
		ret = MT_UPROBE_TRIGGERED;
	return err ? err : ret;
}

int mt_uprobe_trigger(const struct mt_uprobe *u, struct mt_uprobe_hit *hit)
{
	if (!u->triggered)
		return 0;
	if (hit)
		*hit = u->hit;
	return 1;
}

int mt_uprobe_next_hit(struct mt_uprobe *u, struct mt_uprobe_hit *hit)
{
	if (!u->hitq_len)
		return 0;
	*hit = u->hitq[u->hitq_start];
	u->hitq_start = (u->hitq_start + 1) % MT_UPROBE_HIT_QUEUE;
	u->hitq_len--;
	return 1;
}

int mt_uprobe_finish(struct mt_uprobe *u)
{
	int err;

	if (u->state != ST_ATTACHED)
		return 0;
	err = uprobe_drain(u, 1);
	if (!err)
		err = uprobe_unreported_losses(u);
	if (u->opts.background_close)
		uprobe_close_in_background(u);
	uprobe_close_events(u);
	u->state = ST_FINISHED;
	return err;
}

/* ---- reporting ---- */

unsigned mt_uprobe_warnings(const struct mt_uprobe *u)
{
	return u->warnings;
}

const char *mt_uprobe_late_file(const struct mt_uprobe *u)
{
	return u->late_file ? u->files[u->late_file - 1].path : NULL;
}

const char *mt_uprobe_warning_text(unsigned bit)
{
	size_t i;

	for (i = 0; i < sizeof(warning_texts) / sizeof(warning_texts[0]); i++)
		if (bit == 1u << i)
			return warning_texts[i];
	return "unknown warning";
}

void mt_uprobe_each_entry_only(const struct mt_uprobe *u,
			       void (*f)(void *arg, const char *name), void *arg)
{
	size_t i;

	for (i = 0; i < u->nprobes; i++)
		if (u->probes[i].no_return)
			f(arg, u->probes[i].shown ? u->probes[i].shown : u->probes[i].sym);
}

void mt_uprobe_stats(const struct mt_uprobe *u, struct mt_uprobe_stats *st)
{
	size_t i;

	*st = u->st;
	st->kept = 0;
	for (i = 0; i < u->nrings; i++)
		st->kept += u->rings[i].len;
	st->probes = u->nprobes;
}
