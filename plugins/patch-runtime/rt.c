/*
 * libmt-patch.so's start: preloaded into a command by mt-record --backend
 * patch, it maps the memory mt-record shares with it (shm.h; its
 * descriptor is in MT_PATCH_FD), waits for the function table, finds each
 * function in the process (dl_iterate_phdr), patches it (patch.h) and
 * says so. Without MT_PATCH_FD it does nothing. It removes itself from
 * the environment, so that the commands the process starts are not
 * patched, and closes the descriptor.
 */
#include <cpuid.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "hooks.h"
#include "patch.h"
#include "unwind.h"
#include "../../common/tsc.h"
#include "../../common/unhookable.h"
#include "../../common/banned.h"

static void fail(struct mtp_header *h, const char *what)
{
	snprintf(h->error, sizeof(h->error), "%s: %s", what, strerror(errno));
	__atomic_store_n(&h->state, MTP_ST_FAILED, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The invariant TSC (CPUID 0x80000007 EDX bit 8): one clock for every
 * CPU, at one rate. */
extern char **environ;

/* The value of environ's entry for name, or NULL: read directly, with
 * no library call (see env_set()). */
static const char *env_get(const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; environ && environ[i]; i++)
		if (!strncmp(environ[i], name, n) && environ[i][n] == '=')
			return environ[i] + n + 1;
	return NULL;
}

/*
 * Removes (value NULL) or replaces environ's entry for name, in place,
 * with no library call: a program may bring its own setenv and unsetenv
 * (bash does), which would change its own table, not yet made, and leave
 * the entry in what its children get. A replacement is malloced (kept).
 */
static void env_set(const char *name, const char *value)
{
	size_t n = strlen(name), i, j;

	for (i = j = 0; environ && environ[i]; i++) {
		if (!strncmp(environ[i], name, n) && environ[i][n] == '=') {
			size_t len = value ? n + strlen(value) + 2 : 0;
			char *v;

			if (!value || !(v = malloc(len)))
				continue; /* dropped */
			snprintf(v, len, "%s=%s", name, value);
			environ[j++] = v;
			continue;
		}
		environ[j++] = environ[i];
	}
	if (environ)
		environ[j] = NULL;
}

/* LD_PRELOAD without this library. */
static void unpreload(void)
{
	const char *v = env_get("LD_PRELOAD");
	char *copy, *out, *tok, *save;
	size_t n, len = 0;

	if (!v)
		return;
	n = strlen(v);
	if (!(copy = strdup(v)) || !(out = calloc(1, n + 1))) {
		free(copy);
		return;
	}
	for (tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
		const char *base = strrchr(tok, '/');
		size_t t = strlen(tok);

		if (!strcmp(base ? base + 1 : tok, "libmt-patch.so"))
			continue;
		if (len)
			out[len++] = ':'; /* the words and their colons fit in n */
		memcpy(out + len, tok, t);
		len += t;
	}
	out[len] = '\0';
	env_set("LD_PRELOAD", *out ? out : NULL);
	free(copy);
	free(out);
}

/* What find() looks for: the functions [0, nfuncs) and the scan ranges
 * [scan_lo, scan_hi) of the table. */
struct find {
	struct mtp_header *h;
	struct mtp_func *funcs;
	struct mtp_range *scan;
	const char *strings;
	uint32_t nfuncs, scan_lo, scan_hi;
	char exe[PATH_MAX];
	/* the objects the process maps: their paths (as mt-record names
	 * them: real, the executable's through /proc/self/exe) and load
	 * biases; nobjs is -1 when there was no memory for them */
	struct obj {
		char *path;
		uint64_t bias;
	} *objs;
	int nobjs, objs_cap;
};

/* Adds the object info to fd's. */
static int add_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *fd = arg;
	const char *name = info->dlpi_name;
	char real[PATH_MAX];

	(void)size;
	if (fd->nobjs < 0)
		return 1;
	if (!name || !*name)
		name = fd->exe;
	else if (realpath(name, real))
		name = real;
	if (fd->nobjs == fd->objs_cap) {
		int cap = fd->objs_cap ? 2 * fd->objs_cap : 64;
		struct obj *v = realloc(fd->objs, (size_t)cap * sizeof(*v));

		if (!v) {
			fd->nobjs = -1;
			return 1;
		}
		fd->objs = v;
		fd->objs_cap = cap;
	}
	if (!(fd->objs[fd->nobjs].path = strdup(name))) {
		fd->nobjs = -1;
		return 1;
	}
	fd->objs[fd->nobjs++].bias = info->dlpi_addr;
	return 0;
}

