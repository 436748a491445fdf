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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hooks.h"
#include "patch.h"
#include "unwind.h"

static void fail(struct mtp_header *h, const char *what)
{
	snprintf(h->error, sizeof(h->error), "%s: %s", what, strerror(errno));
	__atomic_store_n(&h->state, MTP_ST_FAILED, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The invariant TSC (CPUID 0x80000007 EDX bit 8): one clock for every
 * CPU, at one rate. */
static int invariant_tsc(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

static uint64_t monotonic(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* LD_PRELOAD without this library. */
static void unpreload(void)
{
	const char *v = getenv("LD_PRELOAD");
	char *copy, *out, *tok, *save;
	size_t n;

	if (!v)
		return;
	n = strlen(v);
	if (!(copy = strdup(v)) || !(out = calloc(1, n + 1))) {
		free(copy);
		return;
	}
	for (tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
		const char *base = strrchr(tok, '/');

		if (!strcmp(base ? base + 1 : tok, "libmt-patch.so"))
			continue;
		if (*out)
			strcat(out, ":");
		strcat(out, tok);
	}
	if (*out)
		setenv("LD_PRELOAD", out, 1);
	else
		unsetenv("LD_PRELOAD");
	free(copy);
	free(out);
}

struct find {
	struct mtp_header *h;
	struct mtp_func *funcs;
	const char *strings;
	char exe[PATH_MAX];
};

/* Sets where of the functions of the object info names. */
static int found(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *fd = arg;
	const char *name = info->dlpi_name;
	char real[PATH_MAX];
	uint32_t i;

	(void)size;
	if (!name || !*name)
		name = fd->exe;
	else if (realpath(name, real))
		name = real;
	for (i = 0; i < fd->h->nfuncs; i++) {
		struct mtp_func *f = &fd->funcs[i];

		if (!f->where && !strcmp(fd->strings + f->path, name))
			f->where = info->dlpi_addr + f->addr;
	}
	return 0;
}

static void wait_for_table(struct mtp_header *h)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	int waited = 0;

	__atomic_store_n(&h->state, MTP_ST_WAITING, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	/* at most 60 s: mt-record may have been killed */
	while (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == MTP_ST_WAITING &&
	       waited++ < 600)
		syscall(SYS_futex, &h->state, FUTEX_WAIT, MTP_ST_WAITING, &tick, NULL, 0);
}

__attribute__((constructor)) static void mtp_start(void)
{
	const char *v = getenv(MTP_ENV_FD);
	struct mtp_header *h;
	struct find fd;
	struct stat st;
	uint32_t i, j;
	int memfd;
	void *p;

	if (!v)
		return;
	memfd = atoi(v);
	unsetenv(MTP_ENV_FD);
	unpreload();
	if (fstat(memfd, &st) || st.st_size < (off_t)sizeof(*h))
		return;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	close(memfd);
	if (p == MAP_FAILED)
		return;
	h = p;
	if (h->magic != MTP_MAGIC || h->version != MTP_VERSION ||
	    h->size != (uint64_t)st.st_size || h->state != MTP_ST_NEW) {
		munmap(p, (size_t)st.st_size);
		return;
	}
	h->pid = (uint32_t)getpid();
	h->clock = invariant_tsc() ? MTP_CLOCK_TSC : MTP_CLOCK_MONOTONIC;
	mtp_shm = h;
	h->mono0 = monotonic();
	h->tsc0 = mtp_now();
	/* glibc loads libgcc_s for backtrace() and pthread_exit only when
	 * first needed, too late to patch its walkers (unwind.c): loaded
	 * now, the process maps it when its table is made */
	dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
	wait_for_table(h);
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != MTP_ST_GO)
		return; /* mt-record went away: run unpatched */
	if (mtp_patch_open()) {
		fail(h, "/proc/self/mem");
		return;
	}
	if (pthread_atfork(NULL, NULL, mtp_forked)) {
		fail(h, "pthread_atfork");
		return;
	}
	fd.h = h;
	fd.funcs = (struct mtp_func *)((char *)h + h->funcs_off);
	fd.strings = (const char *)h + h->strings_off;
	if (!realpath("/proc/self/exe", fd.exe))
		fd.exe[0] = '\0';
	dl_iterate_phdr(found, &fd);
	for (i = 0; i < h->nfuncs; i++) {
		struct mtp_func *f = &fd.funcs[i];

		if (!f->where) {
			f->status = MTP_FN_NOT_LOADED;
			continue;
		}
		for (j = 0; j < i; j++)
			if (fd.funcs[j].where == f->where)
				break;
		if (j < i) {
			f->status = MTP_FN_ALIAS;
			continue;
		}
		/* entered by the kernel or by a signal's return, not called:
		 * the word at the stack pointer is no return address */
		if (f->where == getauxval(AT_ENTRY) ||
		    !strcmp(fd.strings + f->name, "__restore_rt")) {
			f->status = MTP_FN_NOT_CALLED;
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
	mtp_patch_close();
	for (i = 0; i < h->nfuncs; i++) {
		if (fd.funcs[i].status == MTP_FN_PATCHED)
			h->npatched++;
		else if (fd.funcs[i].status != MTP_FN_ALIAS) /* patched as its twin */
			h->nskipped++;
	}
	__atomic_store_n(&h->state, MTP_ST_READY, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
