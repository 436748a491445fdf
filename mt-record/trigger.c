/*
 * mt-record's trigger (--trigger): which function, line or address it
 * is, and how it stops the recording: hardware execute breakpoints where
 * they fire, else a uprobe (--trigger-via). See trigger.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "demangle.h"
#include "die.h"
#include "dwline.h"
#include "err.h"
#include "functions.h"
#include "perf.h"
#include "proc.h"
#include "procsyms.h"
#include "spawn.h"
#include "symtab.h"
#include "trigger.h"
#include "xalloc.h"
#include "streamout.h"
#include "tsc.h"
#include "banned.h"

#define STOP_INDICATOR "magic_trace_stop_indicator"

const char *const via_names[] = { "auto", "breakpoint", "uprobe" };

void trigger_resolved_release(struct trig *tr, const struct target *tgt)
{
	free(tr->name);
	if (tr->path != tgt->exe)
		free(tr->path);
	tr->name = tr->path = NULL;
}

/* Parses FILE:LINE or FILE:LINE:COL: the file name malloced in *file. */
static int split_line_sel(const char *sel, char **file, long *line, long *col)
{
	const char *c1 = strrchr(sel, ':'), *c0;
	char *end;

	*file = NULL;
	*col = 0;
	if (!c1 || c1 == sel)
		return MT_ESYNTAX;
	errno = 0;
	*line = strtol(c1 + 1, &end, 10);
	if (*end || errno || *line <= 0 || *line > INT_MAX || end == c1 + 1)
		return MT_ESYNTAX;
	/* FILE:LINE:COL: the number before the last one is the line */
	for (c0 = c1 - 1; c0 > sel && *c0 >= '0' && *c0 <= '9'; c0--)
		;
	if (c0 > sel && *c0 == ':' && c0 + 1 < c1) {
		*col = *line;
		*line = strtol(c0 + 1, NULL, 10);
		if (*line <= 0 || *line > INT_MAX || *col > INT_MAX)
			return MT_ESYNTAX;
		c1 = c0;
	}
	*file = strndup(sel, (size_t)(c1 - sel));
	return *file ? 0 : MT_ENOMEM;
}

/* FILE:LINE[:COL] in the executable's line tables (or its debug file's). */
static int line_addr(const struct target *tgt, const struct mt_symtab *t,
		     const char *sel, uint64_t *addr)
{
	struct mt_dwlines *d = NULL;
	char *file;
	long line, col;
	int fd, err = split_line_sel(sel, &file, &line, &col);

	if (err)
		return err;
	err = MT_ENOENT;
	fd = target_open(tgt, tgt->exe);
	if (fd >= 0 && !t->has_debug_info) {
		int dfd = target_find_debug(tgt, t, tgt->exe);

		if (dfd >= 0) {
			close(fd);
			fd = dfd;
		}
	}
	if (fd >= 0 && mt_dwlines_open(&d, fd) == 0) {
		err = mt_dwlines_addr_of(d, file, (int)line, (int)col, addr);
		mt_dwlines_free(d);
	}
	if (fd >= 0)
		close(fd);
	free(file);
	return err;
}

/* A symbol's name in messages and marks: demangled with its parameters
 * (as mt-symbols lists it), malloced. */
static char *shown_name(const char *name)
{
	char *dm = mt_demangle(name, MT_DEMANGLE_FULL);

	return dm ? dm : xstrdup(name);
}

/*
 * Whether sel looks like FILE:LINE[:COL], not a function's name (which
 * may hold ':', as C++'s and Rust's do): FILE is a file that exists, or
 * a source file's name (its last component "NAME.EXT", no blank, '(' nor
 * "::" in it).
 */
static int looks_like_line(const char *sel)
{
	char *file, *base, *dot;
	long line, col;
	struct stat st;
	int r;

	if (split_line_sel(sel, &file, &line, &col))
		return 0;
	base = strrchr(file, '/');
	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	r = stat(file, &st) == 0 ||
	    (dot && dot > base && dot[1] && !strpbrk(file, " \t()<>,") &&
	     !strstr(file, "::"));
	free(file);
	return r;
}

/*
 * The function of t named sel (demangle.h: as in the file, demangled, or
 * as perf prints it), not a PLT entry: its index, or t->n when none. A
 * name as in the file wins; dies (usage) when the other names fit
 * functions at more than one address (overloads), listing them.
 */
