/*
 * The patch backend's recorder side (docs/patch.md): the memory it shares
 * with libmt-patch.so in the traced process
 * (plugins/patch-runtime/shm.h), the function table it writes there, the
 * handshake, and the rings read back as mt stream records. struct
 * patch_rec is its caller's (one a recording); failures die through die.h
 * with mt-record's messages and exit codes.
 *
 * The order: patch_rec_init() makes the memory (before the process
 * starts: the command inherits its descriptor, patch_rec_env()); once
 * patch_rec_wait_loaded() has seen the runtime waiting, with every
 * library the process starts with mapped, patch_rec_add() and
 * patch_rec_add_walkers() fill the table and patch_rec_go() has the
 * runtime patch; patch_rec_write() writes what the rings hold, any number
 * of times (each time what came after the last).
 */
#ifndef MT_RECORD_PATCH_REC_H
#define MT_RECORD_PATCH_REC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "patch-rings.h"
#include "patch-table.h"

struct mt_sym;
struct mtp_header;
struct mtp_func;
struct mtp_range;
struct mtp_given;
struct patch_cache;
struct inject;
struct stream_out;
struct target;

/* Each thread's ring without --snapshot-size: 65536 records, 1 MiB. */
#define PATCH_RING_BYTES (1u << 20)

/*
 * The process can write any byte of the memory it shares with mt-record:
 * what mt-record wrote there (the table, the strings) and every bound it
 * chose (the layout, the counts) are kept here, its own copies, and only
 * those are used; what the runtime answers is read once and checked
 * (patch-table.h, patch-rings.h).
 */
struct patch_rec {
	int memfd;             /* inherited by the command (not close-on-exec) */
	struct mtp_header *h;  /* shared */
	size_t size;
	struct mtp_func *sfn;  /* the shared table */
	struct mtp_range *scan; /* shared: the ranges */
	char *sstrings;        /* shared: the strings */
	struct patch_fn *fn;   /* mt-record's table: nfn entries */
	uint32_t nfn;
	size_t fn_cap;
	uint32_t answered;     /* functions whose answers were taken */
	uint32_t nscan;        /* ranges written */
	char *strings;         /* mt-record's copy of the strings */
	uint32_t nstr;         /* string bytes used (0 is "") */
	size_t str_cap;
	uint32_t last_path;    /* the strings offset of the last path added */
	struct patch_rings rings;
	uint32_t undo_failed;  /* -p: entries or return addresses not put back */
	/* of which: threads that would not leave the hooks, entries not as
	 * written, return addresses or shadow stacks */
	uint32_t undo_threads, undo_entries, undo_frames;
	uint32_t trigger;      /* the trigger's table index + 1 (0: none) */
	uint32_t hits_taken;   /* --repeat: queued hits taken (shm.h) */
	uint32_t hit_waits;    /* polls the next one has been half-written */
	uint32_t hits_torn;    /* passed over half-written */
	char error[4 * sizeof(((struct mtp_header *)0)->error) + 1]; /* the runtime's,
								      * quoted */
	uint32_t neighbours_done; /* functions whose files' ranges were added */
	uint32_t scan_published;  /* the ranges said to the runtime (scan_ready) */
	uint32_t *scanned;     /* the files looked at (strings offsets): those
				* ranges were added of, and libraries mapped
				* later with nothing chosen */
	size_t nscanned, scanned_cap;
	uint32_t dl_acked, dl_committed; /* the dl_gen answered, the
					  * dl_prepared written */
	char env_fd[32];       /* MT_PATCH_FD=N */
	/* the cache of branch targets (NULL: none; the caller's, kept
	 * after the recording to be filled), what was given from it */
	struct patch_cache *cache;
	struct mtp_given *sgiven; /* shared */
	uint64_t *stargets;       /* shared */
	uint32_t ngiven;
	uint64_t ntargets;
	/* bytes of the shared table, ranges, strings and targets made
	 * present ahead of mt-record's writes (patch-rec.c: ahead()) */
	uint64_t fn_present, scan_present, str_present, targets_present;
};

/*
 * Makes the memory for rings of ring_bytes each (0: PATCH_RING_BYTES;
 * rounded down to a power of two records, at least 1024), on fd (-p: the
 * process's new memfd, taken with pidfd_getfd and checked by
 * patch_rec_check_memfd()) or, fd -1, a new memfd; sized and sealed at
 * that size (F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_SEAL: the process can
 * never make mt-record's reads fault). Dies (system) when it cannot.
 */
