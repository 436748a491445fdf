/*
 * The patch backend's recorder side: see patch-rec.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "demangle.h"
#include "die.h"
#include "libpath.h"
#include "inject.h"
#include "patch-rec.h"
#include "shm.h"
#include "stream.h"
#include "streamout.h"
#include "symtab.h"
#include "target.h"
#include "banned.h"

#define STRINGS_SIZE (8u << 20)

/* The stack walkers the runtime wraps (enum mtp_fkind), by name. */
static uint32_t walker(const char *name)
{
#define W(n, k) if (!strcmp(name, n)) return k;
	MTP_WALKERS(W)
#undef W
	return MTP_FK_TRACE;
}

static const char *const status_text[MTP_FN_NSTATUS] = {
	"not patched", "patched", "its file is not mapped",
	"too short (fewer than 5 bytes)", "its size is unknown",
	"an instruction capstone cannot decode",
	"a branch into the bytes its patch replaces",
	"an instruction that cannot be moved",
	"no room for a trampoline within 2 GiB", "an alias of another",
	"writing its entry failed", "too many copies of the walker",
	"not entered by a call (the entry point, a signal return, lazy binding)",
	"libgcc's unwinder (it reads its own return addresses)",
	"it returns twice (setjmp, getcontext, vfork)",
	"the patch runtime's own",
	"a thread stopped in a system call inside its entry, or one that would not step out",
	"a part of another function (.cold, or inside another's bytes), entered by a jump"
};

static uint64_t mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t tsc_now(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return mono_now();
#endif
}

/* A (TSC, CLOCK_MONOTONIC) pair read together: of five tries, the one
 * whose two clock reads lie closest, the clock at their middle. */
static void clock_pair(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t a = mono_now(), t = tsc_now(), b = mono_now();

		if (b - a < best) {
			best = b - a;
			*tsc = t;
			*mono = a + (b - a) / 2;
		}
	}
}

void patch_rec_init(struct patch_rec *p, uint64_t ring_bytes, int fd)
{
	uint64_t nrec = (ring_bytes ? ring_bytes : PATCH_RING_BYTES) / sizeof(struct mtp_rec);
	uint64_t funcs_off = 4096, scan_off, strings_off, threads_off, stride;
	struct mtp_header *h;

	memset(p, 0, sizeof(*p));
	while (nrec & (nrec - 1))
		nrec &= nrec - 1; /* a power of two: the largest not above */
	if (nrec < 1024)
		nrec = 1024;
	scan_off = funcs_off + (uint64_t)PATCH_MAX_FUNCS * sizeof(struct mtp_func);
	strings_off = scan_off + (uint64_t)PATCH_MAX_SCAN * sizeof(struct mtp_range);
	threads_off = (strings_off + STRINGS_SIZE + 4095) & ~4095ull;
	stride = sizeof(struct mtp_thread) + nrec * sizeof(struct mtp_rec);
	p->size = threads_off + PATCH_MAX_THREADS * stride;
	/* not close-on-exec: the command inherits it (the runtime closes
	 * it); memory is used as the rings fill */
	if ((p->memfd = fd) < 0 && (p->memfd = memfd_create("mt-patch", MFD_ALLOW_SEALING)) < 0)
		die_errno(MT_EXIT_SYSTEM, "memfd_create");
	/* sealed at its size: the process can neither shrink it (mt-record
	 * reading it would die of SIGBUS) nor grow it */
	if (ftruncate(p->memfd, (off_t)p->size) ||
	    fcntl(p->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		die_errno(MT_EXIT_SYSTEM, "the patch backend's memory (%zu bytes)", p->size);
	h = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, 0);
	if (h == MAP_FAILED)
		die_errno(MT_EXIT_SYSTEM, "the patch backend's memory (%zu bytes)", p->size);
	p->h = h;
	h->magic = MTP_MAGIC;
	h->version = MTP_VERSION;
	h->size = p->size;
	h->max_funcs = PATCH_MAX_FUNCS;
	h->strings_size = STRINGS_SIZE;
	h->max_threads = PATCH_MAX_THREADS;
	h->ring_records = nrec;
	h->recorder = (uint32_t)getpid();
	h->funcs_off = funcs_off;
	h->scan_off = scan_off;
	h->max_scan = PATCH_MAX_SCAN;
	h->strings_off = strings_off;
	h->threads_off = threads_off;
	h->thread_stride = stride;
	p->fn = (struct mtp_func *)((char *)h + funcs_off);
	p->scan = (struct mtp_range *)((char *)h + scan_off);
	p->strings = (char *)h + strings_off;
	p->nstr = 1;
	p->shown = calloc(PATCH_MAX_FUNCS, sizeof(*p->shown));
	p->taken = calloc(PATCH_MAX_THREADS, sizeof(*p->taken));
	p->stalled = calloc(2 * PATCH_MAX_THREADS, sizeof(*p->stalled));
	p->gen_seen = calloc(PATCH_MAX_THREADS, sizeof(*p->gen_seen));
	if (!p->shown || !p->taken || !p->stalled || !p->gen_seen)
		die(MT_EXIT_SYSTEM, "out of memory");
	clock_pair(&p->tsc_a, &p->mono_a);
	snprintf(p->env_fd, sizeof(p->env_fd), MTP_ENV_FD "=%d", p->memfd);
}

int patch_rec_own_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "libmt-patch.so") || !strncmp(base, "libcapstone.so", 14);
}

