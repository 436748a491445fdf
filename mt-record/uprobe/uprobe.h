/*
 * struct mt_uprobe: the uprobe capture engine of mt-record's uprobe
 * backend. It puts entry and return probes on functions of ELF files
 * through perf_event_open's dynamic "uprobe" PMU (no tracefs, no perf
 * probe: the probes belong to the recorder's file descriptors and vanish
 * when it exits, however it exits), records their hits into per-CPU ring
 * buffers that it reads continuously, keeps the newest events of each ring
 * as a snapshot, and dumps the snapshot's events, each symbolized, to the
 * caller's sink (mt-record writes them as records of its stream, or as
 * the text that perf script prints for uprobe samples).
 *
 * Ownership: the engine owns everything it allocates and every file
 * descriptor it opens (perf events, rings, the target's pidfd, ELF files);
 * mt_uprobe_release() frees and closes them all. Strings passed in are
 * copied. Nothing is printed and nothing exits: functions return 0 or a
 * count on success and a negative MT_E* code (common/err.h) on failure,
 * and then u->what names the operation that failed (for MT_EIO errno holds
 * the reason), e.g. "perf_event_open(uprobe /bin/app:0x11d9 'work' on cpu
 * 1)". The engine is single-threaded: one thread calls it.
 *
 * Needs CAP_SYS_ADMIN (the kernel's rule for the uprobe PMU), libelf
 * (link -lelf -lz) and libmttool.a for mt_spawn_start() (common/spawn.h:
 * background_close's process; it neither prints nor exits).
 *
 * Lifecycle:
 *
 *   struct mt_uprobe u;
 *   mt_uprobe_init(&u, &opts);               options, PMU lookup
 *   mt_uprobe_add(&u, path, name, addr, MT_UPROBE_ENTRY | MT_UPROBE_RETURN);
 *   ...                                      one call per function
 *   mt_uprobe_attach(&u, pid, MT_UPROBE_PROCESS);   or MT_UPROBE_EXEC
 *   while ((r = mt_uprobe_wait(&u, -1, &mask)) == MT_UPROBE_TIMEOUT)
 *           ;                                until trigger, exit or signal
 *   mt_uprobe_finish(&u);                    last events; probes removed
 *   mt_uprobe_dump(&u, until, sink, arg);    the snapshot's events
 *   mt_uprobe_release(&u);
 *
 * Which events. Every perf event is a CPU's (pid -1), one per online CPU
 * for each probe, each return probe, and one dummy event for thread names,
 * thread and process starts and ends, and executable mappings; the events
 * of a CPU share one ring (PERF_EVENT_IOC_SET_OUTPUT). None is inherited:
 * the uprobe PMU reads the probe's path from the memory of whichever task
 * creates an inherited copy of the event, so with inherit=1 (perf record's
 * way for tracepoint probes) the target's fork() and pthread_create() fail
 * with EFAULT. A CPU's probe sees every thread from its first instruction;
 * the engine keeps the samples of the target and of the processes it
 * forks after attach (learned from PERF_RECORD_FORK), and drops the rest.
 * The price: every process that maps the probed file takes the probe's
 * trap too while recording (other instances of the program; every process
 * when the file is a shared library such as libc).
 *
 * Snapshot semantics. The kernel's rings (opts.mmap_bytes each, one per
 * online CPU) are read continuously, not used as overwrite rings: the
 * engine must see every event in order to track, per thread, how deeply
 * return probes nest (see MT_UPROBE_MAX_DEPTH), which an overwrite ring
 * would hide. Events are put in time order (those older than
 * opts.reorder_ms), then kept in the engine's own circular buffers, one
 * per CPU ring, of opts.ring_bytes each: MT_UPROBE_EVENT_BYTES per event,
 * the oldest overwritten first. The dump starts where every ring that
 * overwrote something still has its events (the newest of their oldest
 * kept events), so that a thread that moved between CPUs has no hole in
 * its history, and merges the rings in time order.
 *
 * Output. Each event of the snapshot goes to the sink as a struct
 * mt_uprobe_event: its thread, time, probe and where its ip is. Its text
 * (mt_uprobe_event_text()) is one line per event, exactly as perf 6.1's
 *
 *   perf script --ns -F comm,pid,tid,cpu,time,event,trace,ip,sym,symoff,dso
 *
 * prints uprobe samples of perf-probe events (mt-script-parse reads them):
 *
 *            outer 29271/29271 [001] 10570.153187305:          probe_outer:work: (558c0d5e51d9)     558c0d5e51d9 work+0x0 (/tmp/outer)
 *            outer 29271/29271 [001] 10570.153205883:  probe_outer:work__return: (558c0d5e51d9 <- 558c0d5e521a)     558c0d5e521a outer+0x8 (/tmp/outer)
 *
 * (comm right-aligned in 16 columns, "%5d/%-5d" pid/tid, the event name
 * right-aligned to the longest event name of the engine, time in
 * CLOCK_MONOTONIC seconds.) The trace text gives the function's address,
 * so that a return is matched to its call by address whatever the names.
 * Events are named as perf probe names them: group probe_BASE, BASE the
 * file's name up to its first '.' or '-'; event NAME, the symbol up to its
 * first '.' or '@' (other characters that are not letters, digits or '_'
 * become '_'), with a suffix _1, _2, ... when two probes of a group would
 * share a name; the return probe NAME__return. An entry's ip is the
 * function; a return's ip is the address returned to. Both are symbolized
 * from the process's mappings (kept from PERF_RECORD_MMAP2 events and
 * /proc/PID/maps) and the files' symbols, or those of their separate
 * debug files when they have no .symtab, as perf does: "SYM+0xOFF (DSO)",
 * "[unknown] (DSO)" or "[unknown] ([unknown])", SYM demangled as perf
 * prints it (common/demangle.h, MT_DEMANGLE_PERF: app::Server::lookup
 * for _ZN3app6Server6lookupEm, r::handle for _ZN1r6handle17h...E), so
 * that the uprobe and sample backends name a function alike. Event names
 * are made from the symbol as in the file (mangled).
 * comm is the thread's name at the event's time (PERF_RECORD_COMM,
 * inherited at thread creation, /proc), ":TID" when unknown.
 *
 * Lost events (the kernel ring was full: the engine did not read fast
 * enough) are dumped as perf prints a PERF_RECORD_LOST without a thread,
 *
 *              :-1    -1/-1    [001] 10539.889604574: PERF_RECORD_LOST lost 9051
 *
 * at the time of the last event read from that ring before the loss, so
 * that mt-script-parse makes an ERROR record of class lost that ends
 * every thread's open frames there (the engine cannot know which threads
 * lost events). Losses that no PERF_RECORD_LOST reported (nothing was
 * written after them) are counted with PERF_FORMAT_LOST at the end.
 *
 * Cost: opening an event takes about 1 ms; closing one (which removes its
 * probe) takes the kernel about 90 ms here, one at a time under a global
 * lock, so a recording of P functions with return probes on C CPUs takes
 * about 2 * P * C * 0.09 s to tear down; see opts.background_close.
 */