void patch_rec_init(struct patch_rec *p, uint64_t ring_bytes, int fd);

/* Whether path is mt's own, mapped for the runtime (libmt-patch.so, its
 * decoder libZydis): never the program's, never in the table. */
int patch_rec_own_library(const char *path);

/*
 * Whether fd, mt-record's copy of a descriptor the process says is the
 * memfd its runtime made, is that: a new memfd named mt-patch, read and
 * write, empty, unsealed, linked nowhere (what the process made it, not a
 * file it chose). 0, or -1 with why (len bytes).
 */
int patch_rec_check_memfd(int fd, char *why, size_t len);

/* The runtime mt-record uses: libmt-patch.so found as the dlfilter is
 * (dlfilter-run.h); dies (system) naming where it looked when there is
 * none. Malloced. */
char *patch_runtime_path(void);

/*
 * Why the executable exe (is_go: a Go program) cannot be patched, into
 * why (len bytes): 1; or 0 when it can. Not x86-64, not dynamically
 * linked (the runtime is preloaded through the dynamic loader), Go (its
 * goroutine stacks move and grow: a return address kept would go stale),
 * a secure execution for mt-record's user (set-user-ID or set-group-ID to
 * another, file capabilities: the dynamic loader ignores LD_PRELOAD).
 */
int patch_rec_refuses(const char *exe, int is_go, char *why, size_t len);

/*
 * The command's environment additions, for target_start_child(): the
 * descriptor's variable and LD_PRELOAD with the runtime first (before
 * what LD_PRELOAD held). Into env (a NULL-terminated array of 3); the
 * strings are p's and a malloced LD_PRELOAD (*preload, the caller's to
 * free).
 */
void patch_rec_env(struct patch_rec *p, const char *runtime, char **env, char **preload);

/*
 * Waits for the runtime in process pid to wait for the table, while
 * keep_waiting(ctx) says 1 (it checks that the process runs and that no
 * signal came). 0 once it waits; -1 when keep_waiting() said 0 first or
 * ten seconds went by (the runtime was not loaded: a static executable,
 * a secure-execution one).
 */
int patch_rec_wait_loaded(struct patch_rec *p, int (*keep_waiting)(void *ctx), void *ctx);

/*
 * Function s (its name, file address and size) of the file path (the
 * path the process maps it under): traced. Dies (bad input) when the
 * table or its strings are full.
 */
void patch_rec_add(struct patch_rec *p, const char *path, const struct mt_sym *s);

/* Function s of path, a part of another (functions.h's fn_part()): in
 * the table, so that -v says why, but never patched (MTP_FN_PART). */
void patch_rec_add_part(struct patch_rec *p, const char *path, const struct mt_sym *s);

/* The stack walkers (plugins/patch-runtime/unwind.c) of tgt's executable
 * and of the libgcc_s, libstdc++ and libc it maps, whether traced or not
 * (a walker the selection chose is wrapped, not traced: patch_rec_add()
 * leaves those to this). */
void patch_rec_add_walkers(struct patch_rec *p, const struct target *tgt, const char *exe);

/* The walkers of libs (NULL-terminated) that patch_rec_add_walkers()
 * takes of libraries: libgcc_s's, libstdc++'s, libc's longjmp kin and
 * dlopen. */
void patch_rec_add_lib_walkers(struct patch_rec *p, const struct target *tgt, char *const *libs);

/* Libraries mapped later (dlopen): whether path was looked at already (a
 * function of it in the table, its ranges added, or patch_rec_saw_file()
 * after those). */
int patch_rec_has_file(const struct patch_rec *p, const char *path);
void patch_rec_saw_file(struct patch_rec *p, const char *path);

/* The runtime asks for the functions of libraries a dlopen mapped
 * (shm.h's dl_gen): 1 while unanswered. patch_rec_dl_answer(): the table
 * has them now. patch_rec_dl_prepared(): 1 (once) when the runtime has
 * prepared them, for patch_rec_commit(). */
int patch_rec_dl_asked(const struct patch_rec *p);
void patch_rec_dl_answer(struct patch_rec *p);
int patch_rec_dl_prepared(struct patch_rec *p);
/* ... and, once written, lets the dlopen return. */
void patch_rec_dl_done(struct patch_rec *p);

