/*
 * What the files of the uprobe engine share (the contract is uprobe.h):
 * its records, the structures behind struct mt_uprobe's pointers, and the
 * functions one file gives the others. Everything hangs off the engine's
 * struct mt_uprobe, passed to each function; no file keeps state of its
 * own that another reads.
 *
 *   uprobe.c        the public lifecycle: init, attach, wait, finish,
 *                   release, warnings, stats; small helpers
 *   uprobe-files.c  the ELF files and mt_uprobe_add(): file offsets,
 *                   Go programs, perf probe's event names, symbols
 *   uprobe-procs.c  threads (names, open calls) and processes (the
 *                   target's, their mappings), from /proc and side events
 *   uprobe-open.c   placing the probes: perf_event_open of the uprobe PMU,
 *                   the rings' mmap, enabling, closing (in the background)
 *   uprobe-ring.c   reading the rings, taking events in time order (call
 *                   nesting, the trigger), the snapshot rings
 *   uprobe-dump.c   mt_uprobe_dump(): the snapshot's events in time order
 *   uprobe-text.c   mt_uprobe_event_text(): an event as perf script's line
 *
 * Not for other code: only uprobe*.c include it.
 */
#ifndef MT_UPROBE_INTERNAL_H
#define MT_UPROBE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "procsyms.h"
#include "uprobe.h"

#define NONE32 UINT32_MAX

enum { K_ENTRY = 1, K_RETURN, K_LOST, K_EXIT, K_FORK, K_COMM, K_MMAP };
enum { PEV_ENTRY = 1, PEV_RETURN, PEV_SIDE };
enum { ST_ADDING, ST_ATTACHED, ST_FINISHED };

/* An event as the snapshot keeps it: MT_UPROBE_EVENT_BYTES. */
struct ev {
	uint64_t time;
	uint64_t ip;     /* entry: the function; return: the return address */
	uint64_t aux;    /* return: the function (0: unknown); lost: count */
	uint32_t pid, tid;
	uint32_t probe;
	uint16_t ring;
	uint8_t kind;
	uint8_t pad;
};
_Static_assert(sizeof(struct ev) == MT_UPROBE_EVENT_BYTES, "event size");

struct symcache;

struct mt_uprobe_file {
	char *path;      /* as the mappings name it */
	char *source;    /* what opens it, when path does not: a /proc link */
	int loaded;      /* 0 not tried, 1 read, -1 unreadable */
	int go;          /* a Go program */
	struct mt_symfile sym;  /* its symbols, with its debug file's */
	struct symcache *cache;
	char **shown;    /* the names printed, by index in sym.t, demangled
			  * as perf prints them once needed: NULL not yet,
			  * the symbol's own name when not mangled, else
			  * malloced (uprobe_file_name()) */
};

struct mt_uprobe_probe {
	uint32_t file;
	unsigned flags;
	uint64_t addr, offset;
	char *sym;
	char *shown;     /* sym demangled as perf prints it, or NULL */
	char *event;     /* "probe_outer:work" */
	char *ret_event; /* "probe_outer:work__return", or NULL */
	int no_return;   /* RETURN asked but not placed (Go, unhookable.h) */
};

struct mt_uprobe_pev {
	uint64_t id;
	int fd;
	uint32_t probe;
	uint32_t ring;
	int kind;
};

struct mt_uprobe_ring {
	int cpu;
	int fd;          /* the mmapped event (one of pevs) */
	void *base;
	size_t map_len, data_size;
	uint64_t last_time;
	uint64_t lost_reported; /* by PERF_RECORD_LOST */
	uint64_t lost_counted;  /* by the events (PERF_FORMAT_LOST) */
	unsigned char *tmp; /* a record that wraps around the ring's end */
	size_t tmpcap;
	struct ev *v;    /* the snapshot: circular once len == cap */
	size_t cap, alloc, len, start;
	uint64_t overwritten;
};

/* A record read, waiting to be taken in time order. Besides samples and
 * losses: K_COMM (str the name, ev.pad 1 for exec), K_MMAP (ev.ip start,
 * ev.aux length, x pgoff, str the path), K_FORK and K_EXIT (ev.pid, ev.tid;
 * for K_FORK x the parent's pid << 32 | tid). */
struct mt_uprobe_staged {
	struct ev ev;
	uint64_t seq;
	uint64_t x;
	char *str;
	int has_args;         /* the trigger's call: its rdi and rsi */
	uint64_t rdi, rsi;
};

struct comm {
	uint64_t time;
	char name[16];
};

struct frame {
	uint32_t probe;
	uint64_t ip;
	uint64_t time;   /* its call's */
};

struct mt_uprobe_thread {
	uint32_t tid, pid;
	uint32_t depth;
	int proc_tried;
	struct frame stack[MT_UPROBE_MAX_DEPTH];
	struct comm *comm;
	size_t ncomm, capcomm;
};

struct map {
	uint64_t start, end, pgoff;
	uint64_t from, to; /* valid for from <= time < to */
	uint32_t file;
};

struct mt_uprobe_proc {
	uint32_t pid;
	struct map *maps;
	size_t n, cap;
};

/* ---- uprobe.c: small helpers ---- */

struct mt_buf;