int patch_rec_check_memfd(int fd, char *why, size_t len)
{
	char path[64], link[PATH_MAX];
	struct stat st;
	ssize_t n;
	int flags, seals;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fstat(fd, &st)) {
		snprintf(why, len, "not a descriptor it may use: %s", strerror(errno));
		return -1;
	}
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	seals = fcntl(fd, F_GET_SEALS);
	if ((flags & O_PATH) || (flags & O_ACCMODE) != O_RDWR || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 0 || st.st_size != 0 || seals != 0 ||
	    strncmp(link, "/memfd:mt-patch ", 16)) {
		snprintf(why, len, "not the new memfd the runtime was to make (%s, mode "
			 "%o, %ju links, %jd bytes, seals %d)", n > 0 ? link : "?",
			 (unsigned)st.st_mode, (uintmax_t)st.st_nlink, (intmax_t)st.st_size,
			 seals);
		return -1;
	}
	return 0;
}

char *patch_runtime_path(void)
{
	char *so = mt_lib_path("libmt-patch.so");

	if (!so)
		die(MT_EXIT_SYSTEM, "the patch backend's runtime libmt-patch.so is "
		    "not installed beside mt-record (in ../lib/mt/ or ../lib/ "
		    "from it)");
	return so;
}

int patch_rec_refuses(const char *exe, int is_go, char *why, size_t len)
{
	Elf64_Ehdr e;
	Elf64_Phdr ph;
	struct stat st;
	int fd = open(exe, O_RDONLY | O_CLOEXEC), interp = 0;
	uint16_t i;

	if (is_go) {
		snprintf(why, len, "a Go program: its stacks move as they grow, the "
			 "return addresses the patch backend keeps would go stale "
			 "(use --backend uprobe or sample)");
		return 1;
	}
	if (fd < 0 || pread(fd, &e, sizeof(e), 0) != (ssize_t)sizeof(e) ||
	    memcmp(e.e_ident, ELFMAG, SELFMAG)) {
		if (fd >= 0)
			close(fd);
		snprintf(why, len, "not an ELF executable that can be read");
		return 1;
	}
	if (e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_machine != EM_X86_64) {
		close(fd);
		snprintf(why, len, "not an x86-64 program: the patch backend patches "
			 "x86-64 code only");
		return 1;
	}
	for (i = 0; i < e.e_phnum; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(e.e_phoff + (uint64_t)i * e.e_phentsize)) ==
		    (ssize_t)sizeof(ph) && ph.p_type == PT_INTERP)
			interp = 1;
	if (!interp) {
		close(fd);
		snprintf(why, len, "statically linked: the patch backend's runtime "
			 "is loaded by the dynamic loader (use --backend uprobe)");
		return 1;
	}
	/* run with privileges mt-record does not have (set-user-ID or
	 * set-group-ID to another, file capabilities), the program is a
	 * secure execution: the dynamic loader ignores LD_PRELOAD */
	if (!fstat(fd, &st) &&
	    (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	     ((st.st_mode & S_ISGID) && st.st_gid != getegid()) ||
	     (geteuid() != 0 && fgetxattr(fd, "security.capability", NULL, 0) >= 0))) {
		close(fd);
		snprintf(why, len, "%s: the dynamic loader ignores LD_PRELOAD in it, so the "
			 "runtime cannot be loaded (run mt-record as its owner, or root)",
			 (st.st_mode & S_ISUID) ? "set-user-ID" : (st.st_mode & S_ISGID) ?
			 "set-group-ID" : "it has file capabilities");
		return 1;
	}
	close(fd);
	return 0;
}

void patch_rec_env(struct patch_rec *p, const char *runtime, char **env, char **preload)
{
	const char *old = getenv("LD_PRELOAD");

	if (asprintf(preload, "LD_PRELOAD=%s%s%s", runtime, old && *old ? ":" : "",
		     old && *old ? old : "") < 0)
		die(MT_EXIT_SYSTEM, "out of memory");
	env[0] = p->env_fd;
	env[1] = *preload;
	env[2] = NULL;
}

/* Waits while the state is from (while keep_waiting(), at most limit ns
 * if not 0): the state then. */
static uint32_t wait_state(struct patch_rec *p, uint32_t from, uint64_t limit,
			   int (*keep_waiting)(void *ctx), void *ctx)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	uint64_t start = mono_now();
	uint32_t s;

	while ((s = __atomic_load_n(&p->h->state, __ATOMIC_ACQUIRE)) == from) {
		if (!keep_waiting(ctx) || (limit && mono_now() - start > limit))
			break;
		syscall(SYS_futex, &p->h->state, FUTEX_WAIT, from, &tick, NULL, 0);
	}
	return s;
}