#ifndef MT_UPROBE_H
#define MT_UPROBE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mt_symfile;

/* Bytes of the engine's circular buffers per event. */
#define MT_UPROBE_EVENT_BYTES 40

/* The kernel's MAX_URETPROBE_DEPTH: return probes nested per thread. */
#define MT_UPROBE_MAX_DEPTH 64

/* Defaults: snapshot bytes per CPU ring, kernel ring bytes per CPU. */
#define MT_UPROBE_RING_DEFAULT (4u << 20)
#define MT_UPROBE_MMAP_DEFAULT (512u << 10)

/* mt_uprobe_dump()'s until for "everything". */
#define MT_UPROBE_ALL UINT64_MAX

struct mt_uprobe_hit;

struct mt_uprobe_opts {
	/* Snapshot size per CPU ring, in bytes (ring_bytes /
	 * MT_UPROBE_EVENT_BYTES events, at least 1); 0: the default. The
	 * memory is allocated as events arrive. */
	size_t ring_bytes;
	/* Kernel ring size per CPU, in bytes: rounded up to a power of two
	 * pages; 0: the default. Larger loses fewer events in bursts. */
	size_t mmap_bytes;
	/* How long an event may take to become visible in its ring after
	 * its timestamp, in milliseconds; events are put in time order once
	 * they are this old. 0: the default, 20. */
	unsigned reorder_ms;
	/* The kernel takes tens of milliseconds to remove each probe event
	 * (up to about 90 ms here), one at a time. With background_close,
	 * mt_uprobe_finish() hands the events to a short-lived detached
	 * process (a double fork, reaped here, that keeps no other
	 * descriptor: not the caller's output pipe) that closes them, and
	 * returns at once; the probes stay in place (and the processes that
	 * map the files pay for them) until it is done. Without it, finish
	 * closes them itself. */
	int background_close;
	/* Every call of the TRIGGER probe is a hit, not only the first:
	 * hits are queued (MT_UPROBE_HIT_QUEUE at most; later ones are
	 * dropped, MT_UPROBE_W_HITS) for mt_uprobe_next_hit(), and the
	 * events after a hit are kept. */
	int every_hit;
	/* The TRIGGER probe's call is a hit only at its return, when it took
	 * that long at least (ns: wall time from the call to the return,
	 * on its thread); the probe needs RETURN too. 0: at its call. */
	uint64_t slower_ns;
	/* NULL, or what decides whether a call (its return with slower_ns)
	 * of the TRIGGER probe is a hit: hit_filter(hit_filter_arg, h), h
	 * filled (it may set h->dur), 1 for a hit; 0 and it is none (not
	 * queued: a trigger called often drops none of its hits). */
	int (*hit_filter)(void *arg, struct mt_uprobe_hit *h);
	void *hit_filter_arg;
	/* How a file's symbols are read (the files probed, and those the
	 * processes map, for the dump's symbols): NULL, the engine opens
	 * source (a /proc link it has for the file: deleted, or given to
	 * mt_uprobe_add()), else path, with mt_open_regular() in its own
	 * root, and reads it with mt_symfile_read(); else symbols(
	 * symbols_arg, f, path, source) fills f (empty) and returns 0 or an
	 * MT_E* code (errno kept for MT_ENOENT and MT_EIO): mt-record's
	 * opens the target's files as it sees them (target-open.h). */
	int (*symbols)(void *symbols_arg, struct mt_symfile *f, const char *path,
		       const char *source);
	void *symbols_arg;
};

