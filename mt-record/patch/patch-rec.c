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

#include "buf.h"
#include "demangle.h"
#include "die.h"
#include "libpath.h"
#include "inject.h"
#include "patch-rec.h"
#include "patch-cache.h"
#include "patch-write.h"
#include "quote.h"
#include "regfile.h"
#include "shm.h"
#include "stream.h"
#include "streamout.h"
#include "symtab.h"
#include "target.h"
#include "xalloc.h"
#include "cmp.h"
#include "tsc.h"
#include "banned.h"

#define STRINGS_SIZE PATCH_STRINGS_SIZE

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
	"too short (fewer than 5 bytes, and no padding after it)", "its size is unknown",
	"an instruction the decoder (Zydis) does not know",
	"a branch into the bytes its patch replaces",
	"an instruction that cannot be moved",
	"no room for a trampoline within 2 GiB", "an alias of another",
	"writing its entry failed", "too many copies of the walker",
	"not entered by a call (the entry point, a signal return, lazy binding)",
	"libgcc's unwinder (it reads its own return addresses)",
	"it returns twice (setjmp, getcontext, vfork)",
	"the patch runtime's own",
	"a thread stopped in a system call inside its entry, one that would not step out, or one a signal handler will return into it",
	"a part of another function (.cold, or inside another's bytes), code its FDE says no call enters (fde-part), or code no symbol names that only conditional jumps enter",
	"the runtime's answer for it made no sense (the process wrote the table)",
	"another tracer's breakpoint is in its entry (a uprobe still in place, a debugger's)",
	"turned off to keep the cost under --max-overhead (its calls after that are not recorded)"
};

void patch_rec_init(struct patch_rec *p, uint64_t ring_bytes, int fd)
{
	uint64_t nrec = (ring_bytes ? ring_bytes : PATCH_RING_BYTES) / sizeof(struct mtp_rec);
	uint64_t funcs_off = 4096, scan_off, strings_off, given_off, targets_off, threads_off;
	uint64_t stride;
	struct patch_layout l;
	struct mtp_header *h;

	memset(p, 0, sizeof(*p));
	while (nrec & (nrec - 1))
		nrec &= nrec - 1; /* a power of two: the largest not above */
	if (nrec < 1024)
		nrec = 1024;
	scan_off = funcs_off + (uint64_t)PATCH_MAX_FUNCS * sizeof(struct mtp_func);
	strings_off = scan_off + (uint64_t)PATCH_MAX_SCAN * sizeof(struct mtp_range);
	given_off = (strings_off + STRINGS_SIZE + 7) & ~7ull;
	targets_off = given_off + (uint64_t)PATCH_MAX_GIVEN * sizeof(struct mtp_given);
	threads_off = (targets_off + (uint64_t)PATCH_MAX_TARGETS * sizeof(uint64_t) + 4095) &
		      ~4095ull;
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
	h->given_off = given_off;
	h->targets_off = targets_off;
	h->max_given = PATCH_MAX_GIVEN;
	h->max_targets = PATCH_MAX_TARGETS;
	h->thread_stride = stride;
	p->sfn = (struct mtp_func *)((char *)h + funcs_off);
	p->scan = (struct mtp_range *)((char *)h + scan_off);
	p->sstrings = (char *)h + strings_off;
	p->sgiven = (struct mtp_given *)((char *)h + given_off);
	p->stargets = (uint64_t *)((char *)h + targets_off);
	/* mt-record's own copies: the strings (0 is ""), the layout */
	grow_or_die(&p->strings, &p->str_cap, 4096, 1);
	p->strings[0] = '\0';
	p->nstr = 1;
	l = (struct patch_layout){ (char *)h, p->size, nrec, threads_off, stride,
				   PATCH_MAX_THREADS };
	if (patch_rings_init(&p->rings, &l))
		die_errno(MT_EXIT_SYSTEM, "the patch backend's rings");
	snprintf(p->env_fd, sizeof(p->env_fd), MTP_ENV_FD "=%d", p->memfd);
}