int patch_rec_wait_loaded(struct patch_rec *p, int (*keep_waiting)(void *ctx), void *ctx)
{
	return wait_state(p, MTP_ST_NEW, 10000000000ull, keep_waiting, ctx) ==
	       MTP_ST_WAITING ? 0 : -1;
}

/* The strings offset of a copy of s (len bytes). */
static uint32_t add_string(struct patch_rec *p, const char *s, size_t len)
{
	uint32_t at = p->nstr;

	if (len + 1 > STRINGS_SIZE - p->nstr)
		die(MT_EXIT_DATA, "the patch backend's table is full (%u bytes of "
		    "names): choose fewer functions with --functions", STRINGS_SIZE);
	memcpy(p->strings + at, s, len);
	p->strings[at + len] = '\0';
	p->nstr += (uint32_t)len + 1;
	return at;
}

/* Adds function s of path with kind k. */
static void add(struct patch_rec *p, const char *path, const struct mt_sym *s, uint32_t k)
{
	struct mtp_func *f;
	char *dm;

	if (p->nfn == PATCH_MAX_FUNCS)
		die(MT_EXIT_DATA, "the patch backend traces at most %u functions: "
		    "choose fewer with --functions", PATCH_MAX_FUNCS);
	if (!p->last_path || strcmp(p->strings + p->last_path, path))
		p->last_path = add_string(p, path, strlen(path));
	f = &p->fn[p->nfn];
	memset(f, 0, sizeof(*f));
	f->addr = s->addr;
	f->size = s->size;
	f->path = p->last_path;
	f->name = add_string(p, s->name, strlen(s->name));
	f->kind = k;
	dm = mt_demangle(s->name, MT_DEMANGLE_PERF);
	p->shown[p->nfn] = dm ? add_string(p, dm, strlen(dm)) : f->name;
	free(dm);
	p->h->nfuncs = ++p->nfn;
}

void patch_rec_add(struct patch_rec *p, const char *path, const struct mt_sym *s)
{
	if (walker(s->name) == MTP_FK_TRACE)
		add(p, path, s, MTP_FK_TRACE);
}

void patch_rec_add_part(struct patch_rec *p, const char *path, const struct mt_sym *s)
{
	add(p, path, s, MTP_FK_TRACE);
	p->fn[p->nfn - 1].status = MTP_FN_PART;
}

/* The walkers of the file path (only: a mask of the kinds, 0 all). */
static void add_walkers_of(struct patch_rec *p, const struct target *tgt, const char *path,
			   int must, uint32_t only)
{
	struct mt_symfile f = MT_SYMFILE_INIT;
	size_t i;

	if (read_symbols(tgt, &f, path, must) == 0)
		for (i = 0; i < f.t.n; i++) {
			const struct mt_sym *s = &f.t.v[i];
			uint32_t k = walker(s->name);

			if (k != MTP_FK_TRACE && (!only || (only >> k & 1)) && s->addr &&
			    s->bind != MT_SYM_PLT)
				add(p, path, s, k);
		}
	mt_symfile_release(&f);
}

void patch_rec_add_lib_walkers(struct patch_rec *p, const struct target *tgt, char *const *libs)
{
	size_t k;

	for (k = 0; libs[k]; k++) {
		const char *base = strrchr(libs[k], '/');

		base = base ? base + 1 : libs[k];
		/* libc's _Unwind_* only pass the call on to libgcc_s's */
		if (!strncmp(base, "libgcc_s", 8) || !strncmp(base, "libstdc++", 9))
			add_walkers_of(p, tgt, libs[k], 0, 0);
		else if (!strncmp(base, "libc.so", 7))
			add_walkers_of(p, tgt, libs[k], 0,
				       1u << MTP_FK_LONGJMP | 1u << MTP_FK_DLOPEN |
				       1u << MTP_FK_VFORK | 1u << MTP_FK_QUIET);
	}
}

void patch_rec_add_walkers(struct patch_rec *p, const struct target *tgt, const char *exe)
{
	char **libs = mapped_libraries(tgt);

	add_walkers_of(p, tgt, exe, 1, 0);
	patch_rec_add_lib_walkers(p, tgt, libs);
	free_paths(libs);
}

int patch_rec_has_file(const struct patch_rec *p, const char *path)
{
	size_t j;

	for (j = 0; j < p->nscanned; j++)
		if (!strcmp(p->strings + p->scanned[j], path))
			return 1;
	return 0;
}

/* path (a strings offset) is looked at. */
static void saw(struct patch_rec *p, uint32_t path)
{
	grow_or_die(&p->scanned, &p->scanned_cap, p->nscanned + 1, sizeof(*p->scanned));
	p->scanned[p->nscanned++] = path;
}

void patch_rec_saw_file(struct patch_rec *p, const char *path)
{
	if (!patch_rec_has_file(p, path))
		saw(p, add_string(p, path, strlen(path)));
}

int patch_rec_dl_asked(const struct patch_rec *p)
{
	return __atomic_load_n(&p->h->dl_gen, __ATOMIC_ACQUIRE) != p->dl_acked;
}