/* The object whose path is at strings offset off, or NULL: the answer
 * for the offset before kept (*last, *o), as a file's entries share
 * theirs. */
static const struct obj *obj_of(const struct find *fd, uint32_t off, uint32_t *last,
				const struct obj **o)
{
	int k;

	if (off == *last)
		return *o;
	*last = off;
	*o = NULL;
	for (k = 0; k < fd->nobjs; k++)
		if (!strcmp(fd->strings + off, fd->objs[k].path)) {
			*o = &fd->objs[k];
			break; /* the first of that path, as dl_iterate_phdr's */
		}
	return *o;
}

/* Sets where of fd's functions and ranges in the objects the process
 * maps: the table read once, in order. 0, or -1 (no memory). */
static int find(struct find *fd)
{
	const struct obj *o = NULL;
	uint32_t i, last = UINT32_MAX;
	int k, ret;

	fd->objs = NULL;
	fd->nobjs = fd->objs_cap = 0;
	dl_iterate_phdr(add_obj, fd);
	ret = fd->nobjs < 0 ? -1 : 0;
	for (i = 0; !ret && i < fd->nfuncs; i++) {
		struct mtp_func *f = &fd->funcs[i];

		if (!f->where && obj_of(fd, f->path, &last, &o))
			f->where = o->bias + f->addr;
	}
	for (i = fd->scan_lo; !ret && i < fd->scan_hi; i++) {
		struct mtp_range *r = &fd->scan[i];

		if (!r->where && obj_of(fd, r->path, &last, &o))
			r->where = o->bias + r->addr;
	}
	for (k = 0; k < fd->nobjs; k++)
		free(fd->objs[k].path);
	free(fd->objs);
	fd->objs = NULL;
	return ret;
}

/* fd set up for h's table. */
static void find_init(struct find *fd, struct mtp_header *h)
{
	fd->h = h;
	fd->funcs = (struct mtp_func *)((char *)h + h->funcs_off);
	fd->scan = (struct mtp_range *)((char *)h + h->scan_off);
	fd->strings = (const char *)h + h->strings_off;
	fd->nfuncs = h->nfuncs;
	fd->scan_lo = 0;
	fd->scan_hi = h->nscan;
	if (!realpath("/proc/self/exe", fd->exe))
		fd->exe[0] = '\0';
}

/* mtp_patch_given() for the scan ranges [lo, hi), found. */
static int given(struct find *fd, uint32_t lo, uint32_t hi)
{
	struct mtp_header *h = fd->h;
	uint32_t ng = __atomic_load_n(&h->ngiven, __ATOMIC_ACQUIRE);

	if (!h->given_off || ng > h->max_given)
		return 0;
	return mtp_patch_given(fd->scan, hi, lo, hi,
			       (const struct mtp_given *)((char *)h + h->given_off), ng,
			       (const uint64_t *)((char *)h + h->targets_off), h->max_targets,
			       &h->given_taken, &h->given_refused);
}

/* Whether process pid (mt-record) has ended: a wait for it is over. */
static int gone(uint32_t pid)
{
	return pid && kill((pid_t)pid, 0) && errno == ESRCH;
}

/* wait_for_table()'s: the decoder opened, and how many ranges from
 * scan_done it read */
static int early_open;
static uint32_t scan_early;

/*
 * Says WAITING and waits for the table (GO). Meanwhile reads the code of
 * the scan ranges mt-record publishes (scan_ready) for their branches,
 * the decoder opened for patching (commit: as mtp_patch_open()), each
 * found in the process first (find()) as patch_range() would, which
 * then goes on from there (early_open, scan_early).
 */