/* The hits opts.every_hit queues until mt_uprobe_next_hit() takes them. */
#define MT_UPROBE_HIT_QUEUE 64

/*
 * mt_uprobe_add() flags. The trigger is the first call of the TRIGGER
 * probe by the target, found when the engine takes events in time order:
 * mt_uprobe_wait() reports it about opts.reorder_ms after it happened.
 * From then on later events are dropped, so that the snapshot is what
 * came before it, like magic-trace's snapshot on a trigger.
 */
enum {
	MT_UPROBE_ENTRY = 1,   /* record calls of the function */
	MT_UPROBE_RETURN = 2,  /* record its returns (a uretprobe) */
	MT_UPROBE_TRIGGER = 4  /* its first call is the trigger (needs ENTRY) */
};

/* mt_uprobe_attach() modes */
enum {
	MT_UPROBE_PROCESS = 1, /* a running process */
	MT_UPROBE_EXEC = 2     /* a child held before execve() */
};

/* mt_uprobe_wait() results (errors are negative) */
enum {
	MT_UPROBE_TIMEOUT = 0,  /* the time ran out */
	MT_UPROBE_TRIGGERED = 1,/* the trigger probe fired: mt_uprobe_trigger() */
	MT_UPROBE_EXITED = 2,   /* the target process ended */
	MT_UPROBE_SIGNAL = 3    /* a signal handler ran (poll's EINTR) */
};