static size_t find_function(const struct mt_symtab *t, const char *trigger,
			    const char *sel)
{
	size_t i, found = t->n, n = 0;
	uint64_t last = 0;
	char list[1024];
	int at = 0;

	for (i = 0; i < t->n; i++)
		if (t->v[i].bind != MT_SYM_PLT && !strcmp(t->v[i].name, sel))
			return i;
	for (i = 0; i < t->n; i++) {
		char *dm;

		if (t->v[i].bind == MT_SYM_PLT || !mt_demangle_is(t->v[i].name, NULL, sel))
			continue;
		if (n && t->v[i].addr == last)
			continue; /* an alias (the table is in address order) */
		last = t->v[i].addr;
		if (found == t->n)
			found = i;
		dm = shown_name(t->v[i].name);
		if (n < 4 && at < (int)sizeof(list))
			at += snprintf(list + at, sizeof(list) - (size_t)at, "%s%s",
				       n ? "; " : "", dm);
		free(dm);
		n++;
	}
	if (n > 1)
		die(MT_EXIT_USAGE, "--trigger %s: %zu functions have that name: %s%s "
		    "(give the parameters, as mt-symbols --match lists them)",
		    trigger, n, list, n > 4 ? "; ..." : "");
	return found;
}

/* A function named sel in a file the running target maps executable:
 * sets tr's path (malloced), address and name. */