int patch_rec_own_library(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "libmt-patch.so") || !strncmp(base, "libZydis.so", 11);
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
	int fd = mt_open_regular(MT_ROOT_OWN, exe, NULL), interp = 0; /* never a FIFO's */
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

	*preload = xasprintf("LD_PRELOAD=%s%s%s", runtime, old && *old ? ":" : "",
			     old && *old ? old : "");
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
	uint64_t start = mt_mono_now();
	uint32_t s;

	while ((s = __atomic_load_n(&p->h->state, __ATOMIC_ACQUIRE)) == from) {
		if (!keep_waiting(ctx) || (limit && mt_mono_now() - start > limit))
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

/* ahead(): the shared memory made present so much at a time */
#define AHEAD ((uint64_t)64 << 10)

/*
 * The shared array at base (of max bytes) made present up to used bytes,
 * AHEAD at a time (*present: how far it is): mt-record writes the table
 * first, page after page, and on a VM that shadows page tables a page
 * fault costs ten times what populating the page does (mt_prefault()).
 */
static void ahead(void *base, uint64_t used, uint64_t *present, uint64_t max)
{
	uint64_t n;

	if (used <= *present || *present >= max)
		return;
	n = (used - *present + AHEAD - 1) / AHEAD * AHEAD;
	if (n > max - *present)
		n = max - *present;
	mt_prefault((char *)base + *present, n);
	*present += n;
}

/* The strings offset of a copy of s (len bytes): in mt-record's strings
 * and the shared ones. */
static uint32_t add_string(struct patch_rec *p, const char *s, size_t len)
{
	uint32_t at = p->nstr;

	if (len + 1 > STRINGS_SIZE - p->nstr)
		die(MT_EXIT_DATA, "the patch backend's table is full (%u bytes of "
		    "names): choose fewer functions with --functions", STRINGS_SIZE);
	grow_or_die(&p->strings, &p->str_cap, (size_t)at + len + 1, 1);
	ahead(p->sstrings, (uint64_t)at + len + 1, &p->str_present, STRINGS_SIZE);
	memcpy(p->strings + at, s, len);
	p->strings[at + len] = '\0';
	memcpy(p->sstrings + at, p->strings + at, len + 1);
	p->nstr += (uint32_t)len + 1;
	return at;
}

/* Adds function s of path with kind k (and status st: 0, or mt-record's
 * verdict), in mt-record's table and the shared one. */
static void add(struct patch_rec *p, const char *path, const struct mt_sym *s, uint32_t k,
		uint32_t st)
{
	struct patch_fn *f;
	struct mtp_func *sf;
	char *dm;

	if (p->nfn == PATCH_MAX_FUNCS)
		die(MT_EXIT_DATA, "the patch backend traces at most %u functions: "
		    "choose fewer with --functions", PATCH_MAX_FUNCS);
	if (!p->last_path || strcmp(p->strings + p->last_path, path))
		p->last_path = add_string(p, path, strlen(path));
	grow_or_die(&p->fn, &p->fn_cap, (size_t)p->nfn + 1, sizeof(*p->fn));
	f = &p->fn[p->nfn];
	memset(f, 0, sizeof(*f));
	f->addr = s->addr;
	f->size = s->size;
	f->path = p->last_path;
	f->name = add_string(p, s->name, strlen(s->name));
	f->kind = k;
	f->flags = s->bind == MT_SYM_FDE ? MTP_FF_GUESSED : 0;
	f->status = st;
	dm = mt_demangle(s->name, MT_DEMANGLE_PERF);
	f->shown = dm ? add_string(p, dm, strlen(dm)) : f->name;
	free(dm);
	ahead(p->sfn, ((uint64_t)p->nfn + 1) * sizeof(*sf), &p->fn_present,
	      (uint64_t)PATCH_MAX_FUNCS * sizeof(*sf));
	sf = &p->sfn[p->nfn];
	memset(sf, 0, sizeof(*sf));
	sf->addr = f->addr;
	sf->size = f->size;
	sf->path = f->path;
	sf->name = f->name;
	sf->kind = f->kind;
	sf->flags = f->flags;
	sf->status = f->status;
	p->h->nfuncs = ++p->nfn;
}

void patch_rec_add(struct patch_rec *p, const char *path, const struct mt_sym *s)
{
	if (walker(s->name) == MTP_FK_TRACE)
		add(p, path, s, MTP_FK_TRACE, 0);
}

void patch_rec_add_part(struct patch_rec *p, const char *path, const struct mt_sym *s)
{
	add(p, path, s, MTP_FK_TRACE, MTP_FN_PART);
}

/* The walkers of the file path (only: a mask of the kinds, 0 all). */
static void add_walkers_of(struct patch_rec *p, const struct target *tgt, const char *path,
			   int must, uint32_t only)
{
	const struct mt_symfile *f;
	size_t i;

	if (read_symbols(tgt, &f, path, must) == 0)
		for (i = 0; i < f->t.n; i++) {
			const struct mt_sym *s = &f->t.v[i];
			uint32_t k = walker(s->name);

			if (k != MTP_FK_TRACE && (!only || (only >> k & 1)) && s->addr &&
			    s->bind != MT_SYM_PLT)
				add(p, path, s, k, 0);
		}
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

/* The runtime's answers for the functions added since the last time. */
static void take_answers(struct patch_rec *p)
{
	for (; p->answered < p->nfn; p->answered++)
		patch_fn_take(&p->fn[p->answered], &p->sfn[p->answered]);
}

int patch_rec_dl_prepared(struct patch_rec *p)
{
	uint32_t g = __atomic_load_n(&p->h->dl_prepared, __ATOMIC_ACQUIRE);

	if (g == p->dl_committed)
		return 0;
	p->dl_committed = g;
	take_answers(p);
	return 1;
}

void patch_rec_dl_done(struct patch_rec *p)
{
	__atomic_store_n(&p->h->dl_done, p->dl_committed, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->dl_done, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The targets of hit given for the n ranges from first (a file's, just
 * written), when there is room for them. */
static void give(struct patch_rec *p, uint32_t first, uint32_t n, const struct patch_cache_hit *hit)
{
	struct mtp_given *g;
	uint32_t k;

	if (p->ngiven == PATCH_MAX_GIVEN || hit->ntargets > PATCH_MAX_TARGETS - p->ntargets)
		return;
	ahead(p->stargets, (p->ntargets + hit->ntargets) * sizeof(uint64_t), &p->targets_present,
	      (uint64_t)PATCH_MAX_TARGETS * sizeof(uint64_t));
	memcpy(p->stargets + p->ntargets, hit->targets, hit->ntargets * sizeof(uint64_t));
	g = &p->sgiven[p->ngiven++];
	g->first = first;
	g->n = n;
	g->hash = hit->hash;
	g->at = p->ntargets;
	g->count = hit->ntargets;
	p->ntargets += hit->ntargets;
	for (k = 0; k < n; k++)
		p->scan[first + k].flags = MTP_RANGE_GIVEN | (hit->whole[k] ? MTP_RANGE_WHOLE : 0);
	/* with the ranges (scan_ready's release) */
	__atomic_store_n(&p->h->ngiven, p->ngiven, __ATOMIC_RELAXED);
}

/* The cache's targets for the file path (its ranges r, n of them, written
 * from first on), given when it has them, else read after the recording. */
static void from_cache(struct patch_rec *p, const struct target *tgt, const char *path,
		       uint32_t first, const struct patch_cache_range *r, uint32_t n)
{
	struct patch_cache_hit hit;
	int fd;

	if (!p->cache || !p->cache->dir || !n || (fd = target_open(tgt, path)) < 0)
		return;
	if (patch_cache_get(p->cache, fd, path, r, n, &hit) == 1) {
		give(p, first, n, &hit);
		patch_cache_hit_release(&hit);
	}
}

void patch_rec_add_neighbours(struct patch_rec *p, const struct target *tgt)
{
	struct patch_cache_range *cr = NULL;
	size_t cr_cap = 0;
	uint32_t i, path;

	for (i = p->neighbours_done; i < p->nfn; i++) {
		const struct mt_symfile *f;
		uint32_t first = p->nscan;
		size_t k;

		path = p->fn[i].path;
		if (i && p->fn[i - 1].path == path)
			continue;
		if (patch_rec_has_file(p, p->strings + path))
			continue; /* read already */
		saw(p, path);
		if (read_symbols(tgt, &f, p->strings + path, 0) == 0)
			for (k = 0; k < f->t.n; k++) {
				const struct mt_sym *s = &f->t.v[k];
				struct mtp_range *r;

				if (!s->addr || s->bind == MT_SYM_PLT)
					continue;
				if (p->nscan == PATCH_MAX_SCAN)
					die(MT_EXIT_DATA, "the patch backend reads at most %u "
					    "functions for branches into those it patches: "
					    "choose fewer libraries with --functions",
					    PATCH_MAX_SCAN);
				grow_or_die(&cr, &cr_cap, p->nscan - first + 1, sizeof(*cr));
				cr[p->nscan - first] = (struct patch_cache_range){ s->addr, s->size };
				ahead(p->scan, ((uint64_t)p->nscan + 1) * sizeof(*r),
				      &p->scan_present,
				      (uint64_t)PATCH_MAX_SCAN * sizeof(*r));
				r = &p->scan[p->nscan++];
				r->addr = s->addr;
				r->size = s->size;
				r->where = 0;
				r->path = path;
				r->flags = 0;
				p->h->nscan = p->nscan;
			}
		from_cache(p, tgt, p->strings + path, first, cr, p->nscan - first);
	}
	free(cr);
	p->neighbours_done = p->nfn;
	if (p->nscan != p->scan_published) { /* the runtime may read them now */
		p->scan_published = p->nscan;
		__atomic_store_n(&p->h->scan_ready, p->nscan, __ATOMIC_RELEASE);
		__atomic_add_fetch(&p->h->table_seq, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &p->h->table_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

int patch_rec_go(struct patch_rec *p, int (*keep_waiting)(void *ctx), void *ctx)
{
	uint32_t s;

	p->h->nfuncs = p->nfn;
	__atomic_store_n(&p->h->state, MTP_ST_GO, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	__atomic_add_fetch(&p->h->table_seq, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->table_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	s = wait_state(p, MTP_ST_GO, 0, keep_waiting, ctx);
	if (s == MTP_ST_FAILED)
		die(MT_EXIT_SYSTEM, "the patch runtime failed: %s", patch_rec_error(p));
	if (s != MTP_ST_READY)
		return -1;
	take_answers(p);
	return 0;
}

/* The bytes an entry patch replaces but its first: [lo, hi). */
struct span {
	uint64_t lo, hi;
};

static int in_span(const void *ctx, const struct inject *in, const struct inject_thread *t)
{
	const struct span *sp = ctx;

	(void)in;
	return t->ip >= sp->lo && t->ip < sp->hi;
}

/*
 * Whether every held thread of in is out of the bytes [where + 1, where +
 * cover) an entry patch replaces, and of the padding a hop takes before
 * it ([where - lead, where): a function before that runs on over its end
 * runs there): one stopped there is let run on a moment (every other
 * thread stopped) until it is out; one stopped in a system call there,
 * or just after (restarted 2 bytes back), cannot be. 1 when all are out.
 */
static int all_out(struct inject *in, uint64_t where, uint32_t cover, int32_t lead, int run)
{
	struct span sp = { lead > 0 ? where - (uint32_t)lead : where + 1, where + cover };
	size_t i;

	for (i = 0; i < in->n; i++) {
		uint64_t ip = in->t[i].ip;
		int k;

		/* a signal handler returns where it interrupted the thread:
		 * there, never run out (a handler may wait for anything) */
		if (in->t[i].nintr < 0)
			return 0;
		for (k = 0; k < in->t[i].nintr; k++)
			if (in->t[i].intr[k] != where && in->t[i].intr[k] >= sp.lo &&
			    in->t[i].intr[k] < sp.hi)
				return 0;
		if (in->t[i].in_syscall) {
			if (ip >= sp.lo && ip <= sp.hi && ip != where)
				return 0;
			continue;
		}
		if (in_span(&sp, in, &in->t[i]) &&
		    (!run || inject_run_out(in, i, in_span, &sp, 50) || in->t[i].in_syscall))
			return 0;
	}
	return 1;
}

void patch_rec_commit(struct patch_rec *p, struct inject *in)
{
	struct patch_write *w = xcalloc((size_t)p->nfn + 1, sizeof(*w));
	size_t n = 0, k;
	uint32_t i;

	for (k = 0; k < in->n; k++)
		inject_interrupted(in, k);
	for (i = 0; i < p->nfn; i++) {
		struct patch_fn *f = &p->fn[i];

		if (f->status != MTP_FN_PENDING || !patch_fn_has_patch(f))
			continue;
		/* a thread inside the bytes replaced would run on in int3s */
		if (!all_out(in, f->where, f->cover, f->lead, 1)) {
			f->status = MTP_FN_BUSY;
			p->sfn[i].status = f->status;
			continue;
		}
		w[n++] = (struct patch_write){ i, patch_fn_at(f), patch_fn_len(f), f->orig,
					       f->code, PW_OTHER };
	}
	/* a thread let run out of one entry's bytes may have gone into
	 * another's, looked at before it */
	for (k = 0; k < n;) {
		struct patch_fn *f = &p->fn[w[k].tag];

		if (all_out(in, f->where, f->cover, f->lead, 0)) {
			k++;
			continue;
		}
		f->status = MTP_FN_BUSY;
		p->sfn[w[k].tag].status = f->status;
		w[k] = w[--n];
	}
	patch_write_all(in, w, n);
	for (k = 0; k < n; k++) {
		i = (uint32_t)w[k].tag;
		p->fn[i].status = w[k].rc == PW_WRITTEN || w[k].rc == PW_ALREADY ?
			MTP_FN_PATCHED : MTP_FN_WRITE;
		p->sfn[i].status = p->fn[i].status;
	}
	free(w);
}

size_t patch_rec_turn_off(struct patch_rec *p, struct inject *in, uint32_t *idx, size_t n)
{
	struct patch_write *w = xcalloc(n + 1, sizeof(*w));
	size_t m = 0, k, done = 0;

	for (k = 0; k < in->n; k++)
		inject_interrupted(in, k);
	for (k = 0; k < n; k++) {
		struct patch_fn *f = &p->fn[idx[k]];

		if (f->status != MTP_FN_PATCHED || !patch_fn_has_patch(f) ||
		    !all_out(in, f->where, f->cover, f->lead, 1))
			continue;
		/* its code back where its jump is: the calls in flight still
		 * return through the trampoline, their frames on its
		 * shadow stack */
		w[m++] = (struct patch_write){ idx[k], patch_fn_at(f), patch_fn_len(f), f->code,
					       f->orig, PW_OTHER };
	}
	for (k = 0; k < m;) {
		struct patch_fn *f = &p->fn[w[k].tag];

		if (all_out(in, f->where, f->cover, f->lead, 0))
			k++;
		else
			w[k] = w[--m];
	}
	patch_write_all(in, w, m);
	for (k = 0; k < n; k++)
		idx[k] = UINT32_MAX;
	for (k = 0; k < m; k++)
		if (w[k].rc == PW_WRITTEN) {
			uint32_t i = (uint32_t)w[k].tag;

			p->fn[i].status = MTP_FN_OFF;
			p->sfn[i].status = MTP_FN_OFF;
			idx[done++] = i;
		}
	free(w);
	return done;
}

double patch_rec_call_ns(struct patch_rec *p)
{
	uint64_t cost = __atomic_load_n(&p->h->call_cost, __ATOMIC_ACQUIRE), per_s;
	uint32_t clock = __atomic_load_n(&p->h->clock, __ATOMIC_ACQUIRE);
	double ns;

	if (!cost)
		return 0;
	if (clock == MTP_CLOCK_TSC) {
		if (!(per_s = patch_rings_ticks(&p->rings, clock, 1000000000u)))
			return 0;
		ns = (double)cost * 1e9 / (double)per_s;
	} else
		ns = (double)cost;
	/* the process's number: kept to what a call can cost */
	return ns < 1 ? 1 : ns > 100000 ? 100000 : ns;
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

/* The runtime's code and the stubs; where a thread's count of the hooks
 * it is inside is, from its %fs base (0: not known). */
struct hooked {
	uint64_t own_lo, own_hi;
	const uint64_t *stub;
	uint32_t nstub;
	int64_t busy_tls;
};

/* Whether held thread t is in the runtime's code or a stub, or inside a
 * hook that a signal handler interrupted (its count not 0). */
static int in_hooks(const void *ctx, const struct inject *in, const struct inject_thread *t)
{
	const struct hooked *hk = ctx;
	uint32_t busy = 0;

	if ((t->ip >= hk->own_lo && t->ip < hk->own_hi) || in_stub(hk->stub, hk->nstub, t->ip))
		return 1;
	return hk->busy_tls && t->fs_base &&
	       !inject_read(in, t->fs_base + (uint64_t)hk->busy_tls, &busy, sizeof(busy)) &&
	       busy != 0;
}

static int by_value(const void *a, const void *b)
{
	return MT_CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* What an undo puts back: mt-record's table (or its copy of an earlier
 * session's), and each thread's shadow stack where the process has it,
 * with the runtime's return trampoline and code; what it could not put
 * back is counted by kind. */
struct undo_thread {
	uint32_t tid, pid;
	uint64_t depth_at, stack_at;
};

struct undo_plan {
	const struct patch_fn *fn;
	uint32_t nfn;
	struct undo_thread *th;
	uint32_t nth;
	uint64_t tramp, own_lo, own_hi;
	int stale;          /* an earlier session's: an entry whose answer made
			     * no sense may be patched (not put back) */
	/* what could not be put back: threads not out of the hooks,
	 * entries, return addresses (and shadow stacks) */
	uint32_t threads, entries, frames;
	uint64_t live_at;   /* the runtime's *mtp_live (0: not known) */
	int64_t busy_tls;   /* its hooks' count in each thread (shm.h) */
};

/* Thread t's patched frames get their return addresses back, and its
 * shadow stack is emptied: at most MTP_SHADOW_MAX frames, whatever its
 * depth says. */
static void unhook_thread(struct undo_plan *u, struct inject *in, const struct undo_thread *t)
{
	struct mtp_shadow *fr;
	uint32_t depth, zero = 0;
	uint64_t word;

	if (!t->depth_at || inject_read(in, t->depth_at, &depth, sizeof(depth)))
		return;
	if (depth > MTP_SHADOW_MAX)
		depth = MTP_SHADOW_MAX;
	fr = xcalloc(depth + 1, sizeof(*fr));
	if (depth && inject_read(in, t->stack_at, fr, depth * sizeof(*fr)))
		depth = 0, u->frames++;
	/* newest first: of two frames at one slot (an older one left by
	 * a longjmp) the newest is on the stack */
	while (depth > 0) {
		depth--;
		if (!inject_read(in, fr[depth].slot, &word, sizeof(word)) && word == u->tramp &&
		    inject_write(in, fr[depth].slot, &fr[depth].ret, sizeof(fr[depth].ret)))
			u->frames++;
	}
	free(fr);
	if (inject_write(in, t->depth_at, &zero, sizeof(zero)))
		u->frames++;
}

/* How long an undo lets threads run out of the runtime and the stubs. */
#define RUN_OUT_NS 5000000000ull

/* Every held thread of in out of the runtime and the stubs, every patched
 * entry of u's table put back where it still holds the patch, every
 * frame's return address back. */
static void undo(struct undo_plan *u, struct inject *in)
{
	struct patch_write *w;
	uint64_t *stub;
	uint32_t nstub = 0, i;
	size_t k, n = 0;

	/* the hooks stop recording: none touches the memory from now on
	 * but those inside one already */
	if (u->live_at && inject_write(in, u->live_at, &(uint32_t){ 0 }, sizeof(uint32_t)))
		u->entries++;
	/* no thread inside the runtime, a stub or a hook (under a signal
	 * handler's frame too): let run on until it is out (a hook half
	 * done would push or pop a frame after the undoing, or write to the
	 * memory after it is unmapped) */
	stub = xmallocarray((size_t)u->nfn + 1, sizeof(*stub));
	for (i = 0; i < u->nfn; i++)
		if (patch_fn_has_patch(&u->fn[i]))
			stub[nstub++] = u->fn[i].stub;
	qsort(stub, nstub, sizeof(*stub), by_value);
	{
		struct hooked hk = { u->own_lo, u->own_hi, stub, nstub, u->busy_tls };
		uint64_t until = mt_mono_now() + RUN_OUT_NS;

		/* (a thread of the process's may sit in a stub on purpose:
		 * RUN_OUT_NS for them all) */
		for (k = 0; k < in->n; k++)
			if (in_hooks(&hk, in, &in->t[k]) &&
			    (mt_mono_now() > until || inject_run_out(in, k, in_hooks, &hk, 1000))) {
				uint32_t busy = 0;

				u->threads++;
				if (hk.busy_tls && in->t[k].fs_base)
					inject_read(in, in->t[k].fs_base + (uint64_t)hk.busy_tls,
						    &busy, sizeof(busy));
				inject_interrupted(in, k);
				warn("process %d: thread %d would not leave the patch runtime's "
				     "code (at %#" PRIx64 "%s, inside %u hooks%s; a signal "
				     "handler interrupted it at %#" PRIx64 ", %d handlers)",
				     (int)in->pid, (int)in->t[k].tid, in->t[k].ip,
				     in->t[k].ip >= hk.own_lo && in->t[k].ip < hk.own_hi ?
					     ", the runtime's" :
				     in_stub(hk.stub, hk.nstub, in->t[k].ip) ? ", a stub" : "",
				     busy, in->t[k].in_syscall ? ", in a system call" : "",
				     in->t[k].nintr > 0 ? in->t[k].intr[0] : 0, in->t[k].nintr);
			}
	}
	free(stub);
	/* every entry back as it was (where it still holds the patch; one
	 * back already: an undo cut short, mt-record killed) */
	w = xcalloc((size_t)u->nfn + 1, sizeof(*w));
	for (i = 0; i < u->nfn; i++) {
		const struct patch_fn *f = &u->fn[i];

		if (u->stale && f->status == MTP_FN_BAD_ANSWER)
			u->entries++; /* patched or not: nothing to trust of it */
		if (f->status != MTP_FN_PATCHED || !patch_fn_has_patch(f))
			continue;
		w[n++] = (struct patch_write){ i, patch_fn_at(f), patch_fn_len(f), f->code,
					       f->orig, PW_OTHER };
	}
	patch_write_all(in, w, n);
	for (k = 0; k < n; k++)
		if (w[k].rc != PW_WRITTEN && w[k].rc != PW_ALREADY)
			u->entries++;
	free(w);
	/* every frame's return address back */
	for (i = 0; i < u->nth; i++) {
		const struct undo_thread *t = &u->th[i];

		if (t->pid != (uint32_t)in->pid)
			continue; /* a child's, after fork */
		for (k = 0; k < in->n && in->t[k].tid != (pid_t)t->tid; k++)
			;
		if (k < in->n)
			unhook_thread(u, in, t);
	}
}

void patch_rec_undo(struct patch_rec *p, struct inject *in)
{
	struct mtp_header *h = p->h;
	uint32_t nth = __atomic_load_n(&h->nthreads, __ATOMIC_ACQUIRE), i;
	struct undo_plan u = { p->fn, p->nfn, NULL, 0, h->tramp, 0, 0, 0, 0, 0, 0, h->live_at,
			       h->busy_tls };

	patch_own_code(h->own_lo, h->own_hi, &u.own_lo, &u.own_hi);
	if (nth > p->rings.l.max_threads)
		nth = p->rings.l.max_threads;
	u.th = xcalloc(nth + 1, sizeof(*u.th));
	for (i = 0; i < nth; i++) {
		const struct mtp_thread *t = patch_slot(&p->rings.l, i);

		u.th[i] = (struct undo_thread){ __atomic_load_n(&t->tid, __ATOMIC_RELAXED),
						__atomic_load_n(&t->pid, __ATOMIC_RELAXED),
						__atomic_load_n(&t->depth_at, __ATOMIC_RELAXED),
						__atomic_load_n(&t->stack_at, __ATOMIC_RELAXED) };
	}
	u.nth = nth;
	undo(&u, in);
	free(u.th);
	p->undo_threads += u.threads;
	p->undo_entries += u.entries;
	p->undo_frames += u.frames;
	p->undo_failed += u.threads + u.entries + u.frames;
	h->clean = !p->undo_failed;
	__atomic_store_n(&h->state, MTP_ST_DETACHED, __ATOMIC_RELEASE);
}

pid_t patch_rec_stale_owner(const struct inject *in, uint64_t at)
{
	uint32_t who;
	char path[64], comm[32];
	FILE *f;
	int live = 0;

	if (inject_read(in, at + offsetof(struct mtp_header, recorder), &who, sizeof(who)) ||
	    !who || (pid_t)who == getpid() || who > INT_MAX)
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
	struct patch_stale st;
	struct mtp_func *theirs;
	struct patch_fn *fn;
	struct undo_plan u;
	uint32_t state = MTP_ST_DETACHED, i;

	if (inject_read(in, at, &h, sizeof(h)) || patch_stale_check(&h, &st))
		return -2;
	/* mt-record's own copies, of the sizes it checked: the table, then
	 * each thread's slot header (not its ring) */
	theirs = xcalloc((size_t)st.nfuncs + 1, sizeof(*theirs));
	fn = xcalloc((size_t)st.nfuncs + 1, sizeof(*fn));
	u = (struct undo_plan){ fn, st.nfuncs, xcalloc((size_t)st.nthreads + 1, sizeof(*u.th)),
				st.nthreads, st.tramp, st.own_lo, st.own_hi, 1, 0, 0, 0,
				st.live_at, st.busy_tls };
	if (inject_read(in, at + st.funcs_off, theirs, (size_t)st.nfuncs * sizeof(*theirs))) {
		free(theirs);
		free(fn);
		free(u.th);
		return -2;
	}
	for (i = 0; i < st.nfuncs; i++)
		patch_fn_take(&fn[i], &theirs[i]);
	free(theirs);
	for (i = 0; i < st.nthreads; i++) {
		struct mtp_thread t;

		if (!inject_read(in, at + st.threads_off + i * st.thread_stride, &t, sizeof(t)))
			u.th[i] = (struct undo_thread){ t.tid, t.pid, t.depth_at, t.stack_at };
	}
	undo(&u, in);
	free(fn);
	free(u.th);
	/* not all put back: the session stays in place (its memory mapped,
	 * its stubs kept), for what is left of it still runs there */
	if (u.threads + u.entries + u.frames)
		return -1;
	if (inject_write(in, at + offsetof(struct mtp_header, clean), &(uint32_t){ 1 },
			 sizeof(uint32_t)) ||
	    inject_write(in, at + offsetof(struct mtp_header, state), &state, sizeof(state)))
		return -1;
	return 0;
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

void patch_rec_list(const struct patch_rec *p, uint32_t from, int all)
{
	uint32_t i;

	for (i = from; i < p->nfn; i++) {
		const struct patch_fn *f = &p->fn[i];
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
			warn("%s (%s): %s", p->strings + f->shown, p->strings + f->path, why);
	}
}

/* ---- the rings ---- */

void patch_rec_write(struct patch_rec *p, struct stream_out *s, int partial, uint64_t until)
{
	uint32_t *sym, *dso;
	struct patch_pass ps;
	struct patch_event ev;

	sym = xcalloc((size_t)p->nfn + 1, sizeof(*sym));
	dso = xcalloc((size_t)p->nfn + 1, sizeof(*dso));
	if (patch_pass_begin(&p->rings, &ps, p->nfn, __atomic_load_n(&p->h->clock, __ATOMIC_RELAXED),
			     __atomic_load_n(&p->h->nthreads, __ATOMIC_ACQUIRE), partial, until))
		die(MT_EXIT_SYSTEM, "out of memory");
	while (patch_pass_next(&ps, &ev)) {
		const struct patch_fn *fn = &p->fn[ev.func];
		struct mt_loc at;
		struct mt_branch b = {
			.time = ev.time,
			.pid = ev.pid, .tid = ev.tid, .cpu = MT_NONE32,
			.kind = ev.kind == MTP_CALL ? MT_BR_CALL : MT_BR_RETURN,
			.flags = MT_BF_PROBE,
			.from = { 0, MT_NONE64, 0, 0 },
			.to = { 0, MT_NONE64, 0, 0 },
		};

		if (ev.is_thread) {
			/* its THREAD goes before its first record */
			stream_out_thread(s, ev.pid, ev.tid, ev.comm, strlen(ev.comm));
			continue;
		}
		if (!sym[ev.func]) {
			sym[ev.func] = stream_out_str(s, p->strings + fn->shown,
						      strlen(p->strings + fn->shown));
			dso[ev.func] = stream_out_str(s, p->strings + fn->path,
						      strlen(p->strings + fn->path));
		}
		at = (struct mt_loc){ fn->where, 0, sym[ev.func], dso[ev.func] };
		if (ev.kind == MTP_CALL)
			b.to = at;
		else
			b.from = at;
		stream_out_branch(s, &b);
	}
	patch_pass_end(&ps);
	free(sym);
	free(dso);
}

void patch_rec_trigger_on(struct patch_rec *p, const struct target *tgt, const char *path,
			  uint64_t addr, const char *name)
{
	const struct mt_symfile *f;
	uint32_t i;
	size_t k;

	for (i = 0; i < p->nfn; i++)
		if (p->fn[i].kind == MTP_FK_TRACE && p->fn[i].addr == addr &&
		    !strcmp(p->strings + p->fn[i].path, path))
			break;
	if (i == p->nfn) { /* not chosen by --functions: traced too */
		read_symbols(tgt, &f, path, 1);
		for (k = 0; k < f->t.n; k++)
			if (f->t.v[k].addr == addr && f->t.v[k].size && f->t.v[k].bind != MT_SYM_PLT)
				break;
		if (k == f->t.n)
			die(MT_EXIT_DATA, "--trigger %s: not the start of a function of %s "
			    "whose size is known: the patch backend triggers on a "
			    "function's call", name, path);
		if (f->t.v[k].bind == MT_SYM_FDE_PART || mt_sym_name_is_part(f->t.v[k].name))
			die(MT_EXIT_DATA, "--trigger %s: a part of a function of %s, entered "
			    "by a jump, not a call: the patch backend triggers on a function's "
			    "call", name, path);
		add(p, path, &f->t.v[k], MTP_FK_TRACE, 0);
	}
	p->trigger = i + 1;
}

void patch_rec_arm(struct patch_rec *p)
{
	if (p->trigger)
		__atomic_store_n(&p->h->trigger, p->trigger, __ATOMIC_RELEASE);
}

/* The length dur of the records' clock that ends at t, in ns. */
static uint64_t dur_ns(const struct patch_rec *p, uint32_t clock, uint64_t t, uint64_t dur,
		       uint64_t tsc_b, uint64_t mono_b)
{
	uint64_t a, b;

	if (!dur || dur > t)
		return 0;
	a = patch_to_mono(clock, t - dur, p->rings.tsc_a, p->rings.mono_a, tsc_b, mono_b);
	b = patch_to_mono(clock, t, p->rings.tsc_a, p->rings.mono_a, tsc_b, mono_b);
	return b > a ? b - a : 0;
}

/* A stop indicator's arguments at raw time t (rdi, rsi: OCaml ints) into
 * hit: the time passed converted as t is, through (tsc_b, mono_b). */
static void hit_args(const struct patch_rec *p, uint32_t clock, uint64_t t, uint64_t rdi,
		     uint64_t rsi, uint64_t tsc_b, uint64_t mono_b, struct patch_hit *hit)
{
	uint64_t start = (uint64_t)((int64_t)rdi >> 1);

	hit->arg = (int64_t)rsi >> 1;
	hit->start = MT_NONE64;
	hit->region = rdi & 1;
	if (hit->region && clock == MTP_CLOCK_TSC && start && start <= t)
		hit->start = patch_to_mono(clock, start, p->rings.tsc_a, p->rings.mono_a, tsc_b,
					   mono_b);
}

void patch_rec_hold(struct patch_rec *p)
{
	p->h->hold = 1;
}

void patch_rec_run(struct patch_rec *p)
{
	__atomic_store_n(&p->h->run, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &p->h->run, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint64_t patch_rec_raw_of(struct patch_rec *p, uint64_t mono)
{
	return patch_rings_raw_of(&p->rings, __atomic_load_n(&p->h->clock, __ATOMIC_RELAXED),
				  mono);
}

void patch_rec_queue_hits(struct patch_rec *p)
{
	p->h->trigger_queue = 1;
}

/* how many 10 ms polls a queued hit may stay half-written (its thread
 * stopped or killed between taking it and filling it) */
#define HIT_WAIT 20

int patch_rec_next_hit(struct patch_rec *p, struct patch_hit *hit)
{
	uint32_t n = __atomic_load_n(&p->h->hits_n, __ATOMIC_ACQUIRE), seq;
	const struct mtp_hit *e;

	while (n != p->hits_taken) {
		e = &p->h->hits[p->hits_taken % MTP_HITS];
		seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		if (seq == p->hits_taken + 1) {
			uint64_t dur, rdi, rsi;

			hit->raw = __atomic_load_n(&e->time, __ATOMIC_RELAXED);
			hit->pid = __atomic_load_n(&e->pid, __ATOMIC_RELAXED);
			hit->tid = __atomic_load_n(&e->tid, __ATOMIC_RELAXED);
			dur = __atomic_load_n(&e->dur, __ATOMIC_RELAXED);
			rdi = __atomic_load_n(&e->rdi, __ATOMIC_RELAXED);
			rsi = __atomic_load_n(&e->rsi, __ATOMIC_RELAXED);
			if (__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == seq) {
				uint32_t clock = __atomic_load_n(&p->h->clock, __ATOMIC_RELAXED);

				/* as the pass that writes its snapshot will
				 * give it (its MARKs go before its records) */
				hit->mono = patch_rings_take_pair(&p->rings, clock, hit->raw);
				hit->dur = dur_ns(p, clock, hit->raw, dur, p->rings.pair_tsc,
						  p->rings.pair_mono);
				hit_args(p, clock, hit->raw, rdi, rsi, p->rings.pair_tsc,
					 p->rings.pair_mono, hit);
				p->hit_waits = 0;
				return 1;
			}
		}
		/* not filled yet: looked at again, or passed over once it
		 * has waited long enough (counted) */
		if (++p->hit_waits < HIT_WAIT)
			return 0;
		p->hit_waits = 0;
		p->hits_torn++;
		patch_rec_hit_taken(p);
	}
	return 0;
}

void patch_rec_hit_taken(struct patch_rec *p)
{
	p->hits_taken++;
	__atomic_store_n(&p->h->hits_taken, p->hits_taken, __ATOMIC_RELEASE);
}

uint32_t patch_rec_hits_dropped(const struct patch_rec *p)
{
	return __atomic_load_n(&p->h->hits_dropped, __ATOMIC_RELAXED) + p->hits_torn;
}

const char *patch_rec_trigger_status(const struct patch_rec *p)
{
	const struct patch_fn *f;

	if (!p->trigger)
		return NULL;
	f = &p->fn[p->trigger - 1];
	if (f->status == MTP_FN_PATCHED)
		return NULL;
	return f->status < MTP_FN_NSTATUS ? status_text[f->status] : "?";
}

int patch_rec_triggered(const struct patch_rec *p, struct patch_hit *hit)
{
	uint64_t tsc_b, mono_b, t;
	uint32_t clock = __atomic_load_n(&p->h->clock, __ATOMIC_RELAXED);

	if (!p->trigger || !__atomic_load_n(&p->h->frozen, __ATOMIC_ACQUIRE) ||
	    !(t = __atomic_load_n(&p->h->trigger_time, __ATOMIC_ACQUIRE)))
		return 0;
	mt_tsc_pair(&tsc_b, &mono_b);
	hit->raw = t;
	hit->mono = patch_to_mono(clock, t, p->rings.tsc_a, p->rings.mono_a, tsc_b, mono_b);
	hit->pid = p->h->trigger_pid;
	hit->tid = p->h->trigger_tid;
	hit->dur = dur_ns(p, clock, t, __atomic_load_n(&p->h->trigger_dur, __ATOMIC_RELAXED),
			  tsc_b, mono_b);
	hit_args(p, clock, t, __atomic_load_n(&p->h->trigger_rdi, __ATOMIC_RELAXED),
		 __atomic_load_n(&p->h->trigger_rsi, __ATOMIC_RELAXED), tsc_b, mono_b, hit);
	return 1;
}

void patch_rec_slower_than(struct patch_rec *p, uint64_t ns)
{
	/* the TSC's rate since the memory was made: over 10 ms at least */
	uint64_t raw = patch_rings_ticks(&p->rings, __atomic_load_n(&p->h->clock,
								     __ATOMIC_RELAXED), ns);

	p->h->slower_raw = raw ? raw : 1;
}

int patch_rec_trigger_region(struct patch_rec *p, int slower)
{
	if (slower && __atomic_load_n(&p->h->clock, __ATOMIC_RELAXED) != MTP_CLOCK_TSC)
		return -1;
	p->h->trigger_region = 1;
	return 0;
}

void patch_rec_freeze(struct patch_rec *p)
{
	uint32_t no = 0;

	__atomic_compare_exchange_n(&p->h->frozen, &no, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

const char *patch_rec_error(struct patch_rec *p)
{
	char raw[sizeof(p->h->error)];

	if (__atomic_load_n(&p->h->state, __ATOMIC_ACQUIRE) != MTP_ST_FAILED)
		return NULL;
	/* the process's words: a copy, quoted where not printable */
	memcpy(raw, p->h->error, sizeof(raw));
	mt_quote_controls(p->error, sizeof(p->error), raw, strnlen(raw, sizeof(raw)));
	return p->error;
}

void patch_rec_warnings(struct patch_rec *p)
{
	if (p->h->threads_lost)
		warn("%u threads ran untraced: the patch backend has rings for "
		     "%u", p->h->threads_lost, p->rings.l.max_threads);
	if (p->rings.torn)
		warn("%llu records were being written as the snapshot was taken: "
		     "left out", (unsigned long long)p->rings.torn);
	p->rings.torn = 0;
	if (p->rings.lost)
		warn("%llu records were overwritten before mt-record read them: a larger "
		     "--snapshot-size keeps them", (unsigned long long)p->rings.lost);
	p->rings.lost = 0;
}

void patch_rec_release(struct patch_rec *p)
{
	if (p->h)
		munmap(p->h, p->size);
	if (p->memfd >= 0)
		close(p->memfd);
	patch_rings_release(&p->rings);
	free(p->fn);
	free(p->strings);
	free(p->scanned);
	memset(p, 0, sizeof(*p));
	p->memfd = -1;
}