static void wait_for_table(struct mtp_header *h, int commit)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	uint32_t early = 0;
	int waited = 0, reading = 1;

	__atomic_store_n(&h->state, MTP_ST_WAITING, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	/* at most 60 s of waiting, less once mt-record is gone (killed) */
	while (waited < 3000 && !gone(h->recorder)) {
		uint32_t seq = __atomic_load_n(&h->table_seq, __ATOMIC_ACQUIRE);
		uint32_t ready = __atomic_load_n(&h->scan_ready, __ATOMIC_ACQUIRE);
		struct find fd;

		if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != MTP_ST_WAITING)
			break;
		if (!reading || ready <= early || ready > h->max_scan) {
			waited++;
			syscall(SYS_futex, &h->table_seq, FUTEX_WAIT, seq, &tick, NULL, 0);
			continue;
		}
		if (!early_open) {
			if (mtp_patch_open(commit)) {
				reading = 0; /* patch_range() says why */
				continue;
			}
			early_open = 1;
		}
		find_init(&fd, h);
		fd.nfuncs = 0; /* mt-record writes them still */
		fd.scan_lo = early;
		fd.scan_hi = ready;
		if (find(&fd) || given(&fd, early, ready) ||
		    mtp_patch_scan(fd.scan + early, ready - early)) {
			reading = 0; /* out of memory: patch_range() says so */
			continue;
		}
		early = ready;
	}
	scan_early = early;
}

/* Whether address a is in the set (open addressing, mask + 1 slots, 0
 * free); adds it if not. */
static int seen_before(uint64_t *set, uint64_t mask, uint64_t a)
{
	uint64_t k = (a * 0x9e3779b97f4a7c15ull >> 17) & mask;

	for (; set[k]; k = (k + 1) & mask)
		if (set[k] == a)
			return 1;
	set[k] = a;
	return 0;
}

/* The runtime's own file (its functions are never patched). */
static void own_path(char *out)
{
	Dl_info di;

	out[0] = '\0';
	if (dladdr((void *)own_path, &di) && di.dli_fname && !realpath(di.dli_fname, out))
		out[0] = '\0';
}

/* The table's functions and scan ranges done (patch_range()), and the
 * lock of a session's patching (mtp_attach, mtp_loaded). */
static uint32_t funcs_done, scan_done;
static pthread_mutex_t patching = PTHREAD_MUTEX_INITIALIZER;
/* objects ever loaded when the table was last offered them */
static unsigned long long adds_seen;
/* the sessions mtp_attach_thread() started */
static unsigned sessions;

/* How many objects were ever loaded (dl_phdr_info's dlpi_adds). */
static int count_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/*
 * Patches h's table from function funcs_done and scan range scan_done on:
 * finds each function, prepares its patch and, with commit, writes every
 * entry (else mt-record writes them, the process's threads stopped: the
 * entries stay pending). Returns 0, or -1 when it failed (FAILED).
 */
