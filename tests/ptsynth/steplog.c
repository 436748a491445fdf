/*
 * steplog: an independent record of a program's control transfers, to
 * check ptsynth (and perf's decoding of what it writes) against.
 *
 * usage: steplog [-o FILE] [--aslr] [--range LO-HI] -- PROGRAM [ARGS]
 *
 * Single-steps every thread from exec to exit, as ptsynth does, but
 * classifies nothing: for each step it notes where the thread was and
 * where it is now, and prints a line "tid<TAB>from<TAB>to" (hex) when the
 * new address is not the old one plus the length of the instruction there
 * (capstone gives the length and nothing else). An address that repeats
 * (a rep string instruction's iterations) is no transfer. Signals are
 * delivered; what a handler's entry looks like is not interpreted, so use
 * programs without signals. Lines are in the order the steps were seen;
 * each thread's lines are in its own order.
 *
 * --range LO-HI (hex) keeps only the transfers from or to [LO, HI), and
 * decodes only the instructions there: code elsewhere (AVX-512 string
 * functions of glibc, which capstone 4 cannot decode) is only followed,
 * and a step from outside into the range is always a transfer, since
 * falling through into it from another mapping does not happen.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "banned.h"

#define USAGE "usage: steplog [-o FILE] [--aslr] [--range LO-HI] -- PROGRAM [ARGS]\n"

struct tstate {
	pid_t tid;
	uint64_t rip;
	int len;
	int live;
};

static struct tstate *ts;
static size_t nts, capts;
static csh cs;
static cs_insn *one;
static FILE *out;
static uint64_t lo, hi = UINT64_MAX;

static int inside(uint64_t a)
{
	return a >= lo && a < hi;
}

static struct tstate *find(pid_t tid)
{
	for (size_t i = 0; i < nts; i++)
		if (ts[i].tid == tid)
			return &ts[i];
	grow_or_die(&ts, &capts, nts, sizeof(*ts));
	memset(&ts[nts], 0, sizeof(ts[0]));
	ts[nts].tid = tid;
	return &ts[nts++];
}

/* The length of the instruction at addr, read from the thread. */
static int length_at(pid_t tid, uint64_t addr)
{
	uint8_t buf[16];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(buf) };
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	const uint8_t *code = buf;
	size_t size;
	uint64_t a = addr;

	if (n <= 0) {
		remote.iov_len = local.iov_len = 4096 - (addr & 4095);
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	}
	if (n <= 0)
		die(MT_EXIT_SYSTEM, "cannot read the code of %d at %#" PRIx64,
		    (int)tid, addr);
	size = (size_t)n;
	if (!cs_disasm_iter(cs, &code, &size, &a, one))
		die(MT_EXIT_DATA, "cannot decode the code of %d at %#" PRIx64,
		    (int)tid, addr);
	return (int)one->size;
}

static void note(struct tstate *s)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, s->tid, 0, &r))
		die_errno(MT_EXIT_SYSTEM, "PTRACE_GETREGS %d", (int)s->tid);
	if (s->live && r.rip != s->rip &&
	    (inside(s->rip) ? r.rip != s->rip + (uint64_t)s->len : inside(r.rip)))
		fprintf(out, "%d\t%" PRIx64 "\t%" PRIx64 "\n", (int)s->tid,
			s->rip, (uint64_t)r.rip);
	if (!s->live || r.rip != s->rip)
		s->len = inside(r.rip) ? length_at(s->tid, r.rip) : 0;
	s->rip = r.rip;
	s->live = 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aslr", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "range", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int ch, aslr = 0, status;
	pid_t child, tid;
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL;

	mt_set_progname(argv[0]);
	while ((ch = getopt_long(argc, argv, "+o:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			aslr = 1;
			break;
		case 'h':
			usage_ok(USAGE);
		case 'o':
			output = optarg;
			break;
		case 'r': {
			unsigned long long a, b;
			char end;

			if (sscanf(optarg, "%llx-%llx%c", &a, &b, &end) != 2 || a >= b)
				usage_fail(USAGE);
			lo = a;
			hi = b;
			break;
		}
		default:
			usage_fail(USAGE);
		}
	}
	if (optind >= argc)
		usage_fail(USAGE);
	out = output ? fopen(output, "we") : stdout;
	if (!out)
		die_errno(MT_EXIT_SYSTEM, "cannot create %s", output);
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    !(one = cs_malloc(cs)))
		die(MT_EXIT_SYSTEM, "cannot start capstone");

	child = fork();
	if (child < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (!child) {
		if (!aslr && personality(ADDR_NO_RANDOMIZE) < 0)
			die_errno(MT_EXIT_SYSTEM, "personality");
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			die_errno(MT_EXIT_SYSTEM, "PTRACE_TRACEME");
		execvp(argv[optind], argv + optind);
		die_errno(MT_EXIT_SYSTEM, "cannot run %s", argv[optind]);
	}
	if (waitpid(child, &status, __WALL) != child || !WIFSTOPPED(status))
		die(MT_EXIT_SYSTEM, "the program did not start");
	if (ptrace(PTRACE_SETOPTIONS, child, 0, (void *)opts))
		die_errno(MT_EXIT_SYSTEM, "PTRACE_SETOPTIONS");
	note(find(child));
	ptrace(PTRACE_SINGLESTEP, child, 0, 0);
	for (;;) {
		int sig;
		unsigned event;
		struct tstate *s;

		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!WIFSTOPPED(status))
			continue;
		s = find(tid);
		sig = WSTOPSIG(status);
		event = (unsigned)status >> 16;
		if (event) {
			ptrace(PTRACE_SINGLESTEP, tid, 0, 0);
			continue;
		}
		if (sig == SIGTRAP || (!s->live && sig == SIGSTOP)) {
			note(s);
			sig = 0;
		}
		ptrace(PTRACE_SINGLESTEP, tid, 0, (void *)(intptr_t)sig);
	}
	if (fflush(out) || ferror(out) || (output && fclose(out)))
		die_errno(MT_EXIT_SYSTEM, "error writing the log");
	cs_free(one, 1);
	cs_close(&cs);
	free(ts);
	return 0;
}
