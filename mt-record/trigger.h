/*
 * mt-record's trigger (--trigger): resolving the selection to a function
 * of a file the target maps, and arming what stops the recording when
 * the target reaches it: hardware execute breakpoints (hwbp.h) where they
 * fire, else a uprobe (uprobe.h), chosen by choose_trigger_via()
 * (--trigger-via). Two structs, owned by their caller, each with its
 * release: struct trig, the trigger resolved (resolve_trigger()), whose
 * name and path trigger_resolved_release() frees; struct trigger_run, the
 * trigger armed (arm_trigger()), which trigger_run_release() disarms and
 * frees. Every failure dies through die.h with mt-record's messages and
 * exit codes.
 */
#ifndef MT_RECORD_TRIGGER_H
#define MT_RECORD_TRIGGER_H

#include <signal.h>
#include <stdint.h>

#include "hwbp.h"
#include "opts.h"
#include "target.h"
#include "uprobe.h"

/* The names of enum via, for --trigger-via. */
extern const char *const via_names[];

struct trig {
	const char *sel;      /* --trigger as given (messages name it) */
	char *path;           /* its file: the target's exe (not owned) or
			       * a library's (malloced) */
	char *name;           /* what to call it in messages: malloced */
	uint64_t addr;        /* file address */
	int in_lib;           /* a command's: looked up in its libraries once
			       * they are loaded (resolve_in_libraries()) */
	int use_bp;           /* a hardware breakpoint, not a uprobe */
	const char *via_note; /* why not a breakpoint, for the armed line */
};

/*
 * Hardware breakpoints where they fire (magic-trace's way: no privilege,
 * the program's code untouched), otherwise a uprobe: sets tr->use_bp, or
 * tr->via_note to why not. via VIA_UPROBE: a uprobe; VIA_BREAKPOINT: a
 * breakpoint, warned when they do not fire here, and dies (system) when
 * none can be made.
 */
void choose_trigger_via(struct trig *tr, enum via via);

/*
 * Resolves tr->sel in tgt (its exe, pid or child set): a function by any
 * of its names (demangle.h: mt_demangle_is(); a perf name that overloads
 * share dies, usage, listing them) of the executable, then of the libraries the
 * process maps (not a command's: those come later, tr->in_lib, when it
 * calls the function through its PLT); a source line FILE:LINE[:COL]
 * (when FILE exists or is a source file's name, NAME.EXT); an
 * address (a file address, as mt-symbols lists it); '.' (the stop
 * indicator); '?' (fzf through mt-symbols --pick). The prefixes symbol:,
 * line: and addr: force one kind, as in magic-trace. Sets tr's path,
 * name (demangled with its parameters) and addr; dies (usage, data) naming the selection when nothing
 * matches.
 */
void resolve_trigger(struct trig *tr, const struct target *tgt);

/* Whether tr is a stop indicator, magic_trace_stop_indicator (--trigger
 * .): its arguments (rdi, rsi) are magic-trace's region, an OCaml int
 * each: the time it began (the TSC) and a value of the program's. */
int trigger_is_stop_indicator(const struct trig *tr);

/* --slower-than slower_ns (0: none) on tr, resolved: a uprobe times a
 * function's calls (tr->use_bp cleared, said in its armed line; dies,
 * usage, with --trigger-via breakpoint, system without uprobes); a stop
 * indicator's regions need no more than its call. */
void trigger_timed(struct trig *tr, enum via via, uint64_t slower_ns);

/* "trigger ... hit by PID/TID at TIME", with --slower-than (slower_ns
 * not 0) how long the call (a stop indicator's region) took, dur ns. */
void trigger_say_hit(const struct trig *tr, uint32_t pid, uint32_t tid, uint64_t when,
		     uint64_t slower_ns, uint64_t dur);

/* A command's trigger (tr->in_lib) in its libraries, now that they are
 * mapped; when none has it, kills the command and dies (data). */
void resolve_in_libraries(struct trig *tr, struct target *tgt);

/* Frees what the resolved trigger tr holds: its name and path (unless
 * the path is tgt->exe). */
void trigger_resolved_release(struct trig *tr, const struct target *tgt);

/* The armed trigger: a uprobe, or hardware breakpoints. */
struct trigger_run {
	struct mt_uprobe tu;
	struct mt_hwbp bp;
	int use_bp;     /* bp, not tu: tr->use_bp when armed */
	int every;      /* every hit, not only the first */
	int tsc_ok;     /* an invariant TSC: (tsc_a, mono_a) read when armed */
	uint64_t tsc_a, mono_a;
	uint64_t slower_ns;  /* --slower-than: a hit's dur says how long */
	int region_slower;   /* ... on a stop indicator: its region's */
};

/*
 * Arms tr on tgt->pid: breakpoints at its address in the process now
 * (through its file's load bias), or a trigger uprobe attached in mode
 * (MT_UPROBE_EXEC or MT_UPROBE_PROCESS); warns "trigger armed". every:
 * it stays armed and trigger_wait() reports every hit, one at a time in
 * time order (--repeat); otherwise the first only. slower_ns
 * (--slower-than; 0: none): a call is a hit only when it took that long,
 * at its return (a uprobe and its return probe: tr must not be a
 * breakpoint's) with hit.dur its length; on a stop indicator, at its
 * call when the region its arguments give took that long (hit.dur the
 * region's). Dies (system, data) when it cannot.
 */
void arm_trigger(struct trigger_run *tg, const struct trig *tr, const struct target *tgt,
		 int mode, int every, uint64_t slower_ns);

/* Waits up to timeout_ms (signals in mask let it return early) for the
 * trigger: 1 with *hit set when it fired (every: the next hit not yet
 * reported), else 0. */
int trigger_wait(struct trigger_run *tg, int timeout_ms, const sigset_t *mask,
		 struct mt_uprobe_hit *hit);

/* After the recording: whether the trigger fired just before it ended
 * (1, *hit set; every: the next hit not yet reported, one a call). */
int trigger_finish(struct trigger_run *tg, const sigset_t *mask, struct mt_uprobe_hit *hit);

/* Hits that came too fast to be reported (every, a uprobe's queue full):
 * the count so far. */
unsigned trigger_dropped(const struct trigger_run *tg);

/*
 * A stop indicator's region (trigger_is_stop_indicator()) from hit h's
 * arguments, OCaml ints: *start the time the first passed (a TSC) as
 * CLOCK_MONOTONIC ns, MT_NONE64 when none (0), after the hit or without
 * an invariant TSC; *arg the second. 1, or 0 when h has no arguments
 * (the kernel gave no registers) or the first is no OCaml int (even: a C
 * program's own indicator, called without them).
 */
int trigger_region(const struct trigger_run *tg, const struct mt_uprobe_hit *h, uint64_t *start,
		   int64_t *arg);

/* When tr is a stop indicator and hit h has its arguments: mk's region,
 * after its trigger's MARK (mk->has_region set). */
struct mark_line;
void trigger_hit_region(const struct trig *tr, const struct trigger_run *tg,
			const struct mt_uprobe_hit *h, struct mark_line *mk);

/* Disarms the armed trigger tg and frees what it holds. */
void trigger_run_release(struct trigger_run *tg);

#endif
