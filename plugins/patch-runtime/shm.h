/*
 * The memory mt-record and the patch runtime (libmt-patch.so, loaded into
 * the traced process) share: one memfd, made and sized by mt-record,
 * mapped MAP_SHARED by both. mt-record writes the header, and the
 * function table once the runtime waits for it (enum mtp_state); the
 * runtime writes each function's status and where it is, claims a thread
 * slot for each thread that runs a patched function, and appends records
 * to that thread's ring.
 *
 * Layout: struct mtp_header at offset 0; nfuncs struct mtp_func at
 * funcs_off; nscan struct mtp_range at scan_off; max_given struct
 * mtp_given at given_off and max_targets targets (uint64_t) at
 * targets_off; the strings
 * (NUL-terminated paths and names) at strings_off; max_threads slots of
 * thread_stride bytes at threads_off, each a struct mtp_thread followed
 * by ring_records struct mtp_rec.
 *
 * A ring is written by its thread alone: a record's slot is claimed by
 * one instruction (head++, xadd: a signal handler on the same thread gets
 * the next one), then filled; head counts every record ever written, so
 * records head - ring_records .. head - 1 are the newest (the older ones
 * were overwritten). The record of number k (slot k % ring_records) is
 * whole when its kind field is MTP_REC_KIND(kind, k / ring_records): the
 * writer clears the field, writes time and func, then sets it (release).
 * A reader loads the field (acquire), the rest, and the field again: the
 * record is k's, whole, when both loads give that value; else it is being
 * written (a thread stopped or killed in between, a signal handler's
 * records written before the ones it interrupted) or was overwritten.
 *
 * Times: with clock MTP_CLOCK_TSC a record's time is the TSC, and
 * (tsc0, mono0) is a pair the runtime read together at start; the reader
 * maps the TSC to CLOCK_MONOTONIC nanoseconds through that pair and one
 * of its own (the TSC is the machine's, the same in every process). With
 * MTP_CLOCK_MONOTONIC (no invariant TSC) times are CLOCK_MONOTONIC ns.
 */
#ifndef MT_PATCH_SHM_H
#define MT_PATCH_SHM_H

#include <stdint.h>

#define MTP_MAGIC 0x3168637461702d74ULL /* "t-patch1" */
#define MTP_VERSION 15
/* the environment variable that names the memfd's descriptor */
#define MTP_ENV_FD "MT_PATCH_FD"
/* the longest run of bytes an entry patch covers, relocated */
#define MTP_MAX_COVER 32
/* the longest stub (mtp_func.stub): its code, then the relocated bytes */
#define MTP_STUB_MAX (16 + 4 * MTP_MAX_COVER)

enum mtp_clock { MTP_CLOCK_TSC = 1, MTP_CLOCK_MONOTONIC = 2 };

/* the handshake (mtp_header.state) of a command: mt-record makes the
 * memory (NEW);
 * the runtime, loaded, says WAITING and waits (a futex on state); once
 * the process has mapped its libraries mt-record writes the function
 * table and says GO; the runtime patches and says READY, or FAILED with
 * the reason in error. While mt-record writes the table, the runtime
 * reads the code of the scan ranges it has published (scan_ready,
 * table_seq): the two work at once. */
enum mtp_state {
	MTP_ST_NEW = 0,
	MTP_ST_WAITING = 1,
	MTP_ST_GO = 2,
	MTP_ST_READY = 3,
	MTP_ST_FAILED = 4,
	MTP_ST_DETACHED = 5 /* mt-record -p undid every patch and hook: the
			     * runtime may be attached again */
};