static int patch_range(struct mtp_header *h, int commit)
{
	static int forks_noted;
	struct find fd;
	char own[PATH_MAX];
	uint64_t *seen, mask;
	uint32_t i, early;
	int opened;

	opened = early_open;
	early = opened ? scan_early : 0;
	early_open = 0;
	scan_early = 0;
	if (!opened && mtp_patch_open(commit)) {
		fail(h, commit ? "/proc/self/mem" : "the decoder");
		return -1;
	}
	if (scan_done + early > h->nscan)
		early = h->nscan - scan_done; /* never: they were published */
	mtp_live_init();
	if (!forks_noted && pthread_atfork(NULL, NULL, mtp_forked)) {
		mtp_patch_close();
		fail(h, "pthread_atfork");
		return -1;
	}
	forks_noted = 1;
	find_init(&fd, h);
	fd.scan_lo = scan_done + early;
	own_path(own);
	if (find(&fd) || given(&fd, scan_done + early, h->nscan) ||
	    mtp_patch_targets(fd.scan + scan_done + early, h->nscan - scan_done - early)) {
		mtp_patch_close();
		errno = ENOMEM;
		fail(h, "the branch targets");
		return -1;
	}
	for (mask = 1; mask < 2 * (uint64_t)(h->nfuncs - funcs_done); mask <<= 1)
		;
	if (!(seen = calloc(mask, sizeof(*seen)))) {
		mtp_patch_close();
		fail(h, "the table's index");
		return -1;
	}
	mask--;
	/* every patch prepared first (Zydis, libc: code that may itself
	 * be patched), then every entry written */
	for (i = funcs_done; i < h->nfuncs; i++) {
		struct mtp_func *f = &fd.funcs[i];

		f->stub = 0;
		if (f->status == MTP_FN_PART)
			continue; /* mt-record's verdict: never patched */
		if (!strcmp(fd.strings + f->path, own)) {
			f->status = MTP_FN_RUNTIME;
			continue;
		}
		if (!f->where) {
			f->status = MTP_FN_NOT_LOADED;
			continue;
		}
		if (seen_before(seen, mask, f->where)) {
			f->status = MTP_FN_ALIAS;
			continue;
		}
		if (f->where == getauxval(AT_ENTRY) || mt_not_entered_by_call(fd.strings + f->name)) {
			f->status = MTP_FN_NOT_CALLED;
			continue;
		}
		if (f->kind == MTP_FK_TRACE && mt_returns_twice(fd.strings + f->name)) {
			f->status = MTP_FN_RETURNS_TWICE;
			continue;
		}
		if (f->kind == MTP_FK_TRACE &&
		    (!strncmp(fd.strings + f->name, "uw_", 3) ||
		     !strncmp(fd.strings + f->name, "_Unwind_", 8))) {
			f->status = MTP_FN_UNWINDER;
			continue;
		}
		if (f->kind != MTP_FK_TRACE) {
			uint64_t *cont, w = mtp_walker_slot(f->kind, &cont);

			if (!w)
				f->status = MTP_FN_TOO_MANY;
			else
				mtp_patch(f, i, cont, w);
			continue;
		}
		{
			uint64_t cont; /* the stub runs on into it */

			mtp_patch(f, i, &cont, 0);
		}
	}
	if (commit)
		mtp_patch_commit_all(fd.funcs + funcs_done, h->nfuncs - funcs_done);
	mtp_patch_close();
	free(seen);
	h->npatched = h->nskipped = 0;
	for (i = 0; i < h->nfuncs; i++) {
		uint32_t st = fd.funcs[i].status;

		if (st == MTP_FN_PATCHED || (st == MTP_FN_PENDING && fd.funcs[i].stub))
			h->npatched++;
		else if (st != MTP_FN_ALIAS) /* patched as its twin */
			h->nskipped++;
	}
	funcs_done = h->nfuncs;
	scan_done = h->nscan;
	return 0;
}

/* What wait_for_table() read, let go: no table came. */
static void early_close(void)
{
	if (early_open)
		mtp_patch_close();
	early_open = 0;
	scan_early = 0;
}

/* Patches h's whole table, then READY: 0, or -1 (FAILED). */
static int patch_table(struct mtp_header *h, int commit)
{
	funcs_done = scan_done = 0;
	dl_iterate_phdr(count_adds, &adds_seen);
	if (patch_range(h, commit))
		return -1;
	h->call_cost = mtp_calibrate();
	__atomic_store_n(&h->state, MTP_ST_READY, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return 0;
}

/* Once READY, with hold: until mt-record says run (shm.h), 10 s at most,
 * less once it is gone. */
static void wait_run(struct mtp_header *h)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int waited = 0;

	while (!__atomic_load_n(&h->run, __ATOMIC_ACQUIRE) && waited++ < 500 &&
	       !gone(h->recorder))
		syscall(SYS_futex, &h->run, FUTEX_WAIT, 0, &tick, NULL, 0);
}

/* Waits (2 s at most) for *at to be v: 1 once it is, else 0. */
static int wait_for(uint32_t *at, uint32_t v)
{
	int waited = 0;
	uint32_t now;

	while ((now = __atomic_load_n(at, __ATOMIC_ACQUIRE)) != v && waited++ < 20) {
		struct timespec tick = { 0, 100 * 1000 * 1000 };

		syscall(SYS_futex, at, FUTEX_WAIT, now, &tick, NULL, 0);
	}
	return now == v;
}

