/*
 * The patch backend's recording (docs/patch.md): a command started with
 * the runtime preloaded (record_command()), or a running process (-p)
 * that a borrowed thread makes load it (record_attached()); the
 * functions chosen, the table handed to the runtime, the entries written,
 * the rings drained (--full) or read once at the end, the entries put
 * back. The shared memory's readers are patch-rec.h's; the process held
 * with ptrace, inject.h; the loader, patch-load.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "functions.h"
#include "inject.h"
#include "libpath.h"
#include "patch-load.h"
#include "patch-rec.h"
#include "patch-cache.h"
#include "symcache.h"
#include "patch-budget.h"
#include "rec.h"
#include "shm.h"
#include "streamout.h"
#include "symtab.h"
#include "target.h"
#include "trigger.h"
#include "xalloc.h"
#include "banned.h"

/* A sink that only counts. */
static void count_add(void *ctx, const char *path, const char *open, const struct mt_sym *s,
		      const struct mt_sym *alias)
{
	(void)path;
	(void)open;
	(void)s;
	(void)alias;
	++*(size_t *)ctx;
}

/* How many functions of its own tgt's executable names (the default
 * selection). */
static size_t own_functions(const struct target *tgt)
{
	struct fn_files files = { rec_target_symbols, rec_target_path, (void *)tgt };
	size_t n = 0;
	struct fn_sink sink = { count_add, &n, NULL, 0 };
	struct fn_query q = { NULL, tgt->exe, NULL, NULL, 0, &files, NULL, SIZE_MAX, 0 };

	fn_select(&sink, &q);
	return n;
}

/* Why the patch backend cannot patch tgt's executable (tgt->exe, read as
 * the target sees it), into why: 1; 0 when it can. */
static int program_cannot(const struct rec *r, const struct target *tgt, char *why,
			  size_t len)
{
	const struct mt_symfile *sf;
	char link[64];
	int no;

	if (read_symbols(tgt, &sf, tgt->exe, 0) < 0) {
		snprintf(why, len, "%s cannot be read", tgt->exe);
		return 1;
	}
	/* a running process's: the very file it runs */
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)tgt->pid);
	no = patch_rec_refuses(tgt->pid ? link : tgt->exe, sf->t.is_go, why, len);
	if (!no && !r->o.functions && !own_functions(tgt)) {
		snprintf(why, len, "%s names none of its own functions (stripped, and no "
			 ".eh_frame shows any): nothing to patch without --functions", tgt->exe);
		no = 1;
	}
	return no;
}

/* The program of -p's one process as it names it (its deleted one
 * names none), or the command's: malloced, or NULL. */
static char *program_of(const struct rec *r)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	if (r->tgt.npids == 1) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)r->tgt.pids[0]);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n <= 0 || buf[0] != '/')
			return NULL;
		buf[n] = '\0';
		return is_deleted(buf) ? NULL : strdup(buf);
	}
	if (r->tgt.cmd) {
		char *w = mt_which(r->tgt.cmd[0]), *exe = w ? realpath(w, NULL) : NULL;

		free(w);
		return exe;
	}
	return NULL;
}

/*
 * Why the patch backend cannot record what r names (the one process of
 * -p, or the command), into why: 1; 0 when it can. Options only perf's
 * sampling takes (--kernel, --events, --frequency, --call-graph) ask for
 * sampling; more than one process, a program not found, a Go or static
 * program, one that would not load the runtime (patch_rec_refuses()).
 */
static int patch_cannot(const struct rec *r, char *why, size_t len)
{
	const struct rec_opts *o = &r->o;
	struct target t;
	int no;

#if !defined(__x86_64__)
	snprintf(why, len, "the patch backend patches x86-64 code only");
	return 1;
#endif
	if (o->input || (o->given & (GIVEN_KERNEL | GIVEN_EVENTS | GIVEN_FREQ | GIVEN_CG))) {
		snprintf(why, len, "the options given are the sample backend's");
		return 1;
	}
	if (r->tgt.npids > 1) {
		snprintf(why, len, "the patch backend attaches to one process at a time");
		return 1;
	}
	/* the process as it sees its files; the command's are ours */
	target_init(&t);
	t.pid = r->tgt.npids == 1 ? r->tgt.pids[0] : 0;
	if (!(t.exe = program_of(r))) {
		snprintf(why, len, "its program was not found");
		no = 1;
	} else {
		no = program_cannot(r, &t, why, len);
	}
	target_release(&t);
	return no;
}

/* While the patch runtime starts: the command runs, and no signal came
 * (one pending is taken: they are blocked but in waits). */
static int patch_keep_waiting(void *ctx)
{
	struct rec *r = ctx;
	sigset_t held;

	sigprocmask(SIG_SETMASK, &r->wait_mask, &held);
	sigprocmask(SIG_SETMASK, &held, NULL);
	return !rec_signal() && target_alive(&r->tgt);
}

/* The held or waiting command, killed: it never runs traced. */
static void patch_kill_child(struct rec *r)
{
	if (r->tgt.gate_w >= 0) {
		close(r->tgt.gate_w); /* it exits, never having run */
		r->tgt.gate_w = -1;
	}
	if (r->tgt.child) {
		kill(r->tgt.child, SIGKILL);
		waitpid(r->tgt.child, NULL, 0);
		r->tgt.child = 0;
	}
}

/* What the patch backend's selection adds to: the table, and the file
 * its last function was of. */
struct patch_sel {
	struct patch_rec *p;
	const struct target *tgt;
	char last[PATH_MAX];
};

/* Once the first function of a file is in the table, the file's ranges
 * go to the runtime, which reads them while the rest is added. */
static void patch_sel_file(struct patch_sel *sel, const char *path)
{
	if (!strcmp(sel->last, path))
		return;
	snprintf(sel->last, sizeof(sel->last), "%s", path);
	patch_rec_add_neighbours(sel->p, sel->tgt);
}

/* The selection's sink: into the patch table, under the file's real
 * path (the runtime matches the files it finds mapped by theirs), named
 * as perf names the function (of its aliases, the one perf keeps). */
static void patch_add(void *ctx, const char *path, const char *open, const struct mt_sym *s,
		      const struct mt_sym *alias)
{
	struct patch_sel *sel = ctx;

	(void)open;
	(void)s;
	if (patch_rec_own_library(path)) /* never the runtime's */
		return;
	patch_rec_add(sel->p, path, alias);
	patch_sel_file(sel, path);
}

/* The selection's parts of functions: in the table, never patched. */
static void patch_part(void *ctx, const char *path, const struct mt_sym *s, const char *why)
{
	struct patch_sel *sel = ctx;

	(void)why; /* the table's status says it */
	patch_rec_add_part(sel->p, path, s);
	patch_sel_file(sel, path);
}

/* A selection kept (-p: chosen before the process changes, put in the
 * table once the runtime's memory is there), in the order chosen: each
 * function (perf's name for it), or a part, and its file. */
struct chosen {
	struct chosen_fn {
		struct mt_sym s;
		size_t path;  /* index in paths */
		int part;
	} *v;
	size_t n, cap;
	char **paths;
	size_t npaths, paths_cap;
};