/* mt_uprobe_warnings() bits: things the caller should tell the user. */
enum {
	/* Return probes were not placed in a Go program (goroutine stacks
	 * move, so a uretprobe's hijacked return address crashes it): only
	 * calls are recorded there. */
	MT_UPROBE_W_GO = 1,
	/* Calls nested deeper than MT_UPROBE_MAX_DEPTH return probes were
	 * left out (the kernel reports no return for them). */
	MT_UPROBE_W_DEEP = 2,
	/* Events were lost: the kernel ring was full. */
	MT_UPROBE_W_LOST = 4,
	/* Events became visible later than opts.reorder_ms after their time
	 * and were taken out of order. */
	MT_UPROBE_W_LATE = 8,
	/* opts.every_hit: trigger hits came faster than they were taken;
	 * those beyond MT_UPROBE_HIT_QUEUE were dropped. */
	MT_UPROBE_W_HITS = 16,
	/* Functions whose return address must not be replaced (the entry
	 * point, a signal return, setjmp, vfork: common/unhookable.h) got
	 * no return probe: only their calls are recorded. */
	MT_UPROBE_W_UNHOOKABLE = 32
};

/* Where and when the trigger fired. */
struct mt_uprobe_hit {
	uint64_t time;   /* CLOCK_MONOTONIC nanoseconds */
	uint32_t pid, tid;
	uint32_t cpu;
	int has_args;    /* rdi, rsi read at the call (x86-64): a stop
			  * indicator's arguments */
	uint64_t rdi, rsi;
	uint64_t dur;    /* opts.slower_ns: how long the call took (time
			  * is its return's) */
};

struct mt_uprobe_stats {
	uint64_t events;      /* entry and return events recorded */
	uint64_t kept;        /* of which the snapshot holds */
	uint64_t overwritten; /* of which the snapshot overwrote */
	uint64_t lost;        /* events the kernel lost (ring full) */
	uint64_t deep;        /* calls left out beyond the nesting limit */
	uint64_t late;        /* events taken out of time order */
	uint64_t after_trigger; /* events after the trigger, dropped */
	uint64_t hits_dropped;  /* opts.every_hit: hits beyond the queue */
	uint64_t foreign;     /* events of other processes, dropped */
	uint64_t threads;     /* threads seen */
	uint64_t entry_only;  /* functions probed without the return asked
			       * (MT_UPROBE_W_GO, MT_UPROBE_W_UNHOOKABLE) */
	size_t probes;        /* functions probed */
	size_t perf_events;   /* perf events opened (fds) */
	size_t rings;         /* CPU rings */
};

struct mt_uprobe_file;
struct mt_uprobe_probe;
struct mt_uprobe_pev;
struct mt_uprobe_ring;
struct mt_uprobe_staged;
struct mt_uprobe_thread;
struct mt_uprobe_proc;

/* Treat as opaque except `what`. */
struct mt_uprobe {
	char what[320];           /* the operation that failed last */

	struct mt_uprobe_opts opts;
	int pmu_type;             /* the uprobe PMU's perf type */
	int retprobe_bit;         /* config bit of format/retprobe */
	int no_format_lost;       /* the kernel lacks PERF_FORMAT_LOST */
	int state;                /* 0 adding, 1 attached, 2 finished */
	unsigned warnings;

	struct mt_uprobe_file *files;
	size_t nfiles, capfiles;
	struct mt_uprobe_probe *probes;
	size_t nprobes, capprobes;
	int trigger_probe;        /* probe index, or -1 */
	int name_width;           /* longest event name */

	struct mt_uprobe_pev *pevs;   /* perf events, sorted by id */
	size_t npevs, cappevs;
	struct mt_uprobe_ring *rings;
	size_t nrings;
	size_t page_size;