/* Every function of each file the table has a function of, for the
 * runtime to read for branches into another's entry (shm.h's struct
 * mtp_range): after the table is whole (again after functions were
 * added: those files' only), and as it is written, so that the runtime
 * reads a file's code while mt-record adds the rest (the ranges are
 * published: scan_ready). Dies (bad input) when there are more than
 * PATCH_MAX_SCAN. */
void patch_rec_add_neighbours(struct patch_rec *p, const struct target *tgt);

/*
 * Has the runtime patch the table's functions; waits until it says it
 * did (while keep_waiting()). 0, or -1 when keep_waiting() said 0 first;
 * dies (system) with the runtime's reason when it failed.
 */
int patch_rec_go(struct patch_rec *p, int (*keep_waiting)(void *ctx), void *ctx);

/*
 * -p, once the runtime prepared the patches (READY), every thread of the
 * process held by in (inject_stop_all): writes each prepared entry
 * (PATCHED), but where a thread stopped inside the bytes it replaces
 * (BUSY) or where the code is no longer what the runtime read (WRITE).
 */
void patch_rec_commit(struct patch_rec *p, struct inject *in);

/*
 * --max-overhead, every thread held by in: puts back the code of the
 * patched functions idx[0, n) (OFF), but those a thread is inside the
 * bytes of; idx then holds those turned off, first: how many.
 */
size_t patch_rec_turn_off(struct patch_rec *p, struct inject *in, uint32_t *idx, size_t n);

/* What a traced call and return cost in the process (the runtime's
 * measure at READY, ns, kept within 1 to 100,000), or 0: not measured. */
double patch_rec_call_ns(struct patch_rec *p);

/*
 * -p, at the end, every thread held again: each thread stepped out of the
 * runtime and the stubs, every patched entry put back as it was, every
 * patched frame's return address put back and the shadow stacks emptied;
 * state DETACHED (the runtime stays loaded, inert, and may be attached
 * again). What could not be put back is counted in undo_failed.
 */
void patch_rec_undo(struct patch_rec *p, struct inject *in);

/*
 * --trigger: the function at file address addr of path (named name in
 * messages), traced (added unless --functions chose it), its first call
 * once armed taking the snapshot: no record is written after it. Before
 * the table is given to the runtime. Dies (bad input) when its size is
 * unknown.
 */
void patch_rec_trigger_on(struct patch_rec *p, const struct target *tgt, const char *path,
			  uint64_t addr, const char *name);

/* The trigger's calls count from now on (before: none does; at once, or
 * after --arm-after). */
void patch_rec_arm(struct patch_rec *p);

/* A command: once READY the runtime waits for patch_rec_run() before the
 * program goes on (what must be armed first: a trigger the patch left
 * alone). patch_rec_hold() before the table is given. */
void patch_rec_hold(struct patch_rec *p);
void patch_rec_run(struct patch_rec *p);

/* A CLOCK_MONOTONIC time (a breakpoint's or uprobe's hit) in the records'
 * clock, as the next patch_rec_write() will convert: its until. */
uint64_t patch_rec_raw_of(struct patch_rec *p, uint64_t mono);

/* --repeat: each call of the trigger is queued (shm.h's hits), the
 * recording going on, instead of stopping it. Before the table is given
 * to the runtime. */
void patch_rec_queue_hits(struct patch_rec *p);

/* A call of the trigger. */
struct patch_hit {
	uint64_t raw;   /* in the records' clock (patch_rec_write()'s until) */
	uint64_t mono;  /* CLOCK_MONOTONIC ns */
	uint64_t dur;   /* --slower-than: how long the call took (a stop
			 * indicator's: its region), ns */
	uint32_t pid, tid;
	/* its arguments as a stop indicator's (magic-trace's, OCaml ints
	 * untagged): the time passed in rdi, as CLOCK_MONOTONIC ns
	 * (MT_NONE64: none, 0 or after the call, or not on the records'
	 * TSC), and the value in rsi; region: rdi was an OCaml int (odd: a
	 * stop indicator's call, not a return nor a C call without them) */
	uint64_t start;
	int64_t arg;
	int region;
};

/* The oldest queued call not yet taken: 1, or 0 when there is none
 * (yet: one half-written is looked at again, and passed over after 200
 * ms). Its time is as the next patch_rec_write() will give it: write its
 * snapshot next. patch_rec_hit_taken() takes it. The process writes the
 * queue: every value is its word only. */
