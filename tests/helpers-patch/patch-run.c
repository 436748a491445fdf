/*
 * patch-run: the patch runtime (libmt-patch.so) driven on its own, for
 * the tests of mt-patch/ before mt-record drives it:
 *
 *	patch-run [-v] [-f REGEX] [-n RECORDS] RUNTIME -- PROGRAM [ARGS]
 *
 * makes the shared memory (mt-patch/shm.h), starts PROGRAM (a path) with
 * RUNTIME preloaded, gives it the functions of PROGRAM whose names match
 * REGEX (default: all with a size), and the stack walkers of the
 * executable and of the libgcc_s, libstdc++ and libc it maps, waits for it to end and prints each
 * thread's records, oldest first, a line each: "TID call|return|cut NAME
 * TIME"; then "# patched N skipped N threads N lost N", and with -v each
 * function's status on stderr. RECORDS is each thread's ring (a power of
 * two, default 65536). Exits with PROGRAM's status (128 + signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "regex.h"
#include "shm.h"
#include "symtab.h"

#define MAX_FUNCS 4096
#define STRINGS (1u << 20)
#define THREADS 64

static const char *const status_name[MTP_FN_NSTATUS] = {
	"pending", "patched", "not loaded", "too short", "no size",
	"undecodable", "branch into the entry", "unrelocatable", "no room",
	"alias", "write failed", "too many copies", "not called", "unwinder", "returns twice",
	"runtime", "busy"
};

/* The stack walkers the runtime wraps (shm.h), by name. */
static uint32_t walker(const char *name)
{
#define W(n, k) if (!strcmp(name, n)) return k;
	MTP_WALKERS(W)
#undef W
	return MTP_FK_TRACE;
}

static struct mtp_func *fn;
static char *strings;
static uint32_t nstr = 1, n;

/* Adds path's functions: the walkers, and with all those that re
 * matches (NULL: all with a size). */
static void add_file(const char *path, int all, const struct mt_regex *re, uint32_t only)
{
	struct mt_symtab t;
	uint32_t at = nstr, i;
	int fd;

	mt_symtab_init(&t);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || mt_symtab_read(&t, fd) < 0)
		die(3, "%s: cannot read its symbols", path);
	close(fd);
	memcpy(strings + nstr, path, strlen(path) + 1);
	nstr += (uint32_t)strlen(path) + 1;
	for (i = 0; i < t.n && n < MAX_FUNCS; i++) {
		const struct mt_sym *s = &t.v[i];
		size_t len = strlen(s->name);
		uint32_t k = walker(s->name);

		if (!s->addr || s->bind == MT_SYM_PLT || (only && k != only))
			continue;
		if (k == MTP_FK_TRACE &&
		    (!all || (re && !mt_regex_match(re, s->name)) || (!re && !s->size)))
			continue;
		if (nstr + len + 1 > STRINGS)
			break;
		fn[n].addr = s->addr;
		fn[n].size = s->size;
		fn[n].path = at;
		fn[n].name = nstr;
		fn[n].kind = k;
		memcpy(strings + nstr, s->name, len + 1);
		nstr += (uint32_t)len + 1;
		n++;
	}
	mt_symtab_release(&t);
}

/* The walkers of the C++ runtime libraries the process maps. */
static void add_runtime_libraries(pid_t pid)
{
	char maps[64], line[4096], done[8][PATH_MAX];
	unsigned ndone = 0, k;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(maps, "r")))
		die_errno(3, "%s", maps);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/'), *base;

		if (!path)
			continue;
		path[strcspn(path, "\n")] = '\0';
		base = strrchr(path, '/') + 1;
		if (strncmp(base, "libgcc_s", 8) && strncmp(base, "libstdc++", 9) &&
		    strncmp(base, "libc.so", 7))
			continue;
		for (k = 0; k < ndone && strcmp(done[k], path); k++)
			;
		if (k < ndone || ndone == 8)
			continue;
		snprintf(done[ndone++], PATH_MAX, "%s", path);
		add_file(path, 0, NULL, strncmp(base, "libc.so", 7) ? 0 : MTP_FK_LONGJMP);
	}
	fclose(f);
}

static void usage(void)
{
	die(2, "usage: patch-run [-v] [-f REGEX] [-n RECORDS] RUNTIME -- PROGRAM [ARGS]");
}

/* Waits while h->state is from, until the child ends; the state. */
static uint32_t wait_state(struct mtp_header *h, uint32_t from, pid_t child)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	uint32_t s;

	while ((s = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE)) == from) {
		int st;

		if (waitpid(child, &st, WNOHANG) == child)
			die(1, "the program ended before the runtime %s",
			    from == MTP_ST_NEW ? "started" : "patched");
		syscall(SYS_futex, &h->state, FUTEX_WAIT, from, &tick, NULL, 0);
	}
	return s;
}