static int in_libraries(const struct target *tgt, const char *sel, struct trig *tr)
{
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	size_t k, i;
	int found = 0;

	if (mt_procsyms_read(&ps, tgt->pid) == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	for (k = 0; k < ps.nfiles && !found; k++) {
		const struct mt_procfile *f = &ps.files[k];
		const struct mt_symtab *t = &f->sym.t;

		if (f->path[0] != '/' || !strcmp(f->path, tgt->exe) ||
		    target_procsyms_load(tgt, &ps, k) < 0)
			continue;
		for (i = 0; i < t->n && !found; i++) {
			if (t->v[i].bind == MT_SYM_PLT || !mt_demangle_is(t->v[i].name, NULL, sel))
				continue;
			found = 1;
			tr->addr = t->v[i].addr;
			tr->path = xstrdup(f->path);
			tr->name = shown_name(t->v[i].name);
		}
	}
	mt_procsyms_release(&ps);
	return found;
}

/* Whether the file calls a function named name (any of its names:
 * demangle.h) through its PLT. */
static int calls_through_plt(const struct mt_symtab *t, const char *name)
{
	size_t i, len;
	int found = 0;

	for (i = 0; i < t->n && !found; i++) {
		const char *plt = t->v[i].name;
		char *base;

		len = strlen(plt);
		if (t->v[i].bind != MT_SYM_PLT || len < 4 || strcmp(plt + len - 4, "@plt"))
			continue;
		base = xstrndup(plt, len - 4);
		found = mt_demangle_is(base, NULL, name);
		free(base);
	}
	return found;
}

/* --trigger's kinds of selection: magic-trace's prefixes force one */
enum sel_kind { SEL_ANY, SEL_SYMBOL, SEL_LINE, SEL_ADDR };

/* In mt-symbols' child: none of our signals blocked or ignored (fzf, its
 * child, must get them). */
static void picker_setup(void *arg)
{
	sigset_t none;

	(void)arg;
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/*
 * A function picked with fzf through mt-symbols --pick: its name. It
 * runs in our process group, not one of its own as perf does: fzf is
 * given the terminal by its runner only when the runner's group has it
 * (common/spawn.h), and a background group's fzf stops on its first read
 * of the terminal. Cancelled (mt-symbols exits MT_EXIT_CANCELLED, or is
 * killed): dies with MT_EXIT_CANCELLED, in one line.
 */
static char *pick_function(const struct target *tgt, const char *trigger)
{
	/* mt-symbols --pick prints ADDR SIZE BIND NAME DEMANGLED */
	char *file = inode_path(tgt, tgt->exe), line[4096], *tab;
	char *argv[] = { "mt-symbols", "--pick", file, NULL };
	struct mt_spawn sp = MT_SPAWN_INIT;
	size_t i;
	ssize_t n;

	sp.out = MT_SPAWN_PIPE;
	sp.name = "mt-symbols";
	sp.death_signal = SIGTERM; /* it dies with us */
	sp.child_setup = picker_setup;
	fflush(NULL);
	if (mt_spawn_start(&sp, argv))
		die_errno(MT_EXIT_SYSTEM, "%s", sp.failed);
	n = mt_spawn_read(&sp, line, sizeof(line));
	mt_spawn_wait(&sp);
	free(file);
	if ((WIFEXITED(sp.status) && WEXITSTATUS(sp.status) == MT_EXIT_CANCELLED) ||
	    WIFSIGNALED(sp.status))
		die(MT_EXIT_CANCELLED, "--trigger %s: no function picked", trigger);
	if (n <= 0 || !WIFEXITED(sp.status) || WEXITSTATUS(sp.status))
		die(MT_EXIT_USAGE, "--trigger %s: no function picked", trigger);
	line[strcspn(line, "\n")] = '\0';
	tab = line;
	for (i = 0; i < 3 && tab; i++)
		tab = strchr(tab + 1, '\t');
	if (!tab)
		die(MT_EXIT_SYSTEM, "--trigger %s: unexpected mt-symbols output",
		    trigger);
	return xstrndup(tab + 1, strcspn(tab + 1, "\t"));
}

/* A hexadecimal address, with or without 0x. */
static int parse_addr(const char *p, uint64_t *v)
{
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!*p || !isxdigit((unsigned char)*p))
		return MT_ESYNTAX;
	errno = 0;
	*v = strtoull(p, &end, 16);
	return *end || errno ? MT_ESYNTAX : 0;
}

void resolve_trigger(struct trig *tr, const struct target *tgt)
{
	const struct mt_symfile *sf;
	const struct mt_symtab *t;
	const char *sel = tr->sel;
	enum sel_kind kind = SEL_ANY;
	char *picked = NULL;
	uint64_t v;
	size_t i = 0;
	int is_line;

	tr->path = tgt->exe;
	if (!strncmp(sel, "symbol:", 7)) {
		kind = SEL_SYMBOL;
		sel += 7;
	} else if (!strncmp(sel, "line:", 5)) {
		kind = SEL_LINE;
		sel += 5;
	} else if (!strncmp(sel, "addr:", 5)) {
		kind = SEL_ADDR;
		sel += 5;
	}
	if (!*sel)
		die(MT_EXIT_USAGE, "--trigger %s: nothing after the prefix", tr->sel);
	if (kind <= SEL_SYMBOL && !strcmp(sel, "."))
		sel = STOP_INDICATOR;
	if (!strcmp(sel, "?")) {
		if (kind > SEL_SYMBOL)
			die(MT_EXIT_USAGE, "--trigger %s: only functions are picked "
			    "with fzf (? or symbol:?); give line:FILE:LINE", tr->sel);
		sel = picked = pick_function(tgt, tr->sel);
	}
	read_symbols(tgt, &sf, tgt->exe, 1);
	t = &sf->t;
	if (kind <= SEL_SYMBOL)
		i = find_function(t, tr->sel, sel);
	is_line = kind == SEL_LINE || (kind == SEL_ANY && looks_like_line(sel));
	if (kind <= SEL_SYMBOL && i < t->n) {
		tr->addr = t->v[i].addr;
		tr->name = shown_name(t->v[i].name);
	} else if (is_line && line_addr(tgt, t, sel, &v) == 0) {
		const struct mt_sym *s = mt_symtab_lookup(t, v);
		char *sn = s ? shown_name(s->name) : NULL;

		tr->addr = v;
		if (s && v != s->addr) {
			tr->name = xasprintf("%s+0x%" PRIx64 " (%s)", sn,
					     (uint64_t)(v - s->addr), sel);
		} else {
			tr->name = xstrdup(s ? sn : sel);
		}
		free(sn);
	} else if (kind != SEL_LINE && kind != SEL_SYMBOL && parse_addr(sel, &v) == 0) {
		const struct mt_sym *s = mt_symtab_lookup(t, v);

		tr->addr = v;
		tr->name = s ? shown_name(s->name) : xstrdup(sel);
	} else if (is_line) {
		char *file;
		long line, col;

		if (split_line_sel(sel, &file, &line, &col))
			die(MT_EXIT_USAGE, "--trigger %s: expected FILE:LINE or "
			    "FILE:LINE:COLUMN", tr->sel);
		free(file);
		die(MT_EXIT_DATA, "--trigger %s: no code at that line%s in %s "
		    "(its DWARF line tables: build with -g)", tr->sel,
		    col ? " and column" : "", tgt->exe);
	} else if (kind == SEL_ADDR) {
		die(MT_EXIT_USAGE, "--trigger %s: expected a hexadecimal address",
		    tr->sel);
	} else if (!tgt->child && in_libraries(tgt, sel, tr)) {
		/* a function of a shared library the process maps */
#if defined(__x86_64__)
	} else if (tgt->child && kind <= SEL_SYMBOL && calls_through_plt(t, sel)) {
		/* a function of a library the command loads (it calls it
		 * through its PLT): looked up once it has run to its entry
		 * point, where its libraries are mapped */
		tr->in_lib = 1;
		tr->name = xstrdup(sel);
#endif
	} else {
		die(MT_EXIT_DATA, "--trigger %s: no such function in %s%s "
		    "(mt-symbols --match lists them)", tr->sel, tgt->exe,
		    tgt->child ? "" : " nor in the libraries it maps");
	}
	free(picked);
}

void resolve_in_libraries(struct trig *tr, struct target *tgt)
{
	char *sel = tr->name;

	tr->name = NULL;
	tr->in_lib = 0;
	if (!in_libraries(tgt, sel, tr)) {
		kill(tgt->child, SIGKILL);
		waitpid(tgt->child, NULL, 0);
		tgt->child = 0;
		die(MT_EXIT_DATA, "--trigger %s: no such function in %s nor in the "
		    "libraries it loaded (mt-symbols --match lists them)",
		    tr->sel, tgt->exe);
	}
	free(sel);
}

/*
 * Where the trigger's file address is in the target now: the mapping of
 * its file that holds it, through the file's load bias.
 */
static uint64_t runtime_addr(const struct trig *tr, const struct target *tgt)
{
	const struct mt_symfile *sf;
	struct mt_procsyms ps = MT_PROCSYMS_INIT;
	uint64_t rt = 0;
	int i, n;

	read_symbols(tgt, &sf, tr->path, 1);
	n = mt_procsyms_read(&ps, tgt->pid);
	if (n == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (n < 0 && n != MT_ETRUNCATED)
		die_errno(MT_EXIT_DATA, "/proc/%d/maps", (int)tgt->pid);
	i = mt_procsyms_find(&ps, tr->path);
	n = i < 0 ? i : mt_procsyms_runtime(&ps, (size_t)i, &sf->t, tr->addr, &rt);
	mt_procsyms_release(&ps);
	if (n < 0)
		die(MT_EXIT_DATA, "--trigger %s: 0x%" PRIx64 " of %s is in no "
		    "executable mapping of process %d", tr->name, tr->addr,
		    tr->path, (int)tgt->pid);
	return rt;
}

/* With --slower-than on a stop indicator: whether hit h's region took
 * that long (h->dur then its length). */
static int region_slow(const struct trigger_run *tg, struct mt_uprobe_hit *h)
{
	uint64_t start;
	int64_t arg;

	if (!tg->region_slower)
		return 1;
	if (!trigger_region(tg, h, &start, &arg) || start == MT_NONE64 ||
	    h->time - start < tg->slower_ns)
		return 0;
	h->dur = h->time - start;
	return 1;
}

/* The uprobe engine's opts.hit_filter: region_slow() of the trigger. */
static int region_filter(void *arg, struct mt_uprobe_hit *h)
{
	return region_slow(arg, h);
}

void arm_trigger(struct trigger_run *tg, const struct trig *tr, const struct target *tgt,
		 int mode, int every, uint64_t slower_ns)
{
	struct mt_uprobe_opts o = { 0 };
	unsigned flags = MT_UPROBE_ENTRY | MT_UPROBE_TRIGGER;
	int err;

	tg->use_bp = tr->use_bp;
	tg->slower_ns = slower_ns;
	/* a stop indicator's region is timed at its call: the calls whose
	 * region is short are no hits (region_slow()) */
	tg->region_slower = slower_ns && trigger_is_stop_indicator(tr);
	tg->every = every;
	if (slower_ns && !tg->region_slower) {
		if (tg->use_bp)
			die(MT_EXIT_USAGE, "--slower-than: a breakpoint cannot time a call (its return)");
		o.slower_ns = slower_ns; /* at its return */
		flags |= MT_UPROBE_RETURN;
	}
	if ((tg->tsc_ok = mt_tsc_invariant()))
		mt_tsc_pair(&tg->tsc_a, &tg->mono_a);
	if (tg->use_bp) {
		uint64_t rt = runtime_addr(tr, tgt);

		err = mt_hwbp_arm(&tg->bp, tgt->pid, rt);
		if (err == MT_EIO && (errno == EACCES || errno == EPERM))
			die(MT_EXIT_SYSTEM, "%s: %s (perf_event_paranoid above 2, "
			    "or another user's process: --trigger-via uprobe, as "
			    "root)", tg->bp.what, strerror(errno));
		if (err < 0 && err != MT_ENOENT)
			die(MT_EXIT_SYSTEM, "%s: %s (--trigger-via uprobe)", tg->bp.what,
			    err == MT_EIO ? strerror(errno) : mt_strerror(err));
		warn("trigger armed: %s @ 0x%" PRIx64 " in %s "
		     "(hardware breakpoint at 0x%" PRIx64 ")", tr->name, tr->addr,
		     tr->path, rt);
		return;
	}
	o.ring_bytes = MT_UPROBE_EVENT_BYTES * 64;
	o.background_close = 1;
	o.reorder_ms = 2;
	o.every_hit = tg->every;
	if (tg->region_slower) { /* the short regions are no hits */
		o.hit_filter = region_filter;
		o.hit_filter_arg = tg;
	}
	o.symbols = target_symbols_via;
	o.symbols_arg = (void *)tgt;
	err = mt_uprobe_init(&tg->tu, &o);
	if (!err) {
		char *file = inode_path(tgt, tr->path);

		err = mt_uprobe_add(&tg->tu, file, tr->name, tr->addr, flags);
		free(file);
	}
	if (!err || err > 0)
		err = mt_uprobe_attach(&tg->tu, tgt->pid, mode);
	if (err < 0)
		die_up(&tg->tu, err);
	warn("trigger armed: %s @ 0x%" PRIx64 " in %s (uprobe%s%s)", tr->name,
	     tr->addr, tr->path, tr->via_note ? "; " : "", tr->via_note ? tr->via_note : "");
}

/* trigger_wait(), every hit: no --slower-than on a stop indicator (the
 * uprobe engine's filter has it). */
static int wait_hit(struct trigger_run *tg, int timeout_ms, const sigset_t *mask,
		    struct mt_uprobe_hit *hit)
{
	int r;

	if (tg->use_bp) {
		struct mt_hwbp_hit h;

		r = mt_hwbp_wait(&tg->bp, timeout_ms, mask, &h);
		if (r < 0)
			die(MT_EXIT_SYSTEM, "%s: %s", tg->bp.what,
			    r == MT_EIO ? strerror(errno) : mt_strerror(r));
		if (r != MT_HWBP_HIT)
			return 0;
		hit->time = h.time;
		hit->pid = h.pid;
		hit->tid = h.tid;
		hit->has_args = h.has_args;
		hit->rdi = h.rdi;
		hit->rsi = h.rsi;
		hit->dur = 0;
		return 1;
	}
	r = mt_uprobe_wait(&tg->tu, timeout_ms, mask);
	if (r < 0)
		die_up(&tg->tu, r);
	if (r != MT_UPROBE_TRIGGERED)
		return 0;
	if (tg->every)
		return mt_uprobe_next_hit(&tg->tu, hit);
	mt_uprobe_trigger(&tg->tu, hit);
	return 1;
}

int trigger_wait(struct trigger_run *tg, int timeout_ms, const sigset_t *mask,
		 struct mt_uprobe_hit *hit)
{
	if (!tg->use_bp)
		return wait_hit(tg, timeout_ms, mask, hit);
	/* a breakpoint's hits that are regions too short: every one the
	 * rings hold is passed over now, so that none waits behind them */
	while (wait_hit(tg, timeout_ms, mask, hit)) {
		if (region_slow(tg, hit))
			return 1;
		timeout_ms = 0;
	}
	return 0;
}

int trigger_finish(struct trigger_run *tg, const sigset_t *mask, struct mt_uprobe_hit *hit)
{
	if (tg->use_bp)
		return trigger_wait(tg, 0, mask, hit);
	mt_uprobe_finish(&tg->tu);
	if (tg->every)
		return mt_uprobe_next_hit(&tg->tu, hit);
	return mt_uprobe_trigger(&tg->tu, hit);
}

unsigned trigger_dropped(const struct trigger_run *tg)
{
	struct mt_uprobe_stats st;

	if (tg->use_bp)
		return 0;
	mt_uprobe_stats(&tg->tu, &st);
	return (unsigned)st.hits_dropped;
}

void trigger_run_release(struct trigger_run *tg)
{
	if (tg->use_bp) {
		mt_hwbp_release(&tg->bp);
	} else {
		mt_uprobe_finish(&tg->tu); /* its probe closed in the background */
		mt_uprobe_release(&tg->tu);
	}
}

void choose_trigger_via(struct trig *tr, enum via via)
{
	int r;

	if (via == VIA_UPROBE)
		return;
	r = mt_hwbp_fires();
	if (via == VIA_BREAKPOINT) {
		if (r < 0)
			die(MT_EXIT_SYSTEM, "--trigger-via breakpoint: no hardware "
			    "breakpoint can be made here: perf_event_open: %s",
			    strerror(errno));
		if (r == 0)
			warn("hardware breakpoints do not fire on this machine (a "
			     "virtual machine that does not pass debug traps on): "
			     "this trigger will not fire; --trigger-via uprobe will");
		tr->use_bp = 1;
		return;
	}
	if (r == 1)
		tr->use_bp = 1;
	else
		tr->via_note = r == 0 ? "hardware breakpoints do not fire on this machine"
				  : "no hardware breakpoint can be made here";
}

int trigger_is_stop_indicator(const struct trig *tr)
{
	size_t n = strlen(STOP_INDICATOR);

	/* its name demangled with its parameters: a C++ file's own */
	return tr->name && !strncmp(tr->name, STOP_INDICATOR, n) &&
	       (!tr->name[n] || tr->name[n] == '(');
}

int trigger_region(const struct trigger_run *tg, const struct mt_uprobe_hit *h, uint64_t *start,
		   int64_t *arg)
{
	uint64_t t = (uint64_t)((int64_t)h->rdi >> 1), tsc_b, mono_b;

	if (!h->has_args || !(h->rdi & 1))
		return 0; /* not an OCaml int: not a stop indicator's call */
	*arg = (int64_t)h->rsi >> 1;
	*start = MT_NONE64;
	if (!tg->tsc_ok || !t)
		return 1;
	mt_tsc_pair(&tsc_b, &mono_b);
	t = mt_tsc_to_mono(t, tg->tsc_a, tg->mono_a, tsc_b, mono_b);
	if (t <= h->time)
		*start = t;
	return 1;
}

void trigger_hit_region(const struct trig *tr, const struct trigger_run *tg,
			const struct mt_uprobe_hit *h, struct mark_line *mk)
{
	uint64_t start;
	int64_t arg;

	if (!trigger_is_stop_indicator(tr) || !trigger_region(tg, h, &start, &arg))
		return;
	mk->region = mt_mt_region(h->time, h->pid, h->tid, start, arg, tr->addr, tr->name);
	mk->has_region = 1;
}

void trigger_timed(struct trig *tr, enum via via, uint64_t slower_ns)
{
	if (!slower_ns || trigger_is_stop_indicator(tr))
		return; /* a breakpoint at its call does */
	if (via == VIA_BREAKPOINT)
		die(MT_EXIT_USAGE, "--trigger %s --slower-than: a breakpoint cannot time a "
		    "call (its return): --trigger-via uprobe", tr->name);
	if (!mt_uprobe_supported() || geteuid() != 0)
		die(MT_EXIT_SYSTEM, "--trigger %s --slower-than: a uprobe and its return "
		    "probe time the calls, %s", tr->name,
		    mt_uprobe_supported() ? "as root only" : "and this kernel has no uprobe PMU");
	if (tr->use_bp) {
		tr->use_bp = 0;
		tr->via_note = "--slower-than: its return probe times the calls";
	}
}

void trigger_say_hit(const struct trig *tr, uint32_t pid, uint32_t tid, uint64_t when,
		     uint64_t slower_ns, uint64_t dur)
{
	if (slower_ns)
		warn("trigger %s hit by %u/%u at %" PRIu64 ".%09" PRIu64 ": a %s of %" PRIu64
		     ".%06" PRIu64 " ms", tr->name, pid, tid, when / 1000000000u,
		     when % 1000000000u, trigger_is_stop_indicator(tr) ? "region" : "call",
		     dur / 1000000u, dur % 1000000u);
	else
		warn("trigger %s hit by %u/%u at %" PRIu64 ".%09" PRIu64, tr->name, pid, tid,
		     when / 1000000000u, when % 1000000000u);
}