int patch_rec_next_hit(struct patch_rec *p, struct patch_hit *hit);
void patch_rec_hit_taken(struct patch_rec *p);

/* The calls of the trigger that were not queued (MTP_HITS waiting), or
 * were never whole. */
uint32_t patch_rec_hits_dropped(const struct patch_rec *p);

/* Once patched: why the trigger was left alone, or NULL (patched, or no
 * trigger). */
const char *patch_rec_trigger_status(const struct patch_rec *p);

/* 1 once the trigger was called, *hit set (--slower-than: the hit is
 * the return, or a stop indicator's call); else 0. */
int patch_rec_triggered(const struct patch_rec *p, struct patch_hit *hit);

/* --slower-than ns: a call of the trigger is a hit at its return, when it
 * took that long at least (the runtime's clock: the TSC's rate measured
 * since the memory was made, over 10 ms at least). Before GO, once the
 * runtime has started (its clock known). */
void patch_rec_slower_than(struct patch_rec *p, uint64_t ns);

/* The trigger is a stop indicator (magic_trace.h): with --slower-than
 * (slower: 1) a call is a hit when the region its first argument starts
 * is that long (patch_rec_slower_than()), not at its return. Before GO,
 * after patch_rec_slower_than(). 0, or -1 when slower and the runtime's
 * clock is not the TSC the program passes (nothing set). */
int patch_rec_trigger_region(struct patch_rec *p, int slower);

/* No record is written after this (as after a trigger's call, without
 * its MARK): the process runs on patched, and its rings are read whole. */
void patch_rec_freeze(struct patch_rec *p);

/* Why the runtime failed (state FAILED), or NULL. */
const char *patch_rec_error(struct patch_rec *p);

/*
 * -p, mtp_attach_thread() having found an earlier session still in place (its
 * mt-record was killed) at address at of the process, every thread held
 * by in: that session undone as patch_rec_undo() undoes one, through the
 * process's memory (its table read from there into mt-record's own
 * copies, its bounds checked first: patch_stale_check()), and marked
 * DETACHED. 0; -1 when not all was put back (then it stays in place, not
 * DETACHED: what is left of it still runs there, on its memory and
 * stubs); -2, nothing done, when its header or table cannot be read or
 * makes no sense (the process wrote it).
 */
int patch_rec_undo_stale(struct inject *in, uint64_t at);

/* The mt-record (its pid) that made the session at address at, when it
 * still runs (then the session is not stale); else 0. */
pid_t patch_rec_stale_owner(const struct inject *in, uint64_t at);

/* How many functions were patched, and how many left alone. */
uint32_t patch_rec_patched(const struct patch_rec *p);
uint32_t patch_rec_skipped(const struct patch_rec *p);

/* Each function of the table from index from on left alone and why, a
 * line each on stderr ("-v"), and the names of those patched too with
 * all. */
void patch_rec_list(const struct patch_rec *p, uint32_t from, int all);

/*
 * The rings' records after the last written and up to now, merged in
 * time order, as BRANCH records (flags MT_BF_PROBE: a call is a CALL to
 * the function, a return or a cut a RETURN from it) on s, each thread's
 * THREAD first. A thread whose ring was overwritten starts where every
 * such ring still holds all: the threads begin together. Times are
 * CLOCK_MONOTONIC ns. The process may run on meanwhile: records it is
 * writing are not written out.
 *
 * partial (--full: called again and again while the process runs): the
 * records of the last millisecond, and one being written, are left for
 * the next call (so that the calls' records follow each other in time),
 * a half-written record is waited for once, and a ring overwritten
 * since the last call loses what was overwritten only (counted); with
 * until not 0 (--repeat: a hit's raw time), the records after until are
 * left instead of the last millisecond's. Not partial,
 * until not 0 (a single trigger's raw time): the records after it are
 * left out (another thread's, timed after the hit but written before it
 * saw the rings frozen).
 */
void patch_rec_write(struct patch_rec *p, struct stream_out *s, int partial, uint64_t until);

/* The warnings the rings left (threads without one, records half
 * written), once, on stderr. */
void patch_rec_warnings(struct patch_rec *p);

void patch_rec_release(struct patch_rec *p);

#endif