void mtp_loaded(void)
{
	struct mtp_header *h;
	unsigned long long adds = 0;
	uint32_t gen;

	dl_iterate_phdr(count_adds, &adds);
	if (adds == __atomic_load_n(&adds_seen, __ATOMIC_RELAXED) || !*mtp_live)
		return;
	pthread_mutex_lock(&patching);
	/* inside a hook (hooks.c: mtp_busy_n) until the memory's own count
	 * holds it */
	mtp_busy(1);
	h = *mtp_live ? mtp_shm : NULL;
	if (!h || adds == adds_seen ||
	    __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != MTP_ST_READY) {
		mtp_busy(0);
		pthread_mutex_unlock(&patching);
		return;
	}
	adds_seen = adds;
	__atomic_add_fetch(&h->busy, 1, __ATOMIC_ACQ_REL);
	mtp_busy(0);
	mtp_quiet(1);
	gen = __atomic_add_fetch(&h->dl_gen, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->dl_gen, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	/* mt-record adds the libraries' functions, then writes their
	 * entries: 2 s at most each (it may be gone) */
	if (wait_for(&h->dl_ack, gen) && !patch_range(h, 0)) {
		__atomic_store_n(&h->dl_prepared, gen, __ATOMIC_RELEASE);
		syscall(SYS_futex, &h->dl_prepared, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		wait_for(&h->dl_done, gen);
	}
	mtp_quiet(0);
	__atomic_sub_fetch(&h->busy, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&patching);
}

/* Maps the memory on memfd (closing it): the header, or NULL when it is
 * not mt-record's (size, magic, version, state NEW). */
static struct mtp_header *map_shared(int memfd)
{
	struct mtp_header *h;
	struct stat st;
	void *p;

	if (fstat(memfd, &st) || st.st_size < (off_t)sizeof(*h)) {
		close(memfd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	close(memfd);
	if (p == MAP_FAILED)
		return NULL;
	h = p;
	if (h->magic != MTP_MAGIC || h->version != MTP_VERSION ||
	    h->size != (uint64_t)st.st_size || h->state != MTP_ST_NEW) {
		munmap(p, (size_t)st.st_size);
		return NULL;
	}
	return h;
}

/* The runtime's own executable segment, into h. */
static int own_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mtp_header *h = arg;
	uint64_t me = (uint64_t)own_code;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo &&
		    me < lo + ph->p_memsz) {
			h->own_lo = lo;
			h->own_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

/* The clock, noted in h; h becomes the memory the hooks record into. */
static void start_clock(struct mtp_header *h)
{
	h->tramp = (uint64_t)mtp_return_tramp;
	dl_iterate_phdr(own_code, h);
	h->pid = (uint32_t)getpid();
	h->self = (uint64_t)h;
	h->shm_at = (uint64_t)&mtp_shm;
	mtp_live_init();
	h->live_at = (uint64_t)mtp_live;
	h->busy_tls = mtp_busy_offset();
	h->clock = mt_tsc_invariant() ? MTP_CLOCK_TSC : MTP_CLOCK_MONOTONIC;
	mtp_shm = h;
	h->mono0 = mt_mono_now();
	h->tsc0 = mtp_now();
}

__attribute__((constructor)) static void mtp_start(void)
{
	const char *v = env_get(MTP_ENV_FD);
	struct mtp_header *h;
	int fd;

	if (!v)
		return;
	fd = atoi(v);
	env_set(MTP_ENV_FD, NULL);
	unpreload();
	if (!(h = map_shared(fd)))
		return;
	pthread_mutex_lock(&patching);
	start_clock(h);
	/* glibc loads libgcc_s for backtrace() and pthread_exit only when
	 * first needed, too late to patch its walkers (unwind.c): loaded
	 * now, the process maps it when its table is made */
	dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	wait_for_table(h, 1);
	mtp_quiet(1);
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == MTP_ST_GO) {
		if (!patch_table(h, 1) && __atomic_load_n(&h->hold, __ATOMIC_ACQUIRE))
			wait_run(h);
	} else {
		early_close(); /* mt-record went away: run unpatched */
	}
	mtp_quiet(0);
	pthread_mutex_unlock(&patching);
}

/* Waits (ticks of 5 ms at most: mt-record writes *at through
 * /proc/PID/mem, no futex wakes this) for *at to be v, while process
 * recorder runs: 1 once it is. */
static int wait_long(uint32_t *at, uint32_t v, int ticks, uint32_t recorder)
{
	uint32_t now;

	while ((now = __atomic_load_n(at, __ATOMIC_ACQUIRE)) != v && ticks-- > 0 &&
	       !gone(recorder)) {
		struct timespec tick = { 0, 5 * 1000 * 1000 };

		syscall(SYS_futex, at, FUTEX_WAIT, now, &tick, NULL, 0);
	}
	return now == v;
}

static void phase(struct mtp_boot *b, uint32_t p)
{
	__atomic_store_n(&b->phase, p, __ATOMIC_RELEASE);
	syscall(SYS_futex, &b->phase, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * mt-record -p has a thread of its own made in the running process
 * (boot.h: a glibc thread holding no lock of the program's) call
 * this once it has dlopened this library. An earlier session still in
 * place (its mt-record killed) is offered to mt-record to undo first
 * (STALE, answer UNDONE); then the memory: a memfd made here, which
 * mt-record takes (MEMFD), checks, sizes and seals and whose header it
 * writes (answer SIZED); mapped, the table awaited (WAITING, GO), every
 * patch prepared, not written (mt-record writes them with every thread
 * stopped): READY, or FAILED. Every wait is 10 s at most (mt-record may
 * have been killed): the process then runs on, nothing patched.
 */
__attribute__((visibility("default"))) void mtp_attach_thread(struct mtp_boot *b);

/* mtp_attach_thread(), under the lock: the phase it ends in. */
static uint32_t attach_locked(struct mtp_boot *b)
{
	struct mtp_header *h, *old = mtp_shm;
	/* mt-record cleared mtp_shm after a clean detach (and unmapped it) */
	int reuse = !old && __atomic_load_n(&sessions, __ATOMIC_RELAXED) > 0;
	int fd;

	if (old && __atomic_load_n(&old->state, __ATOMIC_ACQUIRE) != MTP_ST_DETACHED) {
		b->stale = (uint64_t)old;
		phase(b, MTPB_P_STALE);
		if (!wait_long(&b->answer, MTPB_A_UNDONE, 2000, b->recorder) ||
		    __atomic_load_n(&old->state, __ATOMIC_ACQUIRE) != MTP_ST_DETACHED)
			return MTPB_P_GAVE_UP;
	}
	if ((fd = (int)syscall(SYS_memfd_create, "mt-patch", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0)
		return MTPB_P_GAVE_UP;
	b->memfd = fd;
	phase(b, MTPB_P_MEMFD);
	if (!wait_long(&b->answer, MTPB_A_SIZED, 2000, b->recorder)) {
		close(fd);
		return MTPB_P_GAVE_UP;
	}
	if (!(h = map_shared(fd))) /* (which closed it) */
		return MTPB_P_GAVE_UP;
	/* no thread runs in the hooks or stubs of a session undone (mt-record
	 * stepped them out): its memory can go */
	if (old) {
		if (old->clean)
			mtp_patch_reuse();
		munmap(old, (size_t)old->size);
	} else if (reuse) {
		mtp_patch_reuse(); /* the last one undone whole and unmapped */
	}
	mtp_walker_reset();
	mtp_new_session();
	start_clock(h);
	/* the last session's detach cleared it (a fork's child: its page's
	 * wipe), this one records */
	__atomic_store_n(mtp_live, 1, __ATOMIC_RELEASE);
	sessions++;
	phase(b, MTPB_P_WAITING);
	wait_for_table(h, 0);
	mtp_quiet(1);
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == MTP_ST_GO)
		patch_table(h, 0); /* else mt-record went away: nothing patched */
	else
		early_close();
	mtp_quiet(0);
	return MTPB_P_ENDED;
}

void mtp_attach_thread(struct mtp_boot *b)
{
	uint32_t ph;

	b->loader_tid = (uint32_t)syscall(SYS_gettid);
	/* one attach at a time: a loader left by a killed mt-record may
	 * still wait (until it sees mt-record gone) */
	pthread_mutex_lock(&patching);
	ph = attach_locked(b);
	pthread_mutex_unlock(&patching);
	phase(b, ph);
}