	size_t attach_files;      /* files known at a MT_UPROBE_PROCESS attach
				   * (0 in MT_UPROBE_EXEC mode) */
	size_t late_file;         /* index + 1 of the first mapped since, or 0 */

	pid_t pid;                /* the target */
	uint32_t *pids;           /* its processes (the target, children) */
	size_t npids, cappids;
	uint32_t exec_pending;    /* MT_UPROBE_EXEC's child, until execve */
	int pidfd;                /* -1 if pidfd_open is missing */
	int exited;

	struct mt_uprobe_staged *staged;  /* read, not yet in time order */
	size_t nstaged, capstaged;
	uint64_t seq;
	uint64_t done_time;       /* events up to here are processed */

	struct mt_uprobe_thread *threads;
	size_t nthreads, capthreads;
	uint32_t *thash;          /* tid hash: index + 1 into threads */
	size_t thash_cap;
	struct mt_uprobe_proc *procs;
	size_t nprocs, capprocs;

	int triggered;
	struct mt_uprobe_hit hit;
	struct mt_uprobe_hit hitq[MT_UPROBE_HIT_QUEUE]; /* opts.every_hit */
	unsigned hitq_start, hitq_len;
	struct mt_uprobe_stats st;
};

/* Whether this kernel has the uprobe PMU (1) or not (0). */
int mt_uprobe_supported(void);

/*
 * Start an engine with opts (NULL: all defaults); u need not be
 * initialized. Returns 0, or
 *   MT_EIO     the uprobe PMU is missing (errno ENOENT) or its sysfs files
 *              could not be read
 *   MT_EINVAL  an option is out of range (ring_bytes below one event,
 *              mmap_bytes above 1 GiB)
 * On error u holds nothing (mt_uprobe_release() is allowed, not needed)
 * but u->what.
 */
int mt_uprobe_init(struct mt_uprobe *u, const struct mt_uprobe_opts *opts);

/* Close and free everything; u is then like after a failed init. Safe on
 * a zeroed or released engine. Probes still placed are removed. */
void mt_uprobe_release(struct mt_uprobe *u);

/*
 * Probe the function `name` at file address addr (the symbol's st_value,
 * as mt_symtab gives it) of the ELF file path, with flags (ENTRY, RETURN,
 * TRIGGER). The file is read once per path (its PT_LOAD segments map addr
 * to the file offset the kernel wants). path may be a /proc/PID/exe or
 * /proc/PID/map_files/START-END link, to a file deleted since it was
 * mapped (or replaced by a rename, as a package upgrade does) or one of
 * a process in another mount namespace: the file is then named as the
 * mappings name it (the link's text: "PATH (deleted)" for a deleted one,
 * the probes' group after PATH's base name), and opened and probed
 * through the link, which reaches the mapped inode. Deleted files that
 * the process maps are also read through /proc/PID/map_files at attach,
 * for symbols. Only regular files are read (opts.symbols). In a Go program (a .gopclntab,
 * .go.buildinfo or .note.go.buildid section, or a runtime.main symbol)
 * RETURN is dropped and MT_UPROBE_W_GO set; so it is for a function whose
 * return address must not be replaced (common/unhookable.h: the file's
 * entry point, a signal return, setjmp, vfork, ...), with
 * MT_UPROBE_W_UNHOOKABLE (mt_uprobe_each_entry_only() lists both). Only
 * before attach. Returns the probe's index (0, 1, ...; nothing placed:
 * the next index), or
 *   MT_EINVAL  after attach, no ENTRY/RETURN flag, TRIGGER without ENTRY
 *              or on a second probe, an empty name
 *   MT_EIO     the file could not be opened or read (errno)
 *   MT_ENOTREG, MT_EFBIG  not a regular file, too large (regfile.h)
 *   MT_EMAGIC  not an ELF file
 *   MT_ECORRUPT  a malformed ELF file
 *   MT_ERANGE  addr is in no loadable segment of the file
 *   MT_ENOMEM
 * A probe is checked by the kernel only at attach.
 */
