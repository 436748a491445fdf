/*
 * Loading the patch runtime into a running process: see patch-load.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "inject.h"
#include "patch-load.h"
#include "banned.h"

/* boot.S: the code copied into the process */
extern const char mt_boot_code[], mt_boot_boot[], mt_boot_loader[], mt_boot_end[];

/* how long boot may take to come back from pthread_create */
#define BOOT_MS 3000

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

static void read_block(struct patch_load *l)
{
	if (inject_read(l->in, l->block, &l->b, sizeof(l->b)))
		memset(&l->b, 0, sizeof(l->b));
}

/* The pages mapped and written by the borrowed thread 0: 0, or dies
 * (the thread put back). */
static void make_pages(struct patch_load *l, const char *runtime, const uint64_t *fns,
		       uint64_t dlflags)
{
	struct inject *in = l->in;
	struct mtp_boot *b = &l->b;
	long a;

	a = inject_syscall(in, SYS_mmap, 0, 2 * MTP_BOOT_PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a < 0 && a > -4096) {
		inject_take_back(in, 0, 0);
		errno = (int)-a;
		die_errno(MT_EXIT_SYSTEM, "process %d: mmap of the loader's two pages",
			  (int)in->pid);
	}
	l->code = (uint64_t)a;
	l->block = l->code + MTP_BOOT_PAGE;
	memset(b, 0, sizeof(*b));
	b->magic = MTP_BOOT_MAGIC;
	b->pthread_create = fns[PL_PTHREAD_CREATE];
	b->pthread_detach = fns[PL_PTHREAD_DETACH];
	b->pthread_self = fns[PL_PTHREAD_SELF];
	b->dlopen = fns[PL_DLOPEN];
	b->dlsym = fns[PL_DLSYM];
	b->dlflags = dlflags;
	b->frame_uc = inject_frame_uc(in);
	b->tick_nsec = 10 * 1000 * 1000;
	b->unblock = 1ull << (33 - 1); /* glibc's SIGSETXID */
	b->memfd = -1;
	b->recorder = (uint32_t)getpid();
	snprintf(b->libgcc, sizeof(b->libgcc), "libgcc_s.so.1");
	snprintf(b->symbol, sizeof(b->symbol), "mtp_attach_thread");
	snprintf(b->runtime, sizeof(b->runtime), "%s", runtime);
	if (inject_write(in, l->code, mt_boot_code, (size_t)(mt_boot_end - mt_boot_code)) ||
	    inject_write(in, l->block, b, sizeof(*b))) {
		inject_take_back(in, 0, 0);
		die_errno(MT_EXIT_SYSTEM, "process %d: writing the loader", (int)in->pid);
	}
	a = inject_syscall(in, SYS_mprotect, (long)l->code, MTP_BOOT_PAGE,
			   PROT_READ | PROT_EXEC, 0, 0, 0);
	if (a < 0) {
		inject_take_back(in, 0, 0);
		errno = (int)-a;
		die_errno(MT_EXIT_SYSTEM, "process %d: mprotect of the loader's code",
			  (int)in->pid);
	}
}

/* Runs boot on the borrowed thread until pthread_create returned (0),
 * the time ran out (1), or keep_waiting() said 0 (-1); the thread is put
 * back each way. Dies on a fault. */
static int run_boot(struct patch_load *l)
{
	struct inject *in = l->in;
	uint32_t done = 0;
	long ms;
	int rc;

	if (inject_run(in, l->code + (uint64_t)(mt_boot_boot - mt_boot_code), l->block)) {
		inject_take_back(in, 0, 0);
		die_errno(MT_EXIT_SYSTEM, "ptrace(running the loader in process %d)",
			  (int)in->pid);
	}
	for (ms = 0; ms < BOOT_MS; ms++) {
		if (inject_read(in, l->block + MTPB_DONE, &done, sizeof(done)))
			done = 0;
		if (done)
			break;
		if ((rc = inject_running(in)) == -2) {
			inject_take_back(in, 0, 0);
			die(MT_EXIT_SYSTEM, "process %d faulted in the loader mt-record "
			    "wrote (put back as it was)", (int)in->pid);
		}
		if (rc < 0)
			die(MT_EXIT_DATA, "process %d ended while mt-record loaded the patch "
			    "runtime", (int)in->pid);
		if (!l->keep_waiting(l->ctx)) {
			/* done or not, put back as it was */
			inject_take_back(in, 0, 0);
			return -1;
		}
		sleep_ms(1);
	}
	/* in the code page still: put back; gone back by itself: as it is */
	if (inject_take_back(in, done ? l->code : 0, done ? l->code + MTP_BOOT_PAGE : 0) < 0)
		die(MT_EXIT_DATA, "process %d ended while mt-record loaded the patch runtime",
		    (int)in->pid);
	return done ? 0 : 1;
}

