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
};

/*
 * Arms tr on tgt->pid: breakpoints at its address in the process now
 * (through its file's load bias), or a trigger uprobe attached in mode
 * (MT_UPROBE_EXEC or MT_UPROBE_PROCESS); warns "trigger armed". every:
 * it stays armed and trigger_wait() reports every hit, one at a time in
 * time order (--repeat); otherwise the first only. Dies (system, data)
 * when it cannot.
 */
void arm_trigger(struct trigger_run *tg, const struct trig *tr, const struct target *tgt,
		 int mode, int every);

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

/* Disarms the armed trigger tg and frees what it holds. */
void trigger_run_release(struct trigger_run *tg);

#endif