int mt_uprobe_add(struct mt_uprobe *u, const char *path, const char *name,
		  uint64_t addr, unsigned flags);

/*
 * Place the probes and start recording process pid and the processes it
 * forks from now on. mode MT_UPROBE_PROCESS: a running process, all of
 * whose threads are recorded, those there now and those it starts later;
 * its mappings and thread names are read from /proc. MT_UPROBE_EXEC: a
 * child the caller forked and holds before execve(); recording is on
 * when this returns, so release it then (its events before its execve
 * are dropped: the caller's code). Calls under way at attach give return
 * events without their calls. Raises RLIMIT_NOFILE to its hard
 * limit when the events need more descriptors. Once only (even after a
 * failure), after at least one add. Returns 0, or
 *   MT_EINVAL  no probes, called twice, a bad mode or pid
 *   MT_ENOENT  no such process
 *   MT_EIO     perf_event_open, the ring mmap or an ioctl failed (errno:
 *              EACCES/EPERM without CAP_SYS_ADMIN, ENOENT for a probed
 *              file gone, EMFILE, ENOMEM, ...; u->what says which probe
 *              and CPU), or /proc could not be read
 *   MT_ENOMEM
 * On error every event opened is closed again (no probe is left).
 */
int mt_uprobe_attach(struct mt_uprobe *u, pid_t pid, int mode);

/*
 * Read the rings until something happens, at most timeout_ms
 * milliseconds (negative: no limit; 0: read once). While waiting, the
 * signal mask is sigmask (NULL: unchanged), applied atomically as by
 * ppoll(2): block the signals you handle, pass the mask without them,
 * and none is missed. Returns
 *   MT_UPROBE_TRIGGERED  the trigger fired (now or earlier):
 *                        mt_uprobe_trigger() tells where; events after
 *                        it are no longer kept (opts.every_hit: a hit
 *                        is queued, mt_uprobe_next_hit() takes it)
 *   MT_UPROBE_EXITED     the target process has ended (its events are
 *                        all taken; processes it forked are not waited
 *                        for)
 *   MT_UPROBE_SIGNAL     a signal handler ran
 *   MT_UPROBE_TIMEOUT    nothing of the above in time
 * or MT_EINVAL (not attached), MT_ENOMEM, MT_EIO (poll failed). After
 * mt_uprobe_finish() it returns MT_UPROBE_TRIGGERED if the trigger fired
 * (opts.every_hit: while a hit is queued), else MT_UPROBE_EXITED.
 */
int mt_uprobe_wait(struct mt_uprobe *u, int timeout_ms,
		   const sigset_t *sigmask);

/* 1 and *hit filled if the trigger has fired, else 0. */
int mt_uprobe_trigger(const struct mt_uprobe *u, struct mt_uprobe_hit *hit);

/* opts.every_hit: 1 and *hit set to the oldest queued hit, which is
 * taken off the queue; 0 when none is queued. */
int mt_uprobe_next_hit(struct mt_uprobe *u, struct mt_uprobe_hit *hit);

/*
 * Stop recording: read what is left in the rings, then close every perf
 * event, which removes the probes from the target (it goes on running,
 * unprobed). The snapshot stays for mt_uprobe_dump(). Idempotent; before
 * attach it does nothing. Returns 0, MT_ENOMEM.
 */
int mt_uprobe_finish(struct mt_uprobe *u);

/* An event of the snapshot, as a dump gives it to its sink; its strings
 * are the engine's, valid until mt_uprobe_release(). */
