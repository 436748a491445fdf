/*
 * ptsynth: the pieces of the tool, which single-steps a program with
 * ptrace, encodes its control flow as Intel PT packets, writes a perf.data
 * file that perf decodes, and writes the ground truth (tests/ptsynth/
 * README.md). Everything here belongs to the one process; nothing is
 * shared with the mt library except common/symtab and die.
 *
 * Ownership: each module owns what its init allocates and frees it in its
 * release; strings handed out by sym_name() live until sym_release().
 */
#ifndef PTSYNTH_H
#define PTSYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- insn.c: instruction classes, as perf's intel_pt_get_insn() sees
 * them (its opcode table, not capstone's groups) ---- */

enum insn_class {
	IC_OTHER,	  /* no branch */
	IC_JCC,		  /* jcc, loop, jrcxz: a TNT bit */
	IC_JMP,		  /* direct jmp: no packet */
	IC_CALL,	  /* direct call: no packet */
	IC_JMP_IND,	  /* indirect or far jmp: TIP */
	IC_CALL_IND,	  /* indirect or far call: TIP */
	IC_RET,		  /* near or far ret: TIP (return compression off) */
	IC_SYSCALL,	  /* syscall, sysenter: TIP.PGD, later TIP.PGE */
	IC_INT,		  /* int3, int n, into */
	IC_IRET,	  /* iret */
	IC_SYSRET,	  /* sysret, sysexit */
	IC_UNSUPPORTED	  /* vmlaunch and the like: not user code */
};

struct insn {
	uint64_t addr;
	uint64_t target;	/* direct branches: where they go */
	uint8_t len;
	uint8_t cls;		/* enum insn_class */
	uint8_t rep;		/* a rep/repne string instruction */
	uint8_t cpuid;		/* cpuid: its trap comes late on some VMs */
	uint8_t bytes[16];
};

int insn_init(void);
void insn_release(void);
/*
 * Decode the instruction at addr from buf[0..n). Returns 0, or -1 when
 * capstone does not know the bytes (*in is then unchanged).
 */
int insn_decode(const uint8_t *buf, size_t n, uint64_t addr,
		struct insn *in);
/* "call", "jcc" ...: the class's name for messages */
const char *insn_class_name(int cls);

/* ---- sym.c: function names and identities, as perf 6.1 gives them ---- */

struct sym_map {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	char *path;		/* "[vdso]" for the vDSO */
	int table;		/* index of its symbol table, -1 for none */
	uint64_t bias;		/* runtime = file address + bias */
};

struct sym_info {
	uint64_t entry;		/* the function's start, or a per-DSO key for
				 * code perf prints as [unknown] */
	const char *name;	/* demangled, "[unknown]" when none */
	const char *dso;	/* the mapping's path */
};

void sym_init(void);
void sym_release(void);
/*
 * A new executable mapping of the traced process (a line of its maps).
 * image, when not NULL, holds the mapping's bytes (the vDSO's, read from
 * the process). Returns the map, owned by the module.
 */
const struct sym_map *sym_add_map(uint64_t start, uint64_t end,
				  uint64_t pgoff, uint32_t maj, uint32_t min,
				  uint64_t ino, const char *path,
				  const void *image, size_t image_len);
/* The function holding addr (cached per address). */
void sym_lookup(uint64_t addr, struct sym_info *out);
/* Whether a Go program's file (one with .gopclntab) was loaded. */
int sym_go(void);

/* ---- perfdata.c: the perf.data file ---- */

void pd_init(void);
void pd_comm(uint32_t pid, uint32_t tid, const char *comm, int exec,
	     uint64_t time);
void pd_mmap2(uint32_t pid, uint32_t tid, const struct sym_map *m,
	      uint64_t time);
void pd_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time);
/* One AUXTRACE buffer: the thread's whole trace. reference: its first TSC. */
void pd_aux(uint32_t tid, const uint8_t *data, size_t len,
	    uint64_t reference);
/* Write everything to path. */
void pd_write(const char *path);
void pd_release(void);

/* ---- encode.c: PT packets, timing and the truth, per thread ---- */

enum timing { TIMING_FINE, TIMING_COARSE };

struct thread;

void enc_init(enum timing timing, FILE *truth);
struct thread *enc_thread_new(uint32_t pid, uint32_t tid);
/* Tracing (re)starts at ip at time: TIP.PGE; the first one starts the
 * thread's trace. handler_rsp: not 0 when a signal handler starts there.
 * rsp: the stack pointer at ip; sigreturn: the system call that stopped
 * the trace was rt_sigreturn. */
void enc_begin(struct thread *t, uint64_t ip, uint64_t time,
	       uint64_t handler_rsp, uint64_t rsp, int sigreturn);
/* in was executed at time and control went to next; rsp is the stack
 * pointer after it, fs the FS base (Go's g is at fs - 8). */
void enc_exec(struct thread *t, const struct insn *in, uint64_t next,
	      uint64_t rsp, uint64_t fs, uint64_t time);
/* An asynchronous event (a signal) at ip, before the instruction there
 * ran: FUP, TIP.PGD. */
void enc_async(struct thread *t, uint64_t ip, uint64_t time);
/* The thread ended; what is open stays open. */
void enc_end(struct thread *t);
/* Hand every thread's buffer to perfdata and write the truth's spans of
 * threads still open. */
void enc_finish(void);
void enc_release(void);

/* ---- ptsynth.c: the traced process's memory ---- */

/* Read up to n bytes at addr of thread tid; returns how many were read. */
size_t tracee_read(uint32_t tid, uint64_t addr, void *buf, size_t n);

/* Time of a step: the TSC, which perf shows as ns. */
#define TIME_BASE 1000000000000ull	/* perf prints 1000.000000000 */
#define NS_PER_STEP 10

#endif