/* Say in u->what which operation failed (errno is kept). */
void uprobe_what(struct mt_uprobe *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* CLOCK_MONOTONIC nanoseconds. */
uint64_t uprobe_now_ns(void);

/* The first line of a small file, without its newline: 0, MT_EIO. */
int uprobe_read_line(const char *path, char *out, size_t size);

/* printf to the end of b: 0, MT_ENOMEM, MT_EINVAL. */
int uprobe_appendf(struct mt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- uprobe-files.c: the files, mt_uprobe_add() ---- */

/* The index of the file named path[0, len) in u->files, added (not read)
 * if new: 0, MT_ENOMEM. */
int uprobe_file_index(struct mt_uprobe *u, const char *path, size_t len,
		      uint32_t *idx);

/* What opens a file (and what the kernel is given to probe it). */
const char *uprobe_file_source(const struct mt_uprobe_file *f);

/* Whether the kernel's name of a mapped file says it was deleted. */
int uprobe_is_deleted(const char *name, size_t len);

/* Read a file's symbols and segments once; 0, or the error (also kept as
 * loaded = -1). */
int uprobe_file_load(struct mt_uprobe *u, uint32_t idx);

/* The symbol at file address vaddr of a loaded file (cached), or NULL. */
/* The name printed for s, a symbol of f's table: demangled as perf
 * prints it (demangle.h), kept; 0, or MT_ENOMEM. */
int uprobe_file_name(struct mt_uprobe_file *f, const struct mt_sym *s,
		     const char **name);

/* Frees what a file holds. */
void uprobe_file_release(struct mt_uprobe_file *f);

const struct mt_sym *uprobe_file_lookup(struct mt_uprobe_file *f,
					uint64_t vaddr);

/* ---- uprobe-procs.c: threads and processes ---- */

/* The thread tid, or NULL when unknown. */
struct mt_uprobe_thread *uprobe_thread_find(struct mt_uprobe *u, uint32_t tid);

/* The thread tid, created if new (its pid set unless NONE32); NULL when
 * memory runs out. */
struct mt_uprobe_thread *uprobe_thread_get(struct mt_uprobe *u, uint32_t tid,
					   uint32_t pid);

/* The thread's name at time: the last given at or before it, else the
 * first; NULL when it has none. */
const char *uprobe_comm_at(const struct mt_uprobe_thread *t, uint64_t time);

/* The thread's name from /proc, once, for threads whose name no event
 * gave: 0, MT_ENOMEM. */
int uprobe_comm_from_proc(struct mt_uprobe *u, struct mt_uprobe_thread *t);

/* The mapping of process pid holding ip at time, or NULL. */
const struct map *uprobe_map_find(struct mt_uprobe *u, uint32_t pid,
				  uint64_t ip, uint64_t time);

/* Where the probed function of a return is in process pid, when its call
 * was not seen; 0 when unknown. */
uint64_t uprobe_probe_addr(struct mt_uprobe *u, uint32_t pid,
			   const struct mt_uprobe_probe *p, uint64_t time);

/* The executable mappings of a running process, from /proc/PID/maps (the
 * deleted files among them opened now, through /proc/PID/map_files): 0,
 * MT_ENOENT or MT_EIO (u->what says which file), MT_ENOMEM. */
int uprobe_read_proc_maps(struct mt_uprobe *u, pid_t pid);

/* The names of the threads of a running process, from /proc: 0,
 * MT_ENOENT, MT_EIO, MT_ENOMEM. */
int uprobe_read_proc_threads(struct mt_uprobe *u, pid_t pid);

/* Whether pid is one of the target's processes. */
int uprobe_traced(const struct mt_uprobe *u, uint32_t pid);

/* Make pid one of the target's processes: 0, MT_ENOMEM. */
int uprobe_trace_pid(struct mt_uprobe *u, uint32_t pid);

/* A side event (K_FORK, K_EXIT, K_COMM, K_MMAP) taken in time order:
 * thread and process starts and ends, names, mappings, of the target's
 * processes only. 0, MT_ENOMEM. */
int uprobe_side_event(struct mt_uprobe *u, const struct mt_uprobe_staged *s);

/* ---- uprobe-open.c: the perf events ---- */

/* u->rings: one per online CPU, not mapped yet (its first event maps
 * it). 0, MT_ENOMEM, or mt_online_cpus()'s error. */
int uprobe_rings_init(struct mt_uprobe *u);

/* Open the events, disabled, on every ring's CPU: its dummy event for the
 * side events, then an event per probe and per return probe, into
 * u->pevs sorted by id. 0, MT_EIO (u->what says which), MT_ENOMEM; the
 * events opened so far are kept (uprobe_close_events() closes them). */
int uprobe_open_events(struct mt_uprobe *u);

/* Enable the events of a kind (PEV_*): 0, MT_EIO. */
int uprobe_enable(struct mt_uprobe *u, int kind);

/* Close the events in a detached process (opts.background_close),
 * without waiting for it: uprobe_close_events() then only drops the
 * engine's references. Without memory or a fork it does nothing. */
void uprobe_close_in_background(struct mt_uprobe *u);

/* Unmap the rings and close every event, which removes the probes
 * (unless another process holds them). */
void uprobe_close_events(struct mt_uprobe *u);

/* ---- uprobe-ring.c: reading the rings ---- */

/* Read every ring; then take the events older than the reorder window
 * (all of them when final) in time order, into the snapshot. 0,
 * MT_ENOMEM. */
int uprobe_drain(struct mt_uprobe *u, int final);

/* Losses at the end of a ring, which no PERF_RECORD_LOST reported (each
 * probe event counts its own lost samples): into the snapshot as lost
 * events, unless after the trigger. 0, MT_ENOMEM. */
int uprobe_unreported_losses(struct mt_uprobe *u);

#endif