static void chosen_keep(struct chosen *c, const char *path, const struct mt_sym *s, int part)
{
	struct chosen_fn *f;

	if (!c->npaths || strcmp(c->paths[c->npaths - 1], path)) {
		grow_or_die(&c->paths, &c->paths_cap, c->npaths + 1, sizeof(*c->paths));
		c->paths[c->npaths++] = xstrdup(path);
	}
	grow_or_die(&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	f = &c->v[c->n++];
	f->s = *s;
	f->s.name = xstrdup(s->name);
	f->path = c->npaths - 1;
	f->part = part;
}

static void chosen_add(void *ctx, const char *path, const char *open, const struct mt_sym *s,
		       const struct mt_sym *alias)
{
	(void)open;
	(void)s;
	if (!patch_rec_own_library(path))
		chosen_keep(ctx, path, alias, 0);
}

static void chosen_part(void *ctx, const char *path, const struct mt_sym *s, const char *why)
{
	(void)why;
	chosen_keep(ctx, path, s, 1);
}

static void chosen_release(struct chosen *c)
{
	size_t k;

	for (k = 0; k < c->n; k++)
		free(c->v[k].s.name);
	for (k = 0; k < c->npaths; k++)
		free(c->paths[k]);
	free(c->v);
	free(c->paths);
	memset(c, 0, sizeof(*c));
}

/* The patch backend's selection (--functions, as for uprobes, with no
 * cap on the executable's own functions) of exe (NULL: none) and, with a
 * regex, of libs (NULL: those the target maps), into add(ctx), the parts
 * of functions it chose into part(ctx) (NULL: left out): how many.
 * die_if_none: none is fatal (said as for uprobes). */
static size_t patch_select(struct rec *r, const char *exe, char *const *libs,
			   void (*add)(void *, const char *, const char *, const struct mt_sym *,
				       const struct mt_sym *),
			   void (*part)(void *, const char *, const struct mt_sym *, const char *),
			   void *ctx, int die_if_none)
{
	struct fn_files files = { rec_target_symbols, rec_target_path, &r->tgt };
	struct fn_sink sink = { add, ctx, part, 0 };
	struct fn_query q = { r->o.functions, exe, libs, NULL, 0, &files,
			      NULL, SIZE_MAX, 65536 };
	char **mapped = NULL;
	size_t n;

	if (r->o.functions && !libs) {
		size_t i, j;

		q.libs = mapped = mapped_libraries(&r->tgt);
		for (i = j = 0; mapped[i]; i++) /* mt's own are not the program's */
			if (patch_rec_own_library(mapped[i]))
				free(mapped[i]);
			else
				mapped[j++] = mapped[i];
		mapped[j] = NULL;
	}
	if (!(n = fn_select(&sink, &q)) && die_if_none) {
		patch_kill_child(r);
		rec_no_function(r, q.libs);
	}
	if (mapped)
		free_paths(mapped);
	return n;
}

/* The functions to patch: the walkers, then --functions (chosen now, or
 * those of ch); and every function of their files, for the branches into
 * them: each file's published once it has a function in the table, for
 * the runtime to read while the rest is chosen (patch_sel_file()). */
static void patch_functions(struct rec *r, struct patch_rec *p, const char *exe,
			    const struct chosen *ch)
{
	struct patch_sel sel = { p, &r->tgt, "" };
	size_t k;

	patch_rec_add_walkers(p, &r->tgt, exe);
	patch_rec_add_neighbours(p, &r->tgt);
	if (!ch)
		patch_select(r, exe, NULL, patch_add, patch_part, &sel, 1);
	for (k = 0; ch && k < ch->n; k++)
		if (ch->v[k].part)
			patch_part(&sel, ch->paths[ch->v[k].path], &ch->v[k].s, NULL);
		else
			patch_add(&sel, ch->paths[ch->v[k].path], NULL, &ch->v[k].s,
				  &ch->v[k].s);
	patch_rec_add_neighbours(p, &r->tgt);
}

/* The "recording" line, before the wait. */
static void patch_recording(const struct rec *r, pid_t pid)
{
	/* as the other backends say it (rounds.c) */
	fprintf(stderr, "%s: recording %d with patch%s; Ctrl+C %s\n", mt_progname(), (int)pid,
		r->o.full ? " (full)" : "", r->o.full ? "ends the recording" :
		!r->o.trigger ? "takes the snapshot" : r->o.repeat != 1 ?
		"ends, keeping the snapshots taken" : "ends without a snapshot");
}

/* The counts after patching, and what -v lists. */
/* The functions -v listed so far (a dlopen adds more). */
static uint32_t patch_listed;

/* The branch targets of the files scanned, kept between runs
 * (patch-cache.h): taken while the table is written, filled once the
 * trace is out (patch_after). */
static struct patch_cache cache;
static int cache_ready;

static void use_cache(struct patch_rec *p)
{
	if (!cache_ready)
		patch_cache_init(&cache);
	cache_ready = 1;
	p->cache = &cache;
}

static void patch_after(struct rec *r)
{
	unsigned kept;

	if (!cache_ready)
		return;
	kept = patch_cache_fill(&cache);
	if (r->o.verbose && kept)
		fprintf(stderr, "%s: the branch targets of %u file%s kept in %s for the next "
			"run\n", mt_progname(), kept, kept == 1 ? "" : "s", cache.dir);
	if (r->o.verbose && cache.failed)
		fprintf(stderr, "%s: the branch targets of %u file%s could not be kept in "
			"%s\n", mt_progname(), cache.failed, cache.failed == 1 ? "" : "s",
			cache.dir);
	patch_cache_release(&cache);
	cache_ready = 0;
}

/* --max-overhead (patch-budget.h): the budget while it is kept, and
 * the functions turned off, for their MARKs and the closing lines */
static struct patch_budget budget;
static int budget_on;
static struct turned {
	uint64_t time;
	uint32_t func, pid, tid;
	double rate;
} *turned;
static size_t nturned, turned_cap;

/* The budget's start, once the runtime is READY (it measured a call). */
static void budget_start(struct rec *r, struct patch_rec *p)
{
	uint32_t pct = r->o.max_overhead, i, ntrace = 0, only = 0;
	double ns;

	if (pct == MT_OVERHEAD_DEFAULT)
		pct = r->tgt.cmd ? 0 : 1000; /* 10% with -p */
	if (!pct)
		return;
	if (!(ns = patch_rec_call_ns(p))) {
		warn("--max-overhead: the patch runtime did not measure what a call costs: "
		     "every function stays recorded");
		return;
	}
	patch_budget_init(&budget, pct / 10000.0, ns);
	/* what the user named: the trigger, a --functions of one function */
	if (p->trigger)
		patch_budget_keep(&budget, p->trigger - 1);
	for (i = 0; i < p->nfn; i++)
		if (p->fn[i].kind == MTP_FK_TRACE && p->fn[i].status == MTP_FN_PATCHED) {
			ntrace++;
			only = i;
		}
	if (ntrace == 1)
		patch_budget_keep(&budget, only);
	budget_on = 1;
	if (r->o.max_overhead == MT_OVERHEAD_DEFAULT || r->o.verbose)
		fprintf(stderr, "%s: keeping the recording's cost under %g%% of the process's "
			"time (a call costs it %.0f ns): the functions called most may stop "
			"being recorded (--max-overhead none records them all)\n",
			mt_progname(), pct / 100.0, ns);
}

/* Every turn of the wait: the budget's look, and the functions it
 * chose turned off, the process held meanwhile. */
static void budget_tick(struct rec *r, struct patch_rec *p, struct inject *in)
{
	uint32_t idx[1024], chosen[1024];
	double rate[1024];
	size_t n, k, j, done;
	uint64_t now;

	if (!budget_on || !(n = patch_budget_look(&budget, p, now = now_mono(), idx, rate, 1024)))
		return;
	if (!((in->mem >= 0 || !inject_open(in, r->tgt.pid, 1)) && inject_stop_all(in))) {
		if (errno != ESRCH && errno != ENOENT)
			warn("process %d: cannot stop it to turn functions off (ptrace: %s): "
			     "--max-overhead is no longer kept", (int)r->tgt.pid, strerror(errno));
		budget_on = 0;
		return;
	}
	memcpy(chosen, idx, n * sizeof(*idx));
	done = patch_rec_turn_off(p, in, idx, n);
	now = now_mono(); /* every thread held: no call of those begins after */
	inject_release_all(in);
	for (k = 0; k < done; k++) {
		for (j = 0; j < n && chosen[j] != idx[k]; j++)
			;
		grow_or_die(&turned, &turned_cap, nturned + 1, sizeof(*turned));
		turned[nturned++] = (struct turned){ now, idx[k], budget.hot_pid, budget.hot_tid,
						     j < n ? rate[j] : 0 };
	}
}

/* The MARKs of the functions turned off by time (a snapshot's). */
static void turned_marks(const struct rec *r, const struct patch_rec *p, uint64_t time)
{
	size_t k;

	for (k = 0; k < nturned; k++) {
		const struct turned *t = &turned[k];
		struct mt_mt_line ml;

		if (t->time > time)
			continue;
		ml = mt_mt_off(t->time, t->pid, t->tid, (uint64_t)t->rate, p->fn[t->func].where,
			       p->strings + p->fn[t->func].shown);
		rec_mark(r, &ml);
	}
}

/* The closing lines: how many were turned off (-v: each). */
static void budget_end(const struct rec *r, const struct patch_rec *p)
{
	uint64_t end = now_mono();
	double missed = 0, made;
	size_t k;

	/* the calls not recorded: at least each one's rate when it was
	 * turned off (traced, so slower) for the time left */
	for (k = 0; k < nturned; k++)
		missed += turned[k].rate * (double)(end - turned[k].time) / 1e9;
	made = patch_budget_recorded(p) + missed;
	if (nturned)
		fprintf(stderr, "%s: %zu function%s turned off to keep the cost under %g%% "
			"(--max-overhead): %s calls after that are not recorded%s; of all "
			"calls, at most %.1f%% recorded\n",
			mt_progname(), nturned, nturned == 1 ? "" : "s", budget.max * 100,
			nturned == 1 ? "its" : "their", r->o.verbose ? "" : " (-v lists them)",
			made > 0 ? 100 * (made - missed) / made : 100.0);
	for (k = 0; r->o.verbose && k < nturned; k++)
		fprintf(stderr, "%s: %s (%s): turned off, %.0f calls a second\n", mt_progname(),
			p->strings + p->fn[turned[k].func].shown,
			p->strings + p->fn[turned[k].func].path, turned[k].rate);
	patch_budget_release(&budget);
	budget_on = 0;
	free(turned);
	turned = NULL;
	nturned = turned_cap = 0;
}

/* -v: the symbol tables read so far, and those taken from the cache
 * (symcache.h). */
static void say_symbols(void)
{
	unsigned hits, misses, kept;
	const char *dir, *off_why;

	symcache_counts(&hits, &misses, &kept, &dir, &off_why);
	if (!dir) {
		fprintf(stderr, "%s: no cache of symbol tables: %s\n", mt_progname(), off_why);
		return;
	}
	fprintf(stderr, "%s: the symbols of %u of %u file%s from %s\n", mt_progname(), hits,
		hits + misses, hits + misses == 1 ? "" : "s", dir);
	if (kept)
		fprintf(stderr, "%s: the symbols of %u file%s kept in %s for the next run\n",
			mt_progname(), kept, kept == 1 ? "" : "s", dir);
}

static void say_patched(const struct rec *r, const struct patch_rec *p)
{
	if (r->o.verbose)
		patch_rec_list(p, 0, 1);
	if (r->o.verbose && !cache.dir)
		fprintf(stderr, "%s: no cache of branch targets: %s\n", mt_progname(),
			cache.off_why);
	else if (r->o.verbose)
		fprintf(stderr, "%s: the branch targets of %u of %u file%s from %s\n",
			mt_progname(), cache.hits, cache.hits + cache.misses,
			cache.hits + cache.misses == 1 ? "" : "s", cache.dir);
	if (r->o.verbose)
		say_symbols();
	if (r->o.verbose && cache.dir) {
		/* the process's count: shown, never used */
		uint32_t refused = __atomic_load_n(&p->h->given_refused, __ATOMIC_ACQUIRE);

		if (refused)
			fprintf(stderr, "%s: the code of %u of those file%s in the process is "
				"not the file's: the runtime read it there\n", mt_progname(),
				refused < cache.hits ? refused : cache.hits,
				cache.hits == 1 ? "" : "s");
	}
	patch_listed = p->nfn;
	fprintf(stderr, "%s: patched %u function%s%s", mt_progname(),
		patch_rec_patched(p), patch_rec_patched(p) == 1 ? "" : "s",
		patch_rec_skipped(p) ? "" : "\n");
	if (patch_rec_skipped(p))
		fprintf(stderr, "; %u left alone (-v lists them and why)\n",
			patch_rec_skipped(p));
}

/* --trigger: the function to patch for it, and its first call's
 * watch (before the table goes to the runtime). */
static void patch_trigger(struct rec *r, struct patch_rec *p)
{
	if (!r->o.trigger)
		return;
	if (r->tr.in_lib)
		resolve_in_libraries(&r->tr, &r->tgt);
	/* its path as the process names it (the maps' and its executable's
	 * names: realpath would resolve it in mt-record's namespace) */
	if (is_deleted(r->tr.path)) {
		errno = ENOENT;
		die_errno(MT_EXIT_DATA, "%s", r->tr.path);
	}
	patch_rec_trigger_on(p, &r->tgt, r->tr.path, r->tr.addr, r->tr.name);
	if (r->o.repeat != 1)
		patch_rec_queue_hits(p); /* a snapshot each, recording on */
	if (r->o.slower_than_ns)
		patch_rec_slower_than(p, r->o.slower_than_ns);
	if (trigger_is_stop_indicator(&r->tr) && patch_rec_trigger_region(p, r->o.slower_than_ns)) {
		patch_kill_child(r);
		die(MT_EXIT_DATA, "--trigger %s --slower-than: the region the program passes "
		    "is timed on the TSC, which this machine's patch runtime does not use "
		    "(no invariant TSC)", r->tr.name);
	}
	if (!r->o.arm_after_ns)
		patch_rec_arm(p); /* else once recording has run that long; a
				   * trigger left alone calls no hook */
}

static void say_hit(const struct rec *r, uint32_t pid, uint32_t tid, uint64_t when, uint64_t dur)
{
	trigger_say_hit(&r->tr, pid, tid, when, r->o.slower_than_ns, dur);
}

/* A hit's MARKs: the trigger's, and a stop indicator's region (as
 * magic-trace writes a hit of its default trigger). */
static void hit_marks(const struct rec *r, const struct patch_hit *h, struct mark_line *m)
{
	m->time = h->mono;
	m->ml = mt_mt_trigger(h->mono, h->pid, h->tid, r->tr.addr, r->tr.name);
	m->ml.mark.value = h->dur;
	if ((m->has_region = h->region && trigger_is_stop_indicator(&r->tr)))
		m->region = mt_mt_region(h->mono, h->pid, h->tid,
					 h->start <= h->mono ? h->start : MT_NONE64, h->arg,
					 r->tr.addr, r->tr.name);
}

/* Whether the trigger was hit (the rings frozen at its call: without
 * --repeat), with its MARKs; says so the first time. */
static int trigger_seen(struct rec *r, const struct patch_rec *p, struct patch_hit *h,
			struct mark_line *marks)
{
	static int said;

	if (!r->o.trigger || !patch_rec_triggered(p, h))
		return 0;
	if (!said++)
		say_hit(r, h->pid, h->tid, h->mono, h->dur);
	hit_marks(r, h, marks);
	return 1;
}

/* The stream the rings go into (one for the whole recording; with -o
 * DIR/ each snapshot begins its own). */
static void patch_begin(struct rec *r, struct stream_out *so)
{
	stream_out_init(so, r->out_fd);
	so->source = "mt-record patch";
	r->sout = so;
	if (!r->dir_out)
		rec_wallclock(r);
}

/* A snapshot of the rings: what they hold after the last one's, up to a
 * hit (mark: its MARK; until: its raw time, 0 for none) or now (mark
 * NULL); going_on: the process records on (--repeat, or a breakpoint's
 * hit: patch_rec_write()'s partial). */
static void patch_snapshot(struct rec *r, struct patch_rec *p, uint64_t time,
			   const struct mark_line *mark, uint64_t until, int going_on)
{
	rec_snapshot_begin(r, r->snap_no, time);
	if (r->dir_out) { /* a file of its own: whole */
		r->sout->source = "mt-record patch";
		rec_wallclock(r);
	}
	if (mark)
		rec_mark_line(r, mark);
	turned_marks(r, p, time);
	if (r->dir_out)
		patch_rings_rewind(&p->rings); /* each file its whole snapshot */
	patch_rec_write(p, r->sout, going_on, until);
	if (going_on)
		p->rings.lost = 0; /* a ring lapped between hits: a snapshot
				    * is what the ring holds then */
	rec_snapshot_end(r);
	r->snap_no++;
}

/* --repeat: the next queued hit of the trigger, said, with its MARK. */
static int queued_hit(struct rec *r, struct patch_rec *p, struct patch_hit *hit,
		      struct mark_line *mark)
{
	if (!r->o.trigger || r->o.repeat == 1 || !patch_rec_next_hit(p, hit))
		return 0;
	say_hit(r, hit->pid, hit->tid, hit->mono, hit->dur);
	hit_marks(r, hit, mark);
	return 1;
}

/* The libraries the process maps that the table has not looked at: their
 * walkers and the functions --functions chooses of them. */
static void add_fresh_libraries(struct rec *r, struct patch_rec *p)
{
	char **libs = mapped_libraries(&r->tgt), **fresh;
	struct patch_sel sel = { p, &r->tgt, "" };
	size_t k, n = 0;

	for (k = 0; libs[k]; k++)
		;
	fresh = xcalloc(k + 1, sizeof(*fresh));
	for (k = 0; libs[k]; k++)
		if (!patch_rec_has_file(p, libs[k]) && !patch_rec_own_library(libs[k]))
			fresh[n++] = libs[k];
	patch_rec_add_lib_walkers(p, &r->tgt, fresh);
	if (r->o.functions && n)
		patch_select(r, NULL, fresh, patch_add, patch_part, &sel, 0);
	/* the ranges of those with a function in the table, then the rest
	 * marked as looked at */
	patch_rec_add_neighbours(p, &r->tgt);
	for (k = 0; k < n; k++)
		patch_rec_saw_file(p, fresh[k]);
	free(fresh);
	free_paths(libs);
}

/*
 * Libraries a dlopen mapped (the runtime asks): their walkers and the
 * functions --functions chooses of them go in the table; once the
 * runtime prepared them, their entries are written with every thread of
 * the process stopped (in: opened on first need for a command).
 */
static void add_dlopened(struct rec *r, struct patch_rec *p, struct inject *in)
{
	if (patch_rec_dl_asked(p)) {
		add_fresh_libraries(r, p);
		patch_rec_dl_answer(p);
	}
	if (patch_rec_dl_prepared(p)) {
		static int warned;

		if ((in->mem >= 0 || !inject_open(in, r->tgt.pid, 1)) && inject_stop_all(in)) {
			patch_rec_commit(p, in);
			inject_release_all(in);
		} else if (errno != ESRCH && errno != ENOENT && !warned++) {
			warn("process %d: libraries it loads now stay untraced (ptrace: %s)",
			     (int)r->tgt.pid, strerror(errno));
		}
		patch_rec_dl_done(p);
		if (r->o.verbose) /* what the libraries it mapped gave */
			patch_rec_list(p, patch_listed, 1);
		patch_listed = p->nfn;
	}
}

/* A trigger the patch left alone (too short, ...): a hardware breakpoint
 * or a uprobe at its address fires instead (trigger.h), as with the other
 * backends, the rings cut at the hit's time. */
struct patch_fallback {
	int chosen;               /* a breakpoint or a uprobe: chosen */
	int needed;               /* the trigger was left alone */
	int armed;
	struct trigger_run tg;
	struct mt_uprobe_hit hit; /* a hit patch_wait() left to patch_end() */
	int have;
};

/* Whether a breakpoint or a uprobe can fire for a trigger the patch left
 * alone (chosen once: a breakpoint where one fires here, else a uprobe). */
static int fallback_can(struct rec *r, struct patch_fallback *fb)
{
	if (!fb->chosen)
		choose_trigger_via(&r->tr, r->o.trigger_via);
	fb->chosen = 1;
	return !r->o.slower_than_ns &&
	       (r->tr.use_bp || (geteuid() == 0 && mt_uprobe_supported()));
}

/* Notes whether p's trigger was left alone, saying so and with what it
 * fires instead; dies (the command killed) when nothing can. */
static void fallback_need(struct rec *r, struct patch_rec *p, struct patch_fallback *fb)
{
	const char *why = patch_rec_trigger_status(p);

	if (!why)
		return;
	if (r->o.slower_than_ns) {
		patch_kill_child(r);
		die(MT_EXIT_DATA, "--trigger %s: left alone: %s (--slower-than times the "
		    "calls of a function the patch backend patched)", r->tr.name, why);
	}
	if (!fallback_can(r, fb)) {
		patch_kill_child(r);
		die(MT_EXIT_DATA, "--trigger %s: left alone: %s; nor can a breakpoint (%s) "
		    "or a uprobe (%s) fire instead", r->tr.name, why,
		    r->tr.via_note ? r->tr.via_note : "not chosen",
		    mt_uprobe_supported() ? "root only" : "no uprobe PMU in this kernel");
	}
	warn("--trigger %s: left alone by the patch backend (%s): %s fires instead",
	     r->tr.name, why, r->tr.use_bp ? "a hardware breakpoint" : "a uprobe");
	fb->needed = 1;
}

/* Arms the trigger: the patch's hook, or fb's (dies when it cannot). */
static void trigger_arm(struct rec *r, struct patch_rec *p, struct patch_fallback *fb)
{
	if (!fb->needed) {
		patch_rec_arm(p);
		return;
	}
	arm_trigger(&fb->tg, &r->tr, &r->tgt, MT_UPROBE_PROCESS, r->o.repeat != 1, 0);
	fb->armed = 1;
}

/* A breakpoint's or uprobe's hit: said, its MARK, its time in the records'
 * clock (the pass's until). */
static uint64_t fallback_hit(struct rec *r, struct patch_rec *p, const struct patch_fallback *fb,
			     const struct mt_uprobe_hit *h, struct mark_line *mark)
{
	say_hit(r, h->pid, h->tid, h->time, 0);
	mark->time = h->time;
	mark->ml = mt_mt_trigger(h->time, h->pid, h->tid, r->tr.addr, r->tr.name);
	mark->has_region = 0;
	trigger_hit_region(&r->tr, &fb->tg, h, mark);
	return patch_rec_raw_of(p, h->time);
}

/* A breakpoint's or uprobe's hit uh: without --repeat the rings frozen
 * and the hit left to patch_end(); with it, its snapshot. 1 when the
 * recording ends there (the last snapshot --repeat takes). */
static int fallback_take(struct rec *r, struct patch_rec *p, struct patch_fallback *fb,
			 const struct mt_uprobe_hit *uh)
{
	struct mark_line mark;
	uint64_t until;

	if (r->o.repeat == 1) {
		patch_rec_freeze(p);
		fb->hit = *uh;
		fb->have = 1;
		return 1;
	}
	until = fallback_hit(r, p, fb, uh, &mark);
	patch_snapshot(r, p, uh->time, &mark, until, 1);
	return r->o.repeat && r->snap_no >= r->o.repeat;
}

/* --repeat: the next queued call of the trigger, its snapshot taken: 0
 * when there is none, 1, or 2 when it was the last --repeat takes. */
static int queued_take(struct rec *r, struct patch_rec *p)
{
	struct mark_line mark;
	struct patch_hit qh;

	if (!queued_hit(r, p, &qh, &mark))
		return 0;
	patch_snapshot(r, p, qh.mono, &mark, qh.raw, 1);
	patch_rec_hit_taken(p);
	return r->o.repeat && r->snap_no >= r->o.repeat ? 2 : 1;
}

/* Disarms fb's breakpoint or uprobe, saying what hits it dropped. */
static void fallback_release(struct patch_fallback *fb)
{
	if (!fb->armed)
		return;
	if (trigger_dropped(&fb->tg))
		warn("%u trigger hits came faster than snapshots were taken: dropped",
		     trigger_dropped(&fb->tg));
	trigger_run_release(&fb->tg);
	fb->armed = 0;
}

/*
 * Until a signal, the process's end or the trigger's call (with --repeat
 * each call a snapshot, the recording going on, until the n-th): why it
 * ended. The trigger is armed once recording has run --arm-after. With
 * --full the rings drained into so every 10 ms meanwhile, each pass
 * written out at once (a reader downstream sees it then, and a write
 * that fails, a full disk or a reader gone, ends the recording then, the
 * patches put back first: not once 256 KiB have gathered, which a thread
 * that laps its ring between passes may never fill).
 */
static enum stop patch_wait(struct rec *r, struct patch_rec *p, struct stream_out *so,
			    struct inject *in, struct patch_fallback *fb)
{
	uint64_t start = now_mono();
	struct patch_hit hit;
	int armed = !r->o.arm_after_ns;
	struct mt_uprobe_hit uh;
	struct mark_line mark;
	struct stat st;
	/* a pipe's reader gone shows as POLLERR at once: the recording ends
	 * then, as a write would end it, without waiting for one */
	struct pollfd fds[2] = {
		{ fstat(r->out_fd, &st) || !S_ISFIFO(st.st_mode) ? -1 : r->out_fd, 0, 0 },
		/* the command's end wakes the wait: its snapshot comes then */
		{ target_end_fd(&r->tgt), POLLIN, 0 },
	};

	for (;;) {
		struct timespec ts = { 0, 10000000 };
		int q;

		if (trigger_seen(r, p, &hit, &mark))
			return STOP_TRIGGER; /* patch_end() takes it */
		if ((q = queued_take(r, p)) == 2)
			return STOP_TRIGGER; /* the n-th: taken */
		if (q)
			continue;
		if (rec_signal())
			return STOP_SIGNAL;
		if (!target_alive(&r->tgt))
			break;
		if (!armed && now_mono() - start >= r->o.arm_after_ns) {
			trigger_arm(r, p, fb);
			armed = 1;
		}
		if (fb->armed) { /* the trigger's wait is the loop's */
			if (trigger_wait(&fb->tg, 10, &r->wait_mask, &uh) &&
			    fallback_take(r, p, fb, &uh))
				return STOP_TRIGGER;
			if (poll(fds, 1, 0) > 0 && (fds[0].revents & POLLERR))
				die_pipe();
		} else if (ppoll(fds, 2, &ts, &r->wait_mask) > 0 && (fds[0].revents & POLLERR)) {
			die_pipe();
		}
		add_dlopened(r, p, in);
		budget_tick(r, p, in);
		if (r->o.full) {
			patch_rec_write(p, so, 1, 0);
			stream_out_flush(so);
		}
	}
	/* a hit just before the process ended; with --repeat, those queued
	 * (the process is gone: what its rings hold is all there is) */
	if (trigger_seen(r, p, &hit, &mark))
		return STOP_TRIGGER;
	for (;;) {
		int q;

		if (fb->armed && trigger_finish(&fb->tg, &r->wait_mask, &uh)) {
			if (fallback_take(r, p, fb, &uh))
				return STOP_TRIGGER;
			continue;
		}
		if (!(q = queued_take(r, p)))
			return STOP_EXIT;
		if (q == 2)
			return STOP_TRIGGER;
	}
}

/* What the rings hold still (all of it, without --full: the snapshot),
 * the trigger's MARK, the stream's end. */
static void patch_end(struct rec *r, struct patch_rec *p, struct stream_out *so, enum stop why,
		      struct patch_fallback *fb)
{
	struct mark_line mark;
	struct patch_hit ph;
	uint64_t hit;

	if (patch_rec_error(p))
		warn("the patch runtime failed while it ran: %s (libraries loaded then "
		     "ran untraced)", patch_rec_error(p));
	/* as the other backends' rounds (rounds.c): the last hit's snapshot;
	 * without a trigger, or at the end of a program that hit none, all
	 * the rings hold (with --full: the rest of everything); Ctrl+C with a
	 * trigger keeps only what hits took */
	if (why == STOP_TRIGGER && fb->have) {
		hit = fallback_hit(r, p, fb, &fb->hit, &mark);
		patch_snapshot(r, p, fb->hit.time, &mark, hit, 1);
	} else if (why == STOP_TRIGGER && r->o.repeat == 1 && trigger_seen(r, p, &ph, &mark)) {
		/* ends at the hit's record: one another thread took the time
		 * of after it, but wrote before it saw frozen, is left out */
		patch_snapshot(r, p, ph.mono, &mark, ph.raw, 0);
	} else if (r->o.full || !r->o.trigger || (why == STOP_EXIT && !r->snap_no))
		patch_snapshot(r, p, now_mono(), NULL, 0, 0);
	else if (why == STOP_SIGNAL)
		fprintf(stderr, r->snap_no ? "%s: interrupted: the %d snapshots taken are "
			"kept\n" : "%s: interrupted before the trigger fired: no snapshot\n",
			mt_progname(), r->snap_no);
	fallback_release(fb);
	budget_end(r, p);
	if (!r->dir_out)
		stream_out_finish(so);
	stream_out_release(so);
	r->sout = NULL;
	patch_rec_warnings(p);
	if (r->o.trigger && r->o.repeat != 1 && patch_rec_hits_dropped(p))
		warn("%u trigger hits came faster than snapshots were taken: dropped",
		     patch_rec_hits_dropped(p));
	if (why == STOP_SIGNAL && r->o.trigger && !r->snap_no && r->o.output && output_discard())
		warn("nothing recorded: %s left as it was", r->o.output);
}

/*
 * The patch backend (docs/patch.md): the command started with the
 * runtime preloaded, the table given once its libraries are mapped, its
 * records written out as one snapshot when it ends or on Ctrl+C.
 */
static void record_patch(struct rec *r)
{
	struct patch_rec p;
	const struct mt_symfile *sf;
	char *rt = patch_runtime_path(), *preload, *env[3], why[256], exe[PATH_MAX];
	struct stream_out so;
	struct inject in = INJECT_INIT;
	struct patch_fallback fb = { 0 };
	enum stop stopped;
	int note;

	patch_rec_init(&p, r->o.snapshot_bytes, -1);
	use_cache(&p);
	patch_rec_env(&p, rt, env, &preload);
	r->tgt.env = env;
	target_start_child(&r->tgt, r->cmd_out);
	close(p.memfd); /* the command has it */
	p.memfd = -1;
	if (!realpath(r->tgt.exe, exe)) {
		patch_kill_child(r);
		die_errno(MT_EXIT_DATA, "%s", r->tgt.exe);
	}
	read_symbols(&r->tgt, &sf, exe, 1);
	if (patch_rec_refuses(exe, sf->t.is_go, why, sizeof(why))) {
		patch_kill_child(r);
		die(MT_EXIT_DATA, "%s: %s", exe, why);
	}
	if (r->o.trigger)
		resolve_trigger(&r->tr, &r->tgt);
	note = r->cmd_out == STDERR_FILENO && r->o.command_fd != 2;
	target_release_child(&r->tgt);
	if (patch_rec_wait_loaded(&p, patch_keep_waiting, r)) {
		int ended = !target_alive(&r->tgt);

		patch_kill_child(r);
		if (rec_signal())
			die(MT_EXIT_SYSTEM, "interrupted before %s started: no snapshot",
			    r->tgt.cmd[0]);
		die(MT_EXIT_DATA, "%s %s without the patch runtime (%s) starting in "
		    "it: a program that ignores LD_PRELOAD (set-user-ID, or one that "
		    "clears its environment) cannot be patched", r->tgt.cmd[0],
		    ended ? "ended" : "ran 10 s", rt);
	}
	patch_functions(r, &p, exe, NULL);
	patch_trigger(r, &p);
	if (r->o.trigger)
		patch_rec_hold(&p); /* a fallback for it armed before it runs on */
	p.h->drain = r->o.full; /* slots taken again only once read out */
	if (patch_rec_go(&p, patch_keep_waiting, r) && rec_signal()) {
		patch_kill_child(r);
		die(MT_EXIT_SYSTEM, "interrupted while %s was being patched: no snapshot",
		    r->tgt.cmd[0]);
	}
	say_patched(r, &p);
	/* a trigger left alone: its breakpoint or uprobe armed before the
	 * command goes on */
	fallback_need(r, &p, &fb);
	if (fb.needed && !r->o.arm_after_ns)
		trigger_arm(r, &p, &fb);
	patch_rec_run(&p);
	if (note)
		rec_stdout_note();
	budget_start(r, &p);
	patch_recording(r, r->tgt.pid);
	patch_begin(r, &so);
	stopped = patch_wait(r, &p, &so, &in, &fb);
	inject_close(&in);
	if (r->tgt.status_known && WIFSIGNALED(r->tgt.status))
		warn("%s was killed by signal %d (%s)", r->tgt.cmd[0], WTERMSIG(r->tgt.status),
		     strsignal(WTERMSIG(r->tgt.status)));
	else if (r->tgt.status_known && WEXITSTATUS(r->tgt.status))
		warn("%s exited with status %d", r->tgt.cmd[0], WEXITSTATUS(r->tgt.status));
	patch_end(r, &p, &so, stopped, &fb);
	patch_rec_release(&p);
	r->tgt.env = NULL;
	free(preload);
	free(rt);
}

/* Functions of the process's C library (or, before glibc 2.34, of its
 * libpthread or libdl): each found goes to out[k] where it is 0. */
static void libc_functions(const struct target *tgt, const char *const *names, size_t n,
			   uint64_t *out)
{
	static const char *const libs[] = { "libc.so.", "libpthread.so.", "libdl.so." };
	size_t k, j, left = 0;

	for (j = 0; j < n; j++)
		left += !out[j];
	for (k = 0; k < sizeof(libs) / sizeof(libs[0]) && left; k++)
		left -= target_symbols(tgt, libs[k], names, n, out);
}

_Noreturn static void no_libc_function(pid_t pid, const char *name)
{
	die(MT_EXIT_DATA, "process %d: no %s in the libc it maps: the patch backend "
	    "attaches through glibc's", (int)pid, name);
}

/* The C library functions the loader calls (patch-load.h), and dlopen's
 * flags. */
static uint64_t loader_functions(const struct target *tgt, uint64_t fns[PL_NFNS])
{
	static const char *const names[PL_NFNS] = {
		"pthread_create", "pthread_detach", "pthread_self", "dlopen", "dlsym"
	};
	/* glibc before 2.34 without libdl loaded: libc's own, which want
	 * __RTLD_DLOPEN */
	static const char *const old[2] = { "__libc_dlopen_mode", "__libc_dlsym" };
	uint64_t flags = RTLD_NOW | RTLD_LOCAL, inlibc[2] = { 0, 0 };
	int k;

	memset(fns, 0, PL_NFNS * sizeof(*fns));
	libc_functions(tgt, names, PL_NFNS, fns);
	if (!fns[PL_DLOPEN] || !fns[PL_DLSYM])
		libc_functions(tgt, old, 2, inlibc);
	if (!fns[PL_DLOPEN] && (fns[PL_DLOPEN] = inlibc[0]))
		flags |= 0x80000000;
	if (!fns[PL_DLSYM])
		fns[PL_DLSYM] = inlibc[1];
	for (k = 0; k < PL_NFNS; k++)
		if (!fns[k])
			no_libc_function(tgt->pid, names[k]);
	return flags;
}

/* The memory, once the loader's runtime made its memfd: taken from the
 * process (pidfd_getfd), checked, sized and sealed, its header written;
 * an earlier session in place undone first (or refused while its
 * mt-record runs). */
static void attach_memory(struct rec *r, struct patch_load *l, struct patch_rec *p)
{
	pid_t pid = r->tgt.pid;
	uint32_t ph = patch_load_wait(l, MTPB_P_NONE, 20000);
	char why[256];
	int fd;

	if (ph == MTPB_P_STALE) {
		pid_t owner = patch_rec_stale_owner(l->in, l->b.stale);

		if (owner) {
			patch_load_answer(l, MTPB_A_REFUSED);
			die(MT_EXIT_SYSTEM, "process %d is being recorded by another mt-record "
			    "(pid %d)", (int)pid, (int)owner);
		}
		if (!inject_stop_all(l->in)) {
			patch_load_answer(l, MTPB_A_REFUSED);
			die_errno(MT_EXIT_SYSTEM, "process %d: its threads could not all be "
				  "stopped to undo an earlier mt-record's patches; not attached",
				  (int)pid);
		} else {
			int u = patch_rec_undo_stale(l->in, l->b.stale);

			inject_release_all(l->in);
			if (u)
				patch_load_answer(l, MTPB_A_REFUSED);
			if (u == -2)
				die(MT_EXIT_DATA, "process %d: what an earlier mt-record left there "
				    "makes no sense (the process wrote it?): it cannot be undone; "
				    "nothing was changed", (int)pid);
			if (u)
				die(MT_EXIT_SYSTEM, "process %d: the patches of an earlier "
				    "mt-record, killed, could not all be put back: it runs on with "
				    "those left (their records go nowhere); not attached", (int)pid);
			warn("process %d: undid the patches of an earlier mt-record, killed",
			     (int)pid);
		}
		patch_load_answer(l, MTPB_A_UNDONE);
		ph = patch_load_wait(l, MTPB_P_STALE, 10000);
	}
	if (ph != MTPB_P_MEMFD) {
		if (rec_signal())
			die(MT_EXIT_SYSTEM, "interrupted while the patch runtime loaded into "
			    "process %d: nothing was patched", (int)pid);
		if ((l->b.loader & 0xff) == MTPB_L_FAILED)
			die(MT_EXIT_SYSTEM, "process %d could not load %s (dlopen failed: "
			    "another C library, or the file not readable to it)", (int)pid,
			    l->runtime);
		die(MT_EXIT_SYSTEM, "process %d: the patch runtime did not start in 20 s "
		    "(loader at %u, phase %u): nothing was patched", (int)pid, l->b.loader,
		    l->b.phase);
	}
	if ((fd = inject_getfd(l->in, l->b.memfd)) < 0)
		die_errno(MT_EXIT_SYSTEM, "process %d: pidfd_getfd of the runtime's memory",
			  (int)pid);
	if (patch_rec_check_memfd(fd, why, sizeof(why))) {
		patch_load_answer(l, MTPB_A_REFUSED);
		die(MT_EXIT_DATA, "process %d: the runtime's memory is %s: refused", (int)pid,
		    why);
	}
	patch_rec_init(p, r->o.snapshot_bytes, fd);
	use_cache(p);
	patch_load_answer(l, MTPB_A_SIZED);
	if (patch_rec_wait_loaded(p, patch_keep_waiting, r))
		die(MT_EXIT_SYSTEM, "%s while the patch runtime started in process %d: "
		    "nothing was patched", rec_signal() ? "interrupted" : "no answer",
		    (int)pid);
}

/* The process that traces pid (a debugger, strace), "PID (COMM)", into
 * buf; "" when none. */
static void tracer_of(pid_t pid, char *buf, size_t len)
{
	char path[64], comm[32] = "";
	FILE *f;
	int t;

	/* its main thread's tracer: the process's */
	if (!inject_thread_state(pid, pid, &t) || t <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", t);
	if ((f = fopen(path, "re"))) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, len, "%d (%s)", t, comm);
}

/*
 * After a clean undo, every thread held: the memory the process shares
 * with mt-record unmapped there, the runtime's pointer to it cleared (the
 * next attach starts anew, reusing the stubs' memory), unless a thread
 * uses it still (a dlopen's offer).
 */
static void detach_memory(struct patch_load *l, struct patch_rec *p)
{
	uint64_t zero = 0, self = p->h->self, at = p->h->shm_at;

	if (p->undo_failed || __atomic_load_n(&p->h->busy, __ATOMIC_ACQUIRE) || !self ||
	    !at || (at & 7) || self & 4095)
		return;
	if (inject_write(l->in, at, &zero, sizeof(zero)))
		return;
	if (patch_load_unmap(l, self, p->size))
		warn("process %d: the memory it shared with mt-record could not be unmapped",
		     (int)l->in->pid);
}

/*
 * -p with the patch backend, from the entries' writing to their undoing:
 * the session that an exit meanwhile (a die() anywhere: a write error, a
 * full table) puts back first, as the undo at the end does.
 */
static struct {
	struct patch_rec *p;
	struct inject *in;
	struct patch_load *l;
} live;

/*
 * The end of a session: every thread held (another tracer may hold the
 * process now: said, not fatal), the patches and hooks undone, the
 * loader's pages freed, the memory unmapped, the threads let go; what
 * could not be put back said. 1; 0 when the process could not be stopped
 * (errno) or ended.
 */
static int patch_detach(struct patch_rec *p, struct inject *in, struct patch_load *l)
{
	in->soft = 1;
	if (!inject_stop_all(in))
		return 0;
	patch_rec_undo(p, in);
	patch_load_free(l);
	detach_memory(l, p);
	inject_release_all(in);
	if (p->undo_failed)
		warn("process %d: %u patched entries or return addresses could not be put "
		     "back (%u threads would not leave the hooks in 5 s, %u entries were "
		     "not as written, %u shadow stacks or return addresses could not be "
		     "read or written)", (int)in->pid, p->undo_failed, p->undo_threads,
		     p->undo_entries, p->undo_frames);
	return 1;
}

static void undo_at_exit(void)
{
	struct patch_rec *p = live.p;

	if (!p)
		return;
	live.p = NULL; /* once, whatever dies meanwhile */
	if (patch_detach(p, live.in, live.l)) {
		if (!p->undo_failed)
			warn("process %d: its patches put back", (int)live.in->pid);
	} else if (inject_alive(live.in)) {
		warn("process %d: cannot stop it to undo the patches: it runs on patched; "
		     "the next mt-record -p undoes them", (int)live.in->pid);
	}
}

/* The session (of record_patch_attach()'s frame) live: undone by an
 * exit until patch_unlive(). */
static void patch_live(struct patch_rec *p, struct inject *in, struct patch_load *l)
{
	static int registered;

	if (!registered++) {
		if (atexit(undo_at_exit))
			die(MT_EXIT_SYSTEM, "atexit");
		die_pipe_hook(undo_at_exit); /* the reader went away */
	}
	live.p = p;
	live.in = in;
	live.l = l;
}

static void patch_unlive(void)
{
	live.p = NULL;
}

/*
 * -p with the patch backend (docs/patch.md): a thread of the running
 * process, borrowed, starts a loader thread (patch-load.h), which loads
 * the runtime and makes the memory; the table written, the runtime
 * prepares the patches; every thread stopped, the entries are written; at
 * Ctrl+C or the process's end, every thread stopped again, the patches
 * and hooks are undone, the loader's pages freed, then the snapshot.
 */
static void record_patch_attach(struct rec *r)
{
	struct patch_rec p;
	struct inject in;
	struct patch_load l;
	const struct mt_symfile *sf;
	struct chosen chosen = { 0 };
	char *rt = patch_runtime_path(), why[256], exe[PATH_MAX], rtreal[PATH_MAX], link[64];
	uint64_t fns[PL_NFNS], dlflags;
	struct patch_fallback fb = { 0 };
	struct stream_out so;
	enum stop stopped;
	pid_t pid;

	if (inject_open(&in, r->tgt.pids[0], 0)) /* ptrace allowed: said first */
		die(MT_EXIT_DATA, "no process %d", (int)r->tgt.pids[0]);
	target_check_target(&r->tgt);
	if (r->o.trigger)
		resolve_trigger(&r->tr, &r->tgt);
	pid = r->tgt.pid;
	/* its name as the process sees it (its maps' name: realpath would
	 * resolve it in mt-record's namespace), the file read through
	 * /proc/PID/exe (target-open.h) */
	if (is_deleted(r->tgt.exe)) {
		errno = ENOENT;
		die_errno(MT_EXIT_DATA, "%s", r->tgt.exe);
	}
	snprintf(exe, sizeof(exe), "%s", r->tgt.exe);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (!realpath(rt, rtreal))
		die_errno(MT_EXIT_SYSTEM, "%s", rt);
	read_symbols(&r->tgt, &sf, exe, 1);
	if (patch_rec_refuses(link, sf->t.is_go, why, sizeof(why)))
		die(MT_EXIT_DATA, "%s: %s", exe, why);
	/* chosen once, before the process changes (nothing chosen is said
	 * then), and put in the table once the runtime's memory is there */
	patch_select(r, exe, NULL, chosen_add, chosen_part, &chosen, 1);
	dlflags = loader_functions(&r->tgt, fns);
	memset(&l, 0, sizeof(l));
	l.in = &in;
	l.keep_waiting = patch_keep_waiting;
	l.ctx = r;
	if (patch_load_start(&l, rtreal, fns, dlflags))
		die(MT_EXIT_SYSTEM, "interrupted before the patch runtime loaded into process "
		    "%d: nothing was changed", (int)pid);
	attach_memory(r, &l, &p);
	patch_functions(r, &p, exe, &chosen);
	chosen_release(&chosen);
	add_fresh_libraries(r, &p); /* mapped since the choice */
	patch_trigger(r, &p);
	p.h->drain = r->o.full; /* slots taken again only once read out */
	if (patch_rec_go(&p, patch_keep_waiting, r)) {
		if (patch_rec_error(&p))
			die(MT_EXIT_SYSTEM, "the patch runtime failed: %s", patch_rec_error(&p));
		die(MT_EXIT_SYSTEM, "%s while process %d's patches were prepared: nothing "
		    "was patched", rec_signal() ? "interrupted" : "no answer", (int)pid);
	}
	if (!inject_stop_all(&in)) {
		int e = errno;

		patch_rec_undo(&p, &in); /* nothing written: the session ended */
		errno = e;
		die_errno(MT_EXIT_SYSTEM, "process %d: its threads could not all be stopped "
			  "to write the patches: nothing was patched", (int)pid);
	}
	patch_rec_commit(&p, &in);
	if (patch_rec_trigger_status(&p) && !fallback_can(r, &fb)) {
		patch_rec_undo(&p, &in); /* no fallback: said below */
		patch_load_free(&l);
		inject_close(&in);
		fallback_need(r, &p, &fb); /* dies saying why */
	}
	patch_live(&p, &in, &l);
	inject_release_all(&in);
	say_patched(r, &p);
	fallback_need(r, &p, &fb);
	if (fb.needed && !r->o.arm_after_ns)
		trigger_arm(r, &p, &fb);
	budget_start(r, &p);
	patch_recording(r, pid);
	patch_begin(r, &so);
	stopped = patch_wait(r, &p, &so, &in, &fb);
	patch_unlive(); /* undone here */
	if (!patch_detach(&p, &in, &l) && inject_alive(&in)) {
		int e = errno;
		char tracer[32] = "";

		tracer_of(pid, tracer, sizeof(tracer));
		patch_rec_freeze(&p); /* what was recorded, read whole */
		warn("process %d: cannot stop it to undo the patches (ptrace: %s%s%s): it "
		     "runs on patched (its recording stopped); the next mt-record -p "
		     "undoes them", (int)pid, strerror(e),
		     *tracer ? "; traced by " : "", tracer);
	}
	inject_close(&in);
	patch_end(r, &p, &so, stopped, &fb);
	patch_rec_release(&p);
	free(rt);
}

/* A command, or -p's one process. */
static void record_patch_any(struct rec *r)
{
	if (r->tgt.cmd)
		record_patch(r);
	else
		record_patch_attach(r);
}

static void patch_check_options(const struct rec *r)
{
	if (!r->o.input && r->tgt.npids > 1)
		die(MT_EXIT_USAGE, "-p: the patch backend attaches to one process at a time");
	if (r->o.full && r->o.repeat != 1)
		die(MT_EXIT_USAGE, "--repeat takes a snapshot at each hit, --full keeps "
		    "everything: the patch backend does one or the other");

}

static void patch_check_machine(const struct rec *r)
{
	(void)r;
#if !defined(__x86_64__)
	die(MT_EXIT_SYSTEM, "the patch backend patches x86-64 code only "
	    "(arm64: designed for, not done)");
#endif
}

/* --dry-run: the runtime preloaded, the functions it would patch. */
static void patch_dry_run(struct rec *r)
{
	const struct rec_opts *o = &r->o;
	char *rt = mt_lib_path("libmt-patch.so");

	printf("# patch backend: LD_PRELOAD=%s patches the functions of "
	       "%s%s matching %s in the command; no perf command\n",
	       rt ? rt : "libmt-patch.so (not found)", r->tgt.exe ? r->tgt.exe :
	       "the program", o->functions ? " and of the shared libraries it maps" : "",
	       o->functions ? o->functions : "(default)");
	free(rt);
}

const struct rec_backend rec_backend_patch = {
	.name = "patch",
	.cannot = patch_cannot,
	.check_options = patch_check_options,
	.check_machine = patch_check_machine,
	.dry_run = patch_dry_run,
	.record = record_patch_any,
	.after = patch_after,
};