/* a function's status (mtp_func.status) */
enum mtp_status {
	MTP_FN_PENDING = 0,
	MTP_FN_PATCHED,
	MTP_FN_NOT_LOADED,  /* its file is not mapped in the process */
	MTP_FN_TOO_SHORT,   /* fewer than 5 bytes with the padding after it */
	MTP_FN_NO_SIZE,     /* its size is unknown: its body cannot be checked */
	MTP_FN_UNDECODABLE, /* an instruction the decoder does not know */
	MTP_FN_BRANCH_IN,   /* a branch of its own into the bytes replaced */
	MTP_FN_UNRELOCATABLE, /* an instruction there that cannot move */
	MTP_FN_NO_ROOM,     /* no trampoline memory within 2 GiB of it */
	MTP_FN_ALIAS,       /* the same address as a function before it */
	MTP_FN_WRITE,       /* writing its entry failed */
	MTP_FN_TOO_MANY,    /* a walker with more copies than MTP_WALKER_COPIES */
	MTP_FN_NOT_CALLED,  /* not entered by a call: the program's entry
			     * point, a signal return, ld.so's lazy binding */
	MTP_FN_UNWINDER,    /* libgcc's unwinder (uw_*, _Unwind_*): it reads
			     * its own return addresses */
	MTP_FN_RETURNS_TWICE, /* setjmp, getcontext, vfork: the return
			       * address they keep would be the trampoline */
	MTP_FN_RUNTIME,     /* the runtime's own (libmt-patch.so) */
	MTP_FN_BUSY,        /* a stopped thread was inside the bytes to
			     * replace (-p) */
	MTP_FN_PART,        /* a part of another function (f.cold), entered
			     * by a jump: mt-record's verdict, in the table
			     * for -v, never patched; or the runtime's, for
			     * a function flagged MTP_FF_GUESSED that only
			     * conditional jumps enter */
	MTP_FN_BAD_ANSWER,  /* mt-record's: the runtime's answer for it made
			     * no sense (the process wrote the table) */
	MTP_FN_BREAKPOINT,  /* another tracer's breakpoint (int3: a uprobe
			     * still in place, a debugger's) in its entry */
	MTP_FN_OFF,         /* mt-record's: patched, then its entry put back
			     * to keep the cost under --max-overhead */
	MTP_FN_NSTATUS
};

/* what a function's patch does (mtp_func.kind): record its calls, or
 * (the stack walkers of libgcc_s and libstdc++, wherever they are linked,
 * and libc's longjmp) run it inside a wrapper that lets it see the real
 * return addresses or cuts the frames it leaves (unwind.c) */
enum mtp_fkind {
	MTP_FK_TRACE = 0,
	MTP_FK_RAISE,         /* _Unwind_RaiseException */
	MTP_FK_RETHROW,       /* _Unwind_Resume_or_Rethrow */
	MTP_FK_FORCED,        /* _Unwind_ForcedUnwind */
	MTP_FK_BACKTRACE,     /* _Unwind_Backtrace */
	MTP_FK_CATCH,         /* __cxa_begin_catch */
	MTP_FK_RESUME,        /* _Unwind_Resume (after a cleanup) */
	MTP_FK_LONGJMP,       /* longjmp and its kin: the frames it leaves
			       * are cut as it jumps */
	MTP_FK_PERSONALITY,   /* a personality routine: where an unwind
			       * lands, the frames it left end */
	MTP_FK_DLOPEN,        /* dlopen: the libraries it maps are offered
			       * to mt-record (mtp_header.dl_gen) */
	MTP_FK_VFORK,         /* vfork: the child, which shares the thread's
			       * memory and TLS until it execs or exits,
			       * runs unhooked (tramp.S) */
	MTP_FK_QUIET,         /* posix_spawn and its kin (their children
			       * share the memory and TLS too): the thread
			       * runs unhooked until they return */
	MTP_FK_N
};

/* The walkers by name (X(name, kind)), for mt-record's table. */
#define MTP_WALKERS(X) \
	X("_Unwind_RaiseException", MTP_FK_RAISE) \
	X("_Unwind_Resume_or_Rethrow", MTP_FK_RETHROW) \
	X("_Unwind_ForcedUnwind", MTP_FK_FORCED) \
	X("_Unwind_Backtrace", MTP_FK_BACKTRACE) \
	X("__cxa_begin_catch", MTP_FK_CATCH) \
	X("_Unwind_Resume", MTP_FK_RESUME) \
	X("longjmp", MTP_FK_LONGJMP) \
	X("_longjmp", MTP_FK_LONGJMP) \
	X("siglongjmp", MTP_FK_LONGJMP) \
	X("__libc_siglongjmp", MTP_FK_LONGJMP) \
	X("__libc_longjmp", MTP_FK_LONGJMP) \
	X("__longjmp_chk", MTP_FK_LONGJMP) \
	X("__longjmp", MTP_FK_LONGJMP) \
	X("____longjmp_chk", MTP_FK_LONGJMP) \
	X("__gxx_personality_v0", MTP_FK_PERSONALITY) \
	X("__gcc_personality_v0", MTP_FK_PERSONALITY) \
	X("rust_eh_personality", MTP_FK_PERSONALITY) \
	X("dlopen", MTP_FK_DLOPEN) \
	X("__libc_dlopen_mode", MTP_FK_DLOPEN) \
	X("vfork", MTP_FK_VFORK) \
	X("__vfork", MTP_FK_VFORK) \
	X("__libc_vfork", MTP_FK_VFORK) \
	X("posix_spawn", MTP_FK_QUIET) \
	X("posix_spawnp", MTP_FK_QUIET) \
	X("system", MTP_FK_QUIET) \
	X("popen", MTP_FK_QUIET) \
	X("__clone_internal", MTP_FK_QUIET)