enum mt_uprobe_event_kind {
	MT_UPROBE_EV_ENTRY,     /* a call of a probed function */
	MT_UPROBE_EV_RETURN,    /* its return */
	MT_UPROBE_EV_LOST       /* events the kernel's ring lost (no thread's) */
};
struct mt_uprobe_event {
	enum mt_uprobe_event_kind kind;
	uint64_t time;          /* CLOCK_MONOTONIC ns */
	uint32_t pid, tid;      /* lost: UINT32_MAX (perf's -1) */
	int cpu;                /* the CPU whose ring had it */
	const char *comm;       /* the thread's name then; NULL: unknown, lost */
	const char *event;      /* the probe's event, as perf names it:
				 * "probe_outer:work", "probe_outer:work__return" */
	const char *func;       /* the function as its event names it: "work" */
	uint64_t func_addr;     /* its address (a return's: 0 when unknown) */
	uint64_t ip;            /* entry: the function; return: the address
				 * returned to */
	const char *sym;        /* the symbol ip is in, demangled as perf
				 * prints it; NULL: unknown */
	uint64_t off;           /* ip's offset in it */
	const char *dso;        /* the file ip is in; NULL: unknown */
	uint64_t lost;          /* lost: how many */
};

/* A dump's sink: 0 to go on, or a negative MT_E* code to stop the dump,
 * which the dump then returns. */
typedef int (*mt_uprobe_sink)(void *arg, const struct mt_uprobe_event *e);

/*
 * Give the snapshot to sink (finishing first if needed): the kept events
 * up to time until (inclusive; MT_UPROBE_ALL for all, the trigger's time
 * to end there), in time order, symbolized (see the top of this file).
 * May be called again. Returns the number of events, or the sink's error,
 * MT_ENOMEM. ELF files are read for symbols as needed; an unreadable one
 * gives unknown symbols.
 */
int mt_uprobe_dump(struct mt_uprobe *u, uint64_t until, mt_uprobe_sink sink,
		   void *arg);

struct mt_buf;

/* e's line as perf script prints it ("Output" above), with its newline,
 * appended to b: 0 or MT_ENOMEM. */
int mt_uprobe_event_text(const struct mt_uprobe *u, const struct mt_uprobe_event *e,
			 struct mt_buf *b);

/*
 * The first file that one of the target's processes mapped executable
 * after an MT_UPROBE_PROCESS attach and that was not mapped then (a
 * library it dlopen()ed, a program a child exec()ed), as the mappings
 * name it: its functions could not be probed. NULL when none so far, and
 * always after an MT_UPROBE_EXEC attach (every mapping comes after it).
 */
const char *mt_uprobe_late_file(const struct mt_uprobe *u);

/*
 * The snapshot as it stands, while recording (attached) or after finish:
 * the kept events later than after (0: all) and up to until, given to
 * sink as mt_uprobe_dump() does. While attached, the recording goes on: the rings
 * are first read until every event up to until (a CLOCK_MONOTONIC time in
 * the past, as a trigger hit's) is taken in time order, which may wait
 * opts.reorder_ms; no event is read while the sink works (a long
 * snapshot may make the kernel rings lose events: MT_UPROBE_W_LOST).
 * Returns the number of events, or the sink's error, MT_ENOMEM, MT_EIO.
 */
int mt_uprobe_snapshot(struct mt_uprobe *u, uint64_t after, uint64_t until,
		       mt_uprobe_sink sink, void *arg);

/* f(arg, name) for each function probed without the return probe asked
 * (MT_UPROBE_W_GO, MT_UPROBE_W_UNHOOKABLE), in the order added: its name
 * as the events' symbols give it (demangled as perf prints it), so that
 * its calls are made instants rather than frames that never end. */
void mt_uprobe_each_entry_only(const struct mt_uprobe *u,
			       void (*f)(void *arg, const char *name), void *arg);

/* MT_UPROBE_W_* bits of what happened so far. */
unsigned mt_uprobe_warnings(const struct mt_uprobe *u);

/* One sentence for a single MT_UPROBE_W_* bit (static, never NULL). */
const char *mt_uprobe_warning_text(unsigned bit);

/* Counters so far. */
void mt_uprobe_stats(const struct mt_uprobe *u, struct mt_uprobe_stats *st);

#endif
