/*
 * The uprobe and patch backends' choice of functions: --functions REGEX, or the
 * program's own functions, over the symbols of the executable and of
 * shared libraries. See functions.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "die.h"
#include "err.h"
#include "functions.h"
#include "regex.h"
#include "xalloc.h"
#include "banned.h"

void die_up(const struct mt_uprobe *u, int err)
{
	if (err == MT_EIO && (errno == EACCES || errno == EPERM))
		die(MT_EXIT_SYSTEM, "%s: %s: uprobes (the uprobe backend and "
		    "triggers) need root or CAP_SYS_ADMIN; without them use "
		    "--backend sample and no --trigger", u->what, strerror(errno));
	if (err == MT_EIO)
		die(MT_EXIT_SYSTEM, "%s: %s", u->what, strerror(errno));
	die_mt(err, "%s", u->what);
}

void fn_names_release(struct fn_names *n)
{
	while (n->n)
		free(n->v[--n->n]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

struct fn_sel {
	const struct fn_sink *sink;
	const struct fn_query *q;
	struct mt_regex re;   /* empty without --functions */
	int plt;              /* PLT entries are candidates: the regex names @plt */
	size_t n, skipped, lib_n, lib_skipped;
};

/*
 * Whether sel selects the function s: the regex matches its name as in
 * the file, demangled, or as perf prints it (one of the three:
 * demangle.h); without one, the program's own functions, which a
 * demangled name tells from the compiler's and the C library's start-up
 * code (whose names start with '_'), and every function only an FDE shows
 * (the start-up code has none, or one that says it is not called).
 */
static int selected(const struct fn_sel *sel, const struct mt_sym *s)
{
	const char *name = s->name;
	char *dm;
	int own;

	if (sel->re.re)
		return mt_demangle_match(&sel->re, name, NULL);
	if (s->bind == MT_SYM_FDE)
		return 1;
	if (!strcmp(name, "frame_dummy") || strstr(name, "register_tm_clones"))
		return 0;
	dm = mt_demangle(name, MT_DEMANGLE_PERF);
	own = (dm ? dm : name)[0] != '_';
	free(dm);
	return own;
}

/* Of the symbols at the address of t->v[i] (a run: sorted by address),
 * the one perf names the function by. */
static const struct mt_sym *perf_alias(const struct mt_symtab *t, size_t i)
{
	const struct mt_sym *best = &t->v[i];
	size_t k = i;

	while (k > 0 && t->v[k - 1].addr == best->addr)
		k--;
	for (; k < t->n && t->v[k].addr == t->v[i].addr; k++)
		if (t->v[k].bind != MT_SYM_PLT && t->v[k].bind != MT_SYM_JIT &&
		    mt_sym_better(&t->v[k], best))
			best = &t->v[k];
	return best;
}

const char *fn_part(const struct mt_sym *s, uint64_t reach)
{
	if (s->bind == MT_SYM_FDE_PART)
		return "not entered by a call, as its FDE (.eh_frame) says: a part split "
		       "off a function, entered by a jump, or an entry point";
	if (mt_sym_name_is_part(s->name))
		return "a part split off a function (.cold), entered by a jump, not a call";
	if (s->addr < reach)
		return "inside the bytes of the function before it, entered by a jump, not a call";
	return NULL;
}

/* Whether t holds libgcc's unwinder (libgcc_s; an executable that links
 * it statically and exports it): its functions without symbols may be
 * uw_init_context_1, which reads its own return address (a return hook
 * there leaves the unwinder lost: std::terminate). */
static int holds_unwinder(const struct mt_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].bind != MT_SYM_PLT && !strcmp(t->v[i].name, "_Unwind_RaiseException"))
			return 1;
	return 0;
}