/* copies of each walker the runtime wraps (a static one in the
 * executable, libgcc_s's, ...) */
#define MTP_WALKER_COPIES 8

/* --repeat: the trigger's calls the runtime queues for mt-record (one
 * snapshot each) instead of stopping the recording at the first */
#define MTP_HITS 64

struct mtp_hit {
	uint64_t time;  /* the call's (its return's with slower_raw), in the
			 * records' clock */
	uint64_t dur;   /* with slower_raw: the call's (a region's: from the
			 * time rdi passed), in that clock */
	uint64_t rdi, rsi; /* at the call (0 at a return): a stop
			    * indicator's arguments */
	uint32_t pid, tid;
	uint32_t seq;   /* its number + 1, written last (release): the
			 * entry is whole once it is */
	uint32_t pad;
};

/* a record's kind */
enum mtp_kind {
	MTP_CALL = 1,   /* func was entered */
	MTP_RETURN = 2, /* func returned */
	MTP_CUT = 3     /* func's frame was cut (longjmp, unwinding) */
};

/* what mt-record knows of a function (mtp_func.flags) */
enum mtp_fflags {
	/* found by its FDE alone (no symbol names it): a guess that it is
	 * a function. The runtime finds it a part (MTP_FN_PART) when other
	 * code enters it by conditional jumps and none by a call or any
	 * other branch: a compiler's cold block (f.cold) whose frame is
	 * already popped, which its FDE cannot tell from a function. */
	MTP_FF_GUESSED = 1
};

struct mtp_func {
	uint64_t addr;    /* mt-record: the symbol's address in its file */
	uint64_t size;    /* mt-record: its size, 0 if unknown */
	uint32_t path;    /* mt-record: strings offset of the file's path */
	uint32_t name;    /* mt-record: strings offset of the name */
	uint64_t where;   /* runtime: its address in the process */
	uint32_t status;  /* runtime: enum mtp_status */
	uint32_t cover;   /* runtime: the bytes its patch replaced */
	uint32_t kind;    /* mt-record: enum mtp_fkind */
	uint32_t flags;   /* mt-record: enum mtp_fflags */
	uint32_t pad;
	int32_t lead;     /* runtime: the patch's bytes are [where - lead,
			   * where + cover): lead > 0, the padding before
			   * where that a hop takes; lead < 0, a -pg
			   * prologue it leaves in place (patch.h) */
	uint64_t stub;    /* runtime: the stub its entry jumps to */
	/* runtime: the lead + cover bytes from where - lead before the
	 * patch, and the patch (a jmp to stub, int3s; with a hop, a jmp to
	 * stub, the padding as it was, a short jmp to it, int3s): who undoes
	 * the patch (mt-record -p, all threads stopped) writes orig back
	 * where it still finds code */
	uint8_t orig[MTP_MAX_COVER];
	uint8_t code[MTP_MAX_COVER];
};

/* A function of a file that holds a patched one, for the runtime to read
 * (not patched): a direct branch of it into another function's replaced
 * bytes leaves that one alone (BRANCH_IN), as glibc's mempcpy jumps past
 * memmove's first instruction. Its start ends the padding before it
 * (patch.h); size is 0 for a symbol the file gives none. */
struct mtp_range {
	uint64_t addr;    /* mt-record: its address in its file */
	uint64_t size;    /* mt-record */
	uint64_t where;   /* runtime: its address in the process, 0 if not mapped */
	uint32_t path;    /* mt-record: strings offset of the file's path */
	uint32_t flags;   /* mt-record: MTP_RANGE_*; the runtime clears
			   * them where it does not take what is given */
};

/* a range's flags: its targets are given (in its file's struct
 * mtp_given), not to be read; and with GIVEN, it was decoded whole;
 * TAKEN, the runtime's: it took them (its code hashed the same) */