void patch_rec_dl_answer(struct patch_rec *p)
{
	p->dl_acked = __atomic_load_n(&p->h->dl_gen, __ATOMIC_ACQUIRE);
	__atomic_store_n(&p->h->dl_ack, p->dl_acked, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->dl_ack, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int patch_rec_dl_prepared(struct patch_rec *p)
{
	uint32_t g = __atomic_load_n(&p->h->dl_prepared, __ATOMIC_ACQUIRE);

	if (g == p->dl_committed)
		return 0;
	p->dl_committed = g;
	return 1;
}

void patch_rec_dl_done(struct patch_rec *p)
{
	__atomic_store_n(&p->h->dl_done, p->dl_committed, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->dl_done, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void patch_rec_add_neighbours(struct patch_rec *p, const struct target *tgt)
{
	uint32_t i, path;

	for (i = p->neighbours_done; i < p->nfn; i++) {
		struct mt_symfile f = MT_SYMFILE_INIT;
		size_t k;

		path = p->fn[i].path;
		if (i && p->fn[i - 1].path == path)
			continue;
		if (patch_rec_has_file(p, p->strings + path))
			continue; /* read already */
		saw(p, path);
		if (read_symbols(tgt, &f, p->strings + path, 0) == 0)
			for (k = 0; k < f.t.n; k++) {
				const struct mt_sym *s = &f.t.v[k];
				struct mtp_range *r;

				if (!s->size || !s->addr || s->bind == MT_SYM_PLT)
					continue;
				if (p->h->nscan == PATCH_MAX_SCAN)
					die(MT_EXIT_DATA, "the patch backend reads at most %u "
					    "functions for branches into those it patches: "
					    "choose fewer libraries with --functions",
					    PATCH_MAX_SCAN);
				r = &p->scan[p->h->nscan++];
				r->addr = s->addr;
				r->size = s->size;
				r->where = 0;
				r->path = path;
			}
		mt_symfile_release(&f);
	}
	p->neighbours_done = p->nfn;
}

int patch_rec_go(struct patch_rec *p, int (*keep_waiting)(void *ctx), void *ctx)
{
	uint32_t s;

	p->h->nfuncs = p->nfn;
	__atomic_store_n(&p->h->state, MTP_ST_GO, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	s = wait_state(p, MTP_ST_GO, 0, keep_waiting, ctx);
	if (s == MTP_ST_FAILED)
		die(MT_EXIT_SYSTEM, "the patch runtime failed: %.*s",
		    (int)sizeof(p->h->error), p->h->error);
	return s == MTP_ST_READY ? 0 : -1;
}

/* The bytes an entry patch replaces but its first: [lo, hi). */
struct span {
	uint64_t lo, hi;
};

static int in_span(const void *ctx, uint64_t ip)
{
	const struct span *sp = ctx;

	return ip >= sp->lo && ip < sp->hi;
}

/*
 * Whether every held thread of in is out of the bytes [where + 1, where +
 * cover) an entry patch replaces: one stopped there is let run on a
 * moment (every other thread stopped) until it is out; one stopped in a
 * system call there, or just after (restarted 2 bytes back), cannot be.
 * 1 when all are out.
 */
static int all_out(struct inject *in, uint64_t where, uint32_t cover)
{
	struct span sp = { where + 1, where + cover };
	size_t i;

	for (i = 0; i < in->n; i++) {
		uint64_t ip = in->t[i].ip;

		if (in->t[i].in_syscall) {
			if (ip > where && ip <= where + cover)
				return 0;
			continue;
		}
		if (in_span(&sp, ip) && (inject_run_out(in, i, in_span, &sp, 50) ||
					 in->t[i].in_syscall))
			return 0;
	}
	return 1;
}

void patch_rec_commit(struct patch_rec *p, struct inject *in)
{
	uint8_t now[MTP_MAX_COVER];
	uint32_t i;

	for (i = 0; i < p->nfn; i++) {
		struct mtp_func *f = &p->fn[i];

		if (f->status != MTP_FN_PENDING || !f->stub || !f->cover ||
		    f->cover > MTP_MAX_COVER)
			continue;
		/* a thread inside the bytes replaced would run on in int3s */
		if (!all_out(in, f->where, f->cover))
			f->status = MTP_FN_BUSY;
		else if (inject_read(in, f->where, now, f->cover) ||
			 memcmp(now, f->orig, f->cover) ||
			 inject_write(in, f->where, f->code, f->cover))
			f->status = MTP_FN_WRITE;
		else
			f->status = MTP_FN_PATCHED;
	}
}

/* Whether ip is in one of the stubs (their addresses, sorted). */
static int in_stub(const uint64_t *stub, uint32_t n, uint64_t ip)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) { /* the first stub above ip */
		uint32_t mid = lo + (hi - lo) / 2;

		if (stub[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && ip < stub[lo - 1] + MTP_STUB_MAX;
}

/* The runtime's code and the stubs. */
struct hooked {
	uint64_t own_lo, own_hi;
	const uint64_t *stub;
	uint32_t nstub;
};

static int in_hooks(const void *ctx, uint64_t ip)
{
	const struct hooked *hk = ctx;

	return (ip >= hk->own_lo && ip < hk->own_hi) || in_stub(hk->stub, hk->nstub, ip);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Thread t's patched frames get their return addresses back, and its
 * shadow stack is emptied. */
static void unhook_thread(struct patch_rec *p, struct inject *in, const struct mtp_thread *t)
{
	struct mtp_shadow fr;
	uint32_t depth, zero = 0;
	uint64_t word;

	if (!t->depth_at || inject_read(in, t->depth_at, &depth, sizeof(depth)))
		return;
	/* newest first: of two frames at one slot (an older one left by
	 * a longjmp) the newest is on the stack */
	while (depth > 0) {
		depth--;
		if (inject_read(in, t->stack_at + (uint64_t)depth * sizeof(fr), &fr, sizeof(fr)))
			break;
		if (!inject_read(in, fr.slot, &word, sizeof(word)) && word == p->h->tramp &&
		    inject_write(in, fr.slot, &fr.ret, sizeof(fr.ret)))
			p->undo_failed++;
	}
	if (inject_write(in, t->depth_at, &zero, sizeof(zero)))
		p->undo_failed++;
}

void patch_rec_undo(struct patch_rec *p, struct inject *in)
{
	const struct mtp_header *h = p->h;
	uint8_t now[MTP_MAX_COVER];
	uint64_t *stub;
	uint32_t nstub = 0, i;
	size_t k;

	/* no thread inside the runtime or a stub: let run on until it is out
	 * (a hook half done would push or pop a frame after the undoing) */
	if (!(stub = malloc((p->nfn + 1) * sizeof(*stub))))
		die(MT_EXIT_SYSTEM, "out of memory");
	for (i = 0; i < p->nfn; i++)
		if (p->fn[i].stub)
			stub[nstub++] = p->fn[i].stub;
	qsort(stub, nstub, sizeof(*stub), by_value);
	{
		struct hooked hk = { h->own_lo, h->own_hi, stub, nstub };

		for (k = 0; k < in->n; k++)
			if (in_hooks(&hk, in->t[k].ip) && inject_run_out(in, k, in_hooks, &hk, 1000))
				p->undo_failed++;
	}
	free(stub);
	/* every entry back as it was (where it still holds the patch) */
	for (i = 0; i < p->nfn; i++) {
		struct mtp_func *f = &p->fn[i];

		if (f->status != MTP_FN_PATCHED)
			continue;
		if (inject_read(in, f->where, now, f->cover) || memcmp(now, f->code, f->cover) ||
		    inject_write(in, f->where, f->orig, f->cover))
			p->undo_failed++;
	}
	/* every frame's return address back */
	for (i = 0; i < h->max_threads && i < h->nthreads; i++) {
		const struct mtp_thread *t = (const struct mtp_thread *)
			((const char *)h + h->threads_off + (uint64_t)i * h->thread_stride);
		size_t j;

		if (t->pid != (uint32_t)in->pid)
			continue; /* a child's, after fork */
		for (j = 0; j < in->n && in->t[j].tid != (pid_t)t->tid; j++)
			;
		if (j < in->n)
			unhook_thread(p, in, t);
	}
	p->h->clean = !p->undo_failed;
	__atomic_store_n(&p->h->state, MTP_ST_DETACHED, __ATOMIC_RELEASE);
}

pid_t patch_rec_stale_owner(const struct inject *in, uint64_t at)
{
	uint32_t who;
	char path[64], comm[32];
	FILE *f;
	int live = 0;

	if (inject_read(in, at + offsetof(struct mtp_header, recorder), &who, sizeof(who)) ||
	    !who || (pid_t)who == getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/comm", who);
	if ((f = fopen(path, "re"))) {
		live = fgets(comm, sizeof(comm), f) && !strcmp(comm, "mt-record\n");
		fclose(f);
	}
	return live ? (pid_t)who : 0;
}

int patch_rec_undo_stale(struct inject *in, uint64_t at)
{
	struct mtp_header h;
	struct patch_rec old;
	char *buf;
	uint64_t size, slots, i;
	uint32_t state = MTP_ST_DETACHED, failed;

	if (inject_read(in, at, &h, sizeof(h)) || h.magic != MTP_MAGIC ||
	    h.version != MTP_VERSION || h.nfuncs > h.max_funcs || h.funcs_off < sizeof(h) ||
	    h.nthreads > (1u << 16))
		return -1;
	/* a copy: the header, the table at its offset, then each thread's
	 * slot header only (not its ring), as one of their own */
	if (h.nthreads > h.max_threads)
		h.nthreads = h.max_threads;
	slots = h.funcs_off + (uint64_t)h.nfuncs * sizeof(struct mtp_func);
	size = slots + (uint64_t)h.nthreads * sizeof(struct mtp_thread);
	if (!(buf = calloc(1, size)))
		die(MT_EXIT_SYSTEM, "out of memory");
	memcpy(buf, &h, sizeof(h));
	if (inject_read(in, at + h.funcs_off, buf + h.funcs_off,
			(size_t)h.nfuncs * sizeof(struct mtp_func))) {
		free(buf);
		return -1;
	}
	for (i = 0; i < h.nthreads; i++)
		if (inject_read(in, at + h.threads_off + i * h.thread_stride,
				buf + slots + i * sizeof(struct mtp_thread), sizeof(struct mtp_thread)))
			memset(buf + slots + i * sizeof(struct mtp_thread), 0,
			       sizeof(struct mtp_thread));
	memset(&old, 0, sizeof(old));
	old.h = (struct mtp_header *)buf;
	old.h->threads_off = slots;
	old.h->thread_stride = sizeof(struct mtp_thread);
	old.fn = (struct mtp_func *)(buf + h.funcs_off);
	old.nfn = h.nfuncs;
	patch_rec_undo(&old, in);
	failed = old.undo_failed;
	free(buf);
	if (inject_write(in, at + offsetof(struct mtp_header, clean), &(uint32_t){ !failed },
			 sizeof(uint32_t)) ||
	    inject_write(in, at + offsetof(struct mtp_header, state), &state, sizeof(state)))
		return -1;
	return failed ? -1 : 0;
}

uint32_t patch_rec_patched(const struct patch_rec *p)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->nfn; i++)
		n += p->fn[i].status == MTP_FN_PATCHED && p->fn[i].kind == MTP_FK_TRACE;
	return n;
}

uint32_t patch_rec_skipped(const struct patch_rec *p)
{
	uint32_t i, n = 0;

	for (i = 0; i < p->nfn; i++)
		n += p->fn[i].status != MTP_FN_PATCHED && p->fn[i].kind == MTP_FK_TRACE &&
		     p->fn[i].status != MTP_FN_ALIAS;
	return n;
}

void patch_rec_list(const struct patch_rec *p, int all)
{
	uint32_t i;

	for (i = 0; i < p->nfn; i++) {
		const struct mtp_func *f = &p->fn[i];
		const char *why = f->status < MTP_FN_NSTATUS ? status_text[f->status] : "?";

		if (f->status == MTP_FN_PATCHED && !all)
			continue;
		if (f->kind != MTP_FK_TRACE)
			warn("%s (%s): %s", p->strings + f->name, p->strings + f->path,
			     f->status != MTP_FN_PATCHED ? why :
			     f->kind == MTP_FK_VFORK || f->kind == MTP_FK_QUIET ?
			     "wrapped (its child, sharing the memory, runs untraced)" :
			     f->kind == MTP_FK_DLOPEN ? "wrapped (the libraries it loads are patched)" :
			     "wrapped (a stack walker)");
		else
			warn("%s (%s): %s", p->strings + p->shown[i], p->strings + f->path, why);
	}
}

/* ---- the rings ---- */

/* One thread's ring being read: records pos .. end - 1 are left (of a
 * slot taken again, two cursors: its last thread's, then its thread's). */
struct cursor {
	const struct mtp_thread *th;
	uint32_t pid, tid;
	const char *comm;   /* 16 bytes at most */
	const struct mtp_rec *ring;
	uint64_t pos, end;
	uint64_t time;      /* of the record at pos (valid) */
	uint64_t until;     /* partial: the last time taken (0: all) */
	struct mtp_rec rec; /* a copy of it */
	uint32_t slot;
};

/* Moves c to its next whole record (from pos): 1, or 0 at its end.
 * With c->until, a record after it ends the ring, and so does, once, a
 * record being written (p->stalled). */
static int next_whole(struct patch_rec *p, struct cursor *c)
{
	uint64_t nrec = p->h->ring_records;

	for (; c->pos < c->end; c->pos++) {
		const struct mtp_rec *r = &c->ring[c->pos & (nrec - 1)];
		uint32_t k1 = __atomic_load_n(&r->kind, __ATOMIC_ACQUIRE), k2, kind;

		c->rec.time = r->time;
		c->rec.func = r->func;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		k2 = __atomic_load_n(&r->kind, __ATOMIC_RELAXED);
		kind = MTP_REC_KIND_OF(k1);
		if (k1 != k2 || k1 != MTP_REC_KIND(kind, c->pos / nrec) ||
		    kind < MTP_CALL || kind > MTP_CUT || c->rec.func >= p->nfn) {
			if (c->until && p->stalled[c->slot] != c->pos + 1) {
				p->stalled[c->slot] = c->pos + 1;
				c->end = c->pos; /* the next call looks again */
				return 0;
			}
			p->torn++;
			continue;
		}
		if (c->until && c->rec.time > c->until) {
			c->end = c->pos;
			return 0;
		}
		c->rec.kind = kind;
		c->time = c->rec.time;
		return 1;
	}
	return 0;
}

/* The heap of cursors by time (then slot: a stable order). */
static int before(const struct cursor *a, const struct cursor *b)
{
	return a->time != b->time ? a->time < b->time : a->slot < b->slot;
}

static void sift_down(struct cursor **hp, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cursor *t;

		if (l < n && before(hp[l], hp[m]))
			m = l;
		if (l + 1 < n && before(hp[l + 1], hp[m]))
			m = l + 1;
		if (m == i)
			return;
		t = hp[i], hp[i] = hp[m], hp[m] = t;
		i = m;
	}
}

/* A record's time as CLOCK_MONOTONIC ns, through the pairs a and b. */
static uint64_t to_mono(const struct patch_rec *p, uint64_t t, uint64_t tsc_b, uint64_t mono_b)
{
	__int128 d;

	if (p->h->clock != MTP_CLOCK_TSC)
		return t;
	d = (__int128)((int64_t)(t - p->tsc_a)) * (__int128)(mono_b - p->mono_a) /
	    (__int128)(tsc_b - p->tsc_a);
	return p->mono_a + (uint64_t)(int64_t)d;
}

void patch_rec_write(struct patch_rec *p, struct stream_out *s, int partial)
{
	struct mtp_header *h = p->h;
	uint32_t nth = __atomic_load_n(&h->nthreads, __ATOMIC_ACQUIRE), i, *sym, *dso;
	uint64_t nrec = h->ring_records, tsc_b, mono_b, until = 0;
	struct cursor *cur, **hp;
	size_t n = 0;

	if (nth > h->max_threads)
		nth = h->max_threads;
	if (nth > PATCH_MAX_THREADS) /* the process may write any header */
		nth = PATCH_MAX_THREADS;
	/* the TSC's rate: over 20 ms at least (10 between drains, which
	 * free the slots of threads that ended: every 10 ms) */
	clock_pair(&tsc_b, &mono_b);
	if (h->clock == MTP_CLOCK_TSC && mono_b - p->mono_a < (partial ? 10000000u : 20000000u)) {
		struct timespec ts = {
			0, (long)((partial ? 10000000u : 20000000u) - (mono_b - p->mono_a))
		};

		nanosleep(&ts, NULL);
		clock_pair(&tsc_b, &mono_b);
	}
	if (partial) {
		/* a millisecond before now, in the records' clock */
		uint64_t ms = h->clock == MTP_CLOCK_TSC ?
			      (uint64_t)((__int128)(tsc_b - p->tsc_a) * 1000000 /
					 (mono_b - p->mono_a + 1)) : 1000000;

		until = tsc_b > ms ? tsc_b - ms : 1;
	}
	cur = calloc(2 * (size_t)nth + 1, sizeof(*cur));
	hp = calloc(2 * (size_t)nth + 1, sizeof(*hp));
	sym = calloc(p->nfn + 1, sizeof(*sym));
	dso = calloc(p->nfn + 1, sizeof(*dso));
	if (!cur || !hp || !sym || !dso)
		die(MT_EXIT_SYSTEM, "out of memory");
	for (i = 0; i < nth; i++) {
		const struct mtp_thread *th = (const struct mtp_thread *)
			((const char *)h + h->threads_off + (uint64_t)i * h->thread_stride);
		uint32_t tid = __atomic_load_n(&th->tid, __ATOMIC_ACQUIRE), gen, k;
		uint64_t head, start, lo;

		if (!tid)
			continue; /* claimed, not yet named */
		gen = __atomic_load_n(&th->gen, __ATOMIC_ACQUIRE);
		start = th->start;
		head = __atomic_load_n(&th->head, __ATOMIC_ACQUIRE);
		if (start > head) /* written by the process: within what the ring holds */
			start = head;
		lo = head > nrec ? head - nrec : 0; /* older ones overwritten */
		/* a slot taken again since it was last read: the records from
		 * there to start are its last thread's */
		for (k = gen != p->gen_seen[i] && th->prev_tid ? 0 : 1; k < 2; k++) {
			struct cursor *c = &cur[2 * i + k];
			uint64_t want = p->taken[i];

			c->th = th;
			c->pid = th->pid;
			c->tid = k ? tid : th->prev_tid;
			c->comm = k ? th->comm : th->prev_comm;
			c->ring = (const struct mtp_rec *)(th + 1);
			c->slot = 2 * i + k;
			c->end = k ? head : start;
			c->pos = k && want < start ? start : want;
			if (!k && c->pos < th->prev_start)
				c->pos = th->prev_start; /* older: no thread's any more */
			c->until = until;
			if (c->pos >= c->end) {
				c->pos = c->end;
				continue;
			}
			if (lo > c->pos) {
				/* overwritten since: what is left starts later */
				if (partial)
					p->lost += lo - c->pos;
				c->pos = lo;
			}
			if (next_whole(p, c)) {
				/* its THREAD goes before its first record */
				stream_out_thread(s, c->pid, c->tid, c->comm,
						  strnlen(c->comm, sizeof(th->comm)));
				hp[n++] = c;
			}
		}
		p->gen_seen[i] = gen;
	}
	for (i = (uint32_t)(n / 2); i-- > 0;)
		sift_down(hp, n, i);
	while (n) {
		struct cursor *c = hp[0];
		const struct mtp_rec *r = &c->rec;
		uint32_t f = r->func;
		const struct mtp_func *fn = &p->fn[f];
		struct mt_loc at;
		struct mt_branch b = {
			.time = to_mono(p, r->time, tsc_b, mono_b),
			.pid = c->pid, .tid = c->tid, .cpu = MT_NONE32,
			.kind = r->kind == MTP_CALL ? MT_BR_CALL : MT_BR_RETURN,
			.flags = MT_BF_PROBE,
			.from = { 0, MT_NONE64, 0, 0 },
			.to = { 0, MT_NONE64, 0, 0 },
		};

		if (!sym[f]) {
			sym[f] = stream_out_str(s, p->strings + p->shown[f],
						strlen(p->strings + p->shown[f]));
			dso[f] = stream_out_str(s, p->strings + fn->path,
						strlen(p->strings + fn->path));
		}
		at = (struct mt_loc){ fn->where, 0, sym[f], dso[f] };
		if (r->kind == MTP_CALL)
			b.to = at;
		else
			b.from = at;
		stream_out_branch(s, &b);
		c->pos++;
		if (!next_whole(p, c))
			hp[0] = hp[--n];
		sift_down(hp, n, 0);
	}
	for (i = 0; i < nth; i++)
		if (cur[2 * i + 1].th) {
			struct mtp_thread *th = (struct mtp_thread *)cur[2 * i + 1].th;

			p->taken[i] = cur[2 * i + 1].pos; /* where it stopped */
			/* read out so far: the slot may be taken again once
			 * all of it is (drain) */
			if (__atomic_load_n(&th->gen, __ATOMIC_ACQUIRE) == p->gen_seen[i])
				__atomic_store_n(&th->drained, p->taken[i], __ATOMIC_RELEASE);
		}
	if (partial) {
		/* the next call's times from here: one line through the pairs */
		p->tsc_a = tsc_b;
		p->mono_a = mono_b;
	}
	free(cur);
	free(hp);
	free(sym);
	free(dso);
}

void patch_rec_trigger_on(struct patch_rec *p, const struct target *tgt, const char *path,
			  uint64_t addr, const char *name)
{
	struct mt_symfile f = MT_SYMFILE_INIT;
	uint32_t i;
	size_t k;

	for (i = 0; i < p->nfn; i++)
		if (p->fn[i].kind == MTP_FK_TRACE && p->fn[i].addr == addr &&
		    !strcmp(p->strings + p->fn[i].path, path))
			break;
	if (i == p->nfn) { /* not chosen by --functions: traced too */
		read_symbols(tgt, &f, path, 1);
		for (k = 0; k < f.t.n; k++)
			if (f.t.v[k].addr == addr && f.t.v[k].size && f.t.v[k].bind != MT_SYM_PLT)
				break;
		if (k == f.t.n)
			die(MT_EXIT_DATA, "--trigger %s: not the start of a function of %s "
			    "whose size is known: the patch backend triggers on a "
			    "function's call", name, path);
		add(p, path, &f.t.v[k], MTP_FK_TRACE);
		mt_symfile_release(&f);
	}
	p->trigger = i;
	p->h->trigger = i + 1;
}

const char *patch_rec_trigger_status(const struct patch_rec *p)
{
	const struct mtp_func *f;

	if (!p->h->trigger)
		return NULL;
	f = &p->fn[p->trigger];
	if (f->status == MTP_FN_PATCHED)
		return NULL;
	return f->status < MTP_FN_NSTATUS ? status_text[f->status] : "?";
}

int patch_rec_triggered(const struct patch_rec *p, uint64_t *mono, uint32_t *pid, uint32_t *tid)
{
	uint64_t tsc_b, mono_b, t;

	if (!__atomic_load_n(&p->h->frozen, __ATOMIC_ACQUIRE) ||
	    !(t = __atomic_load_n(&p->h->trigger_time, __ATOMIC_ACQUIRE)))
		return 0;
	clock_pair(&tsc_b, &mono_b);
	*mono = to_mono(p, t, tsc_b, mono_b);
	*pid = p->h->trigger_pid;
	*tid = p->h->trigger_tid;
	return 1;
}

void patch_rec_freeze(struct patch_rec *p)
{
	uint32_t no = 0;

	__atomic_compare_exchange_n(&p->h->frozen, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

const char *patch_rec_error(struct patch_rec *p)
{
	if (__atomic_load_n(&p->h->state, __ATOMIC_ACQUIRE) != MTP_ST_FAILED)
		return NULL;
	p->h->error[sizeof(p->h->error) - 1] = '\0';
	return p->h->error;
}

void patch_rec_warnings(struct patch_rec *p)
{
	if (p->h->threads_lost)
		warn("%u threads ran untraced: the patch backend has rings for "
		     "%u", p->h->threads_lost, p->h->max_threads);
	if (p->torn)
		warn("%llu records were being written as the snapshot was taken: "
		     "left out", (unsigned long long)p->torn);
	p->torn = 0;
	if (p->lost)
		warn("%llu records were overwritten before mt-record read them: a larger "
		     "--snapshot-size keeps them", (unsigned long long)p->lost);
	p->lost = 0;
}

void patch_rec_release(struct patch_rec *p)
{
	if (p->h)
		munmap(p->h, p->size);
	if (p->memfd >= 0)
		close(p->memfd);
	free(p->shown);
	free(p->taken);
	free(p->stalled);
	free(p->gen_seen);
	free(p->scanned);
	memset(p, 0, sizeof(*p));
	p->memfd = -1;
}