/* Probe the functions of one file that sel selects. */
static void probe_file(const char *path, int is_exe, struct fn_sel *sel)
{
	const struct fn_query *q = sel->q;
	const struct mt_symfile *sf;
	const struct mt_symtab *t;
	uint64_t last = UINT64_MAX, here = 0, here_end = 0, reach = 0;
	size_t i, before = sel->n;
	char *file = NULL; /* what opens it: files->open_path() */
	size_t exe_max = q->exe_max ? q->exe_max : FN_DEFAULT_MAX;
	size_t lib_max = q->lib_max ? q->lib_max : FN_LIBRARY_MAX;
	size_t unnamed = 0;
	int unwinder;

	if (q->files->read_symbols(q->files->ctx, &sf, path, is_exe))
		return; /* a library that cannot be read: not probed */
	t = &sf->t;
	unwinder = holds_unwinder(t);
	for (i = 0; i < t->n; i++) {
		const struct mt_sym *s = &t->v[i];
		const char *part;

		if (s->bind == MT_SYM_PLT || s->bind == MT_SYM_JIT || !s->addr)
			;
		else if (s->addr != here) { /* where the functions before reach */
			reach = here_end > reach ? here_end : reach;
			here = s->addr;
			here_end = s->addr + s->size;
		} else if (s->addr + s->size > here_end) {
			here_end = s->addr + s->size;
		}
		if ((s->bind == MT_SYM_PLT && !sel->plt) || s->bind == MT_SYM_JIT ||
		    !s->addr || s->addr == last)
			continue;
		if (q->skip_path && s->addr == q->skip_addr && !strcmp(path, q->skip_path))
			continue; /* the trigger's own engine probes it */
		if (!selected(sel, s))
			continue;
		if (unwinder && (s->bind == MT_SYM_FDE || s->bind == MT_SYM_FDE_PART)) {
			unnamed++;
			continue;
		}
		if (s->bind != MT_SYM_PLT && (part = fn_part(s, reach))) {
			last = s->addr;
			if (sel->sink->part)
				sel->sink->part(sel->sink->ctx, path, s, part);
			continue;
		}
		if (!sel->re.re && sel->n >= exe_max) {
			sel->skipped++;
			continue;
		}
		if (!is_exe && sel->lib_n >= lib_max) {
			sel->lib_skipped++;
			continue;
		}
		last = s->addr;
		if (!file)
			file = q->files->open_path(q->files->ctx, path);
		sel->sink->add(sel->sink->ctx, path, file, s, perf_alias(t, i));
		if (q->names) {
			struct fn_names *nm = q->names;

			grow_or_die(&nm->v, &nm->cap, nm->n, sizeof(*nm->v));
			nm->v[nm->n++] = xstrdup(s->name);
		}
		sel->n++;
		sel->lib_n += !is_exe;
	}
	if (unnamed)
		warn("%s: left out %zu function%s that only .eh_frame shows: the file holds "
		     "libgcc's unwinder, whose unnamed uw_init_context_1 reads its own return "
		     "address", path, unnamed, unnamed == 1 ? "" : "s");
	if (!is_exe && sel->n > before && sel->sink->uprobes)
		warn("probing %zu function%s of the shared library %s: every "
		     "process that maps it takes their traps while recording (their "
		     "events are dropped)", sel->n - before,
		     sel->n - before == 1 ? "" : "s", path);
	free(file);
}

size_t fn_select(const struct fn_sink *sink, const struct fn_query *q)
{
	struct fn_sel sel = { sink, q, MT_REGEX_INIT, 0, 0, 0, 0, 0 };

	if (q->regex)
		mt_regex_option(&sel.re, "--functions", q->regex);
	/* a call through the PLT is a second call of its function: only a
	 * regex that asks for them (read@plt) chooses PLT entries */
	sel.plt = q->regex && strstr(q->regex, "@plt");
	if (q->exe)
		probe_file(q->exe, 1, &sel);
	if (sel.re.re && q->libs) {
		size_t k;

		for (k = 0; q->libs[k]; k++)
			probe_file(q->libs[k], 0, &sel);
	}
	if (sel.skipped)
		warn("%s the first %zu functions of %s; %zu more left out: "
		     "choose with --functions REGEX", sink->uprobes ? "probing" :
		     "tracing", sel.n, q->exe, sel.skipped);
	if (sel.lib_skipped)
		warn("%s %zu functions of shared libraries; %zu more that "
		     "--functions matches left out", sink->uprobes ? "probing" :
		     "tracing", q->lib_max ? q->lib_max : (size_t)FN_LIBRARY_MAX,
		     sel.lib_skipped);
	mt_regex_release(&sel.re);
	return sel.n;
}

/* fn_add_functions()'s sink: entry and return probes */
static void uprobe_add(void *ctx, const char *path, const char *open,
		       const struct mt_sym *s, const struct mt_sym *alias)
{
	struct mt_uprobe *u = ctx;
	int err;

	(void)path;
	(void)alias; /* the probe is named as the selection matched it */
	err = mt_uprobe_add(u, open, s->name, s->addr, MT_UPROBE_ENTRY | MT_UPROBE_RETURN);
	if (err < 0)
		die_up(u, err);
}

size_t fn_add_functions(struct mt_uprobe *u, const struct fn_query *q)
{
	struct fn_sink sink = { uprobe_add, u, NULL, 1 };

	return fn_select(&sink, q);
}