int main(int argc, char **argv)
{
	const char *regex = NULL, *rt;
	uint64_t nrec = 65536, size, funcs_off, strings_off, threads_off, stride;
	struct mt_regex re = { 0 };
	struct mtp_header *h;
	char exe[PATH_MAX], fdbuf[16], *pre;
	uint32_t i;
	int c, verbose = 0, memfd, st;
	pid_t child;

	mt_set_progname(argv[0]);
	while ((c = getopt(argc, argv, "+vf:n:")) != -1) {
		if (c == 'v')
			verbose = 1;
		else if (c == 'f')
			regex = optarg;
		else if (c == 'n')
			nrec = strtoull(optarg, NULL, 0);
		else
			usage();
	}
	if (argc - optind < 3 || strcmp(argv[optind + 1], "--") || !nrec ||
	    (nrec & (nrec - 1)))
		usage();
	rt = argv[optind];
	if (!realpath(argv[optind + 2], exe))
		die_errno(3, "%s", argv[optind + 2]);
	if (regex) {
		char msg[MT_REGEX_MSG_SIZE];
		size_t at;

		if (mt_regex_compile(&re, regex, &at, msg, sizeof(msg)))
			die(2, "-f %s: %s", regex, msg);
	}

	funcs_off = 4096;
	strings_off = funcs_off + MAX_FUNCS * sizeof(struct mtp_func);
	threads_off = (strings_off + STRINGS + 4095) & ~4095ull;
	stride = sizeof(struct mtp_thread) + nrec * sizeof(struct mtp_rec);
	size = threads_off + THREADS * stride;
	if ((memfd = memfd_create("mt-patch", 0)) < 0 || ftruncate(memfd, (off_t)size))
		die_errno(3, "memfd");
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (h == MAP_FAILED)
		die_errno(3, "mmap");
	h->magic = MTP_MAGIC;
	h->version = MTP_VERSION;
	h->size = size;
	h->max_funcs = MAX_FUNCS;
	h->strings_size = STRINGS;
	h->max_threads = THREADS;
	h->ring_records = nrec;
	h->funcs_off = funcs_off;
	h->strings_off = strings_off;
	h->threads_off = threads_off;
	h->thread_stride = stride;
	fn = (struct mtp_func *)((char *)h + funcs_off);
	strings = (char *)h + strings_off;

	snprintf(fdbuf, sizeof(fdbuf), "%d", memfd);
	if (asprintf(&pre, "%s%s%s", rt, getenv("LD_PRELOAD") ? ":" : "",
		     getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "") < 0)
		die(3, "out of memory");
	fflush(NULL);
	if ((child = fork()) < 0)
		die_errno(3, "fork");
	if (!child) {
		setenv(MTP_ENV_FD, fdbuf, 1);
		setenv("LD_PRELOAD", pre, 1);
		execv(exe, argv + optind + 2);
		_exit(127);
	}
	if (wait_state(h, MTP_ST_NEW, child) != MTP_ST_WAITING)
		die(1, "the runtime did not wait for the table");

	/* the table: the executable's functions, the walkers */
	add_file(exe, 1, regex ? &re : NULL, 0);
	add_runtime_libraries(child);
	if (regex)
		mt_regex_release(&re);
	free(pre);
	h->nfuncs = n;
	__atomic_store_n(&h->state, MTP_ST_GO, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->state, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	if (wait_state(h, MTP_ST_GO, child) == MTP_ST_FAILED)
		die(1, "the runtime failed: %s", h->error);

	if (waitpid(child, &st, 0) != child)
		die_errno(3, "waitpid");
	if (verbose)
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s %s cover %u\n", strings + fn[i].name,
				fn[i].status < MTP_FN_NSTATUS ? status_name[fn[i].status] : "?",
				fn[i].cover);
	for (i = 0; i < h->nthreads && i < THREADS; i++) {
		struct mtp_thread *th = (struct mtp_thread *)((char *)h + threads_off + i * stride);
		struct mtp_rec *r = (struct mtp_rec *)(th + 1);
		uint64_t k = th->head > nrec ? th->head - nrec : 0;

		for (; k < th->head; k++) {
			const struct mtp_rec *x = &r[k & (nrec - 1)];
			static const char *const kinds[] = { "?", "call", "return", "cut" };
			uint32_t kind = MTP_REC_KIND_OF(x->kind);

			if (x->kind != MTP_REC_KIND(kind, k / nrec)) {
				printf("%u torn %llu\n", th->tid, (unsigned long long)k);
				continue;
			}
			printf("%u %s %s %llu\n", th->tid, kinds[kind < 4 ? kind : 0],
			       x->func < n ? strings + fn[x->func].name : "?",
			       (unsigned long long)x->time);
		}
	}
	printf("# patched %u skipped %u threads %u lost %u clock %s\n", h->npatched,
	       h->nskipped, h->nthreads, h->threads_lost,
	       h->clock == MTP_CLOCK_TSC ? "tsc" : "monotonic");
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