#define MTP_RANGE_GIVEN 1u
#define MTP_RANGE_WHOLE 2u
#define MTP_RANGE_TAKEN 0x80000000u

/*
 * The targets of the direct branches of one file's scan ranges, read by
 * mt-record from the file (its cache, mt-record/patch/patch-cache.h):
 * ranges [first, first + n) of the scan ranges, all of one file and each
 * flagged MTP_RANGE_GIVEN; their targets are targets [at, at + count)
 * (MTP_TARGET() of file addresses, branches.h), and hash is
 * mtp_code_hash() of the bytes of those ranges, in their order, as the
 * file has them. The runtime takes the targets (biased as the ranges are)
 * only when its memory hashes the same; else it reads those ranges
 * itself. Written before the ranges are published (scan_ready).
 */
struct mtp_given {
	uint32_t first, n;
	uint64_t hash;
	uint64_t at, count;
};

struct mtp_rec {
	uint64_t time;
	uint32_t func;  /* index in the function table */
	uint32_t kind;  /* MTP_REC_KIND(enum mtp_kind, lap) */
};

/* A record's kind field: its kind and the low 24 bits of its lap (its
 * number over ring_records); 0 while it is written. */
#define MTP_REC_KIND(kind, lap) ((uint32_t)(kind) | (uint32_t)((lap) & 0xffffff) << 8)
#define MTP_REC_KIND_OF(field) ((field) & 0xff)

/* The deepest a thread's shadow stack goes; deeper frames run
 * unrecorded (their returns are not replaced). */
#define MTP_SHADOW_MAX (1u << 16)

/* A frame of a thread's shadow stack: the return address the trampoline
 * replaced, where it was, the function (its table index) and when it was
 * called (the records' clock: --slower-than). */
struct mtp_shadow {
	uint64_t ret;
	uint64_t slot;
	uint64_t func;
	uint64_t time;
};

struct mtp_thread {
	uint32_t tid;   /* 0: the slot is being claimed */
	uint32_t pid;
	char comm[16];
	uint64_t head;  /* records ever written */
	/* where, in the process, the thread's shadow stack is: its depth
	 * (a uint32_t) and its frames (struct mtp_shadow), for mt-record -p
	 * to put each return address back when it detaches */
	uint64_t depth_at, stack_at;
	/* A slot whose thread ended is taken again by a new thread once
	 * every slot is taken (with drain set, only once mt-record has read
	 * all of it: drained == head): gen counts up, start is head then,
	 * and the records from prev_start to start are prev_tid's (its name
	 * prev_comm); older ones are no thread's any more (left out). tid
	 * is written last (release). */
	uint32_t gen, prev_tid;
	char prev_comm[16];
	uint64_t start, prev_start; /* prev_tid's records: prev_start .. start */
	uint64_t drained;  /* mt-record (--full): records read out */
	uint64_t state_at; /* the thread's state (its shadow stack), freed
			    * when the slot is taken again */
};