int patch_load_start(struct patch_load *l, const char *runtime, const uint64_t fns[PL_NFNS],
		     uint64_t dlflags)
{
	struct inject *in = l->in;
	int attempt, rc;

	if (strlen(runtime) >= MTPB_PATH_MAX)
		die(MT_EXIT_SYSTEM, "%s: path too long", runtime);
	l->runtime = runtime;
	for (attempt = 0; attempt < 3; attempt++) {
		pid_t tid;

		if (inject_choose(in, 200)) {
			if (errno != EBUSY || !inject_alive(in))
				die(MT_EXIT_DATA, "process %d ended", (int)in->pid);
			die(MT_EXIT_SYSTEM, "process %d: every thread was inside the C library "
			    "(or waiting on one of its locks) each time mt-record looked, 200 "
			    "times: nothing was changed; try again", (int)in->pid);
		}
		inject_release_others(in); /* they run meanwhile */
		tid = in->t[0].tid;
		if (inject_borrow(in)) {
			int e = errno;

			inject_release_all(in);
			errno = e;
			if (e == ENOEXEC)
				die(MT_EXIT_DATA, "process %d: its C library has no "
				    "__restore_rt or no `syscall; ret' (not glibc?)",
				    (int)in->pid);
			die_errno(MT_EXIT_SYSTEM, "process %d: thread %d's stack", (int)in->pid,
				  (int)tid);
		}
		make_pages(l, runtime, fns, dlflags);
		rc = run_boot(l);
		inject_release_all(in);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			read_block(l);
			if (l->b.create_rc) {
				errno = l->b.create_rc;
				die_errno(MT_EXIT_SYSTEM, "process %d: pthread_create of the "
					  "loader thread", (int)in->pid);
			}
			return 0;
		}
		/* it waited on a lock it held (a signal handler's, say): put
		 * back; its pages stay (a thread may yet start there) */
		warn("process %d: thread %d did not come back from pthread_create in %d s "
		     "(a lock it holds?); put back as it was, trying another", (int)in->pid,
		     (int)tid, BOOT_MS / 1000);
		in->avoid = tid;
		l->code = l->block = 0;
	}
	die(MT_EXIT_SYSTEM, "process %d: no thread could start the loader; nothing was "
	    "changed but 8 KiB mapped for each try", (int)in->pid);
}

uint32_t patch_load_wait(struct patch_load *l, uint32_t ph, long ms)
{
	long waited;

	for (waited = 0;; waited += 2) {
		read_block(l);
		if (l->b.phase != ph || (l->b.loader & 0xff) == MTPB_L_FAILED)
			return l->b.phase;
		if (waited >= ms || !l->keep_waiting(l->ctx) || !inject_alive(l->in))
			return ph;
		sleep_ms(2);
	}
}

void patch_load_answer(struct patch_load *l, uint32_t answer)
{
	if (inject_write(l->in, l->block + MTPB_ANSWER, &answer, sizeof(answer)))
		warn("process %d: the answer to the patch runtime: %s", (int)l->in->pid,
		     strerror(errno));
}

void patch_load_free(struct patch_load *l)
{
	struct inject *in = l->in;
	char path[64];
	int ms;

	if (!l->code || !in->n)
		return;
	for (ms = 0; ms < 1000; ms += 5) {
		read_block(l);
		snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)in->pid, l->b.loader_tid);
		if ((l->b.loader & MTPB_L_ENDED) && (!l->b.loader_tid || access(path, F_OK)))
			break;
		/* every thread held: the loader cannot end meanwhile */
		inject_release_all(in);
		sleep_ms(5);
		if (!inject_stop_all(in))
			return;
	}
	if (ms < 1000 && !patch_load_unmap(l, l->code, 2 * MTP_BOOT_PAGE))
		l->code = l->block = 0;
}

int patch_load_unmap(struct patch_load *l, uint64_t addr, uint64_t len)
{
	long r;

	if (!l->in->n || inject_borrow(l->in))
		return -1;
	r = inject_syscall(l->in, SYS_munmap, (long)addr, (long)len, 0, 0, 0, 0);
	inject_take_back(l->in, 0, 0);
	return r ? -1 : 0;
}