struct mtp_header {
	uint64_t magic;
	uint32_t version;
	uint32_t state;        /* enum mtp_state (runtime) */
	uint64_t size;         /* of the whole mapping */
	uint32_t nfuncs;       /* mt-record, before GO */
	uint32_t max_funcs;    /* room in the table and the strings */
	uint32_t strings_size;
	uint32_t max_threads;
	uint64_t ring_records; /* a power of two */
	uint64_t funcs_off, strings_off, threads_off, thread_stride;
	uint32_t nthreads;     /* slots claimed (runtime, atomic) */
	uint32_t threads_lost; /* threads that found no slot (atomic) */
	uint32_t pid;          /* runtime: the process patched */
	uint32_t clock;        /* runtime: enum mtp_clock */
	uint64_t tsc0, mono0;  /* runtime: read together at start */
	uint32_t npatched;     /* runtime */
	uint32_t nskipped;     /* runtime */
	/* runtime: the return trampoline, and where the runtime's own code
	 * is (mt-record -p steps a thread out of it before undoing hooks) */
	uint64_t tramp, own_lo, own_hi;
	/* --trigger: mt-record, before GO: 1 + the table index of the
	 * function whose call takes the snapshot (0: none); runtime, at its
	 * first call (with slower_raw: the first return of a slow one):
	 * frozen 1 (no record is written after that call's), who called it
	 * and when (futex wake on frozen) */
	uint32_t trigger, frozen;
	uint32_t trigger_pid, trigger_tid;
	uint64_t trigger_time;
	uint64_t trigger_rdi, trigger_rsi; /* at the call (0 at a return) */
	/* --slower-than (mt-record, before GO; 0: none): a call of the
	 * trigger is a hit only at its return, when it took at least this
	 * long (the records' clock); trigger_dur says how long it took */
	uint64_t slower_raw, trigger_dur;
	/* (mt-record, before GO) the trigger is a stop indicator: with
	 * slower_raw a call is a hit when the time it passes in rdi (an
	 * OCaml int: 2n + 1, the records' clock) is that long before it,
	 * and not at its return; its duration is that region's */
	uint32_t trigger_region, pad_region;
	/* --repeat (mt-record, before GO: trigger_queue 1): each call of
	 * the trigger is not frozen but queued, the recording going on: the
	 * runtime takes number hits_n (atomic) while fewer than MTP_HITS
	 * are waiting (hits_n - hits_taken), else counts it in hits_dropped,
	 * and fills hits[number % MTP_HITS]; mt-record takes them in order
	 * (hits_taken, release) */
	uint32_t trigger_queue, hits_n, hits_taken, hits_dropped;
	struct mtp_hit hits[MTP_HITS];
	/* a command's (mt-record, before GO: hold 1): once READY the runtime
	 * waits (10 s at most, less once mt-record is gone) for run to be 1
	 * before the program goes on: mt-record arms what it must first (a
	 * trigger the patch left alone fires by a breakpoint or a uprobe) */
	uint32_t hold, run;
	/* libraries mapped later, by dlopen: the runtime counts dl_gen up
	 * (a futex wake) and waits (2 s at most) for mt-record to add their
	 * functions to the table and scan ranges and set dl_ack to it; the
	 * runtime then prepares them (pending, as with -p) and sets
	 * dl_prepared to it; mt-record writes their entries, the process's
	 * threads stopped, and sets dl_done to it, which the runtime waits
	 * for (2 s at most) before dlopen returns */
	uint32_t dl_gen, dl_ack, dl_prepared, dl_done;
	uint32_t recorder;     /* mt-record: its pid (-p: one still running
				* holds the session) */
	uint32_t clean;        /* mt-record, with DETACHED: every entry and
				* return address put back (the stubs' memory
				* may be reused) */
	uint32_t drain;        /* mt-record, before GO: it reads the rings while
				* they are written (--full): a slot is taken
				* again only once read out */
	uint32_t reclaimed;    /* runtime: slots taken again (atomic) */
	uint32_t reclaim_next; /* runtime: where the next look for a slot to
				* take again starts (in turn: the oldest go
				* first, the newest rings stay) */
	uint32_t pad4;
	uint32_t busy;         /* runtime: threads using this memory outside
				* the hooks (a dlopen's offer): while not 0,
				* mt-record leaves it mapped */
	uint32_t pad3;
	uint64_t self;         /* runtime: where this memory is mapped, and */
	uint64_t shm_at;       /* where its pointer to it is (mt-record -p
				* clears it and unmaps the memory at the
				* detach) */
	uint64_t live_at;      /* runtime: where *mtp_live is (a uint32_t:
				* mt-record -p clears it as a detach begins,
				* and no hook touches this memory after) */
	int64_t busy_tls;      /* runtime: where each thread's count of the
				* hooks it is inside is (a uint32_t), from
				* its %fs base (mtp_busy_offset()) */
	uint64_t scan_off;     /* mt-record, before GO: nscan struct mtp_range */
	uint32_t nscan, max_scan;
	uint32_t scan_ready;   /* mt-record: the ranges [0, scan_ready) are
				* written (release), and the runtime may
				* read their code while it waits for GO */
	uint32_t table_seq;    /* mt-record: counts up (release) each time
				* scan_ready grows and at GO; a futex the
				* runtime waits on for both */
	uint64_t given_off;    /* mt-record: max_given struct mtp_given, */
	uint64_t targets_off;  /* and max_targets targets the givens index */
	uint32_t max_given, ngiven; /* ngiven: written with scan_ready */
	uint64_t max_targets;
	uint32_t given_taken;  /* runtime: givens whose targets it took, */
	uint32_t given_refused; /* and those whose code hashed otherwise */
	uint64_t call_cost;    /* runtime, before READY: a traced call and
				* return, in the records' clock (0: not
				* measured; hooks.h mtp_calibrate()) */
	char error[128];       /* runtime: why MTP_ST_FAILED */
};

#endif
