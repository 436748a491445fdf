/*
 * mt-symbols: the function symbols of ELF files or of a running process,
 * with their demangled names and source lines; filter them by name, pick
 * one with fzf, or resolve an address to name+offset.
 * See docs/mt-symbols.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "demangle.h"
#include "die.h"
#include "err.h"
#include "dwline.h"
#include "procsyms.h"
#include "quote.h"
#include "regex.h"
#include "spawn.h"
#include "xalloc.h"
#include "banned.h"

#define USAGE "usage: mt-symbols [--json] [--lines] [--pick] [--match regex] " \
	"[--exact name] [--addr addr] [--debug-dir dir] [-p pid] [file ...]\n"

/* One ELF file (or a process's mapping of one, or its perf map). */
struct obj {
	char *file;     /* the name printed */
	char *shown;    /* file as messages show it (mt_quote): a path from
			 * a process's maps may hold any byte */
	struct mt_procfile *pf; /* with -p, the process's file, which holds
			 * the symbols; else NULL */
	struct mt_symfile own;  /* the symbols of the others */
	uint64_t bias;  /* runtime address - file address (with -p) */
	uint64_t start, end; /* its mapping (with -p): for --addr */
	int jit;        /* a perf map */
	int vdso;       /* read from the process's memory */
	struct mt_dwlines *dl;
};

static struct mt_procsyms proc = MT_PROCSYMS_INIT; /* with -p */

static struct mt_symfile *sym(struct obj *o)
{
	return o->pf ? &o->pf->sym : &o->own;
}

static int json, multi, lines, pick, first_obj = 1;
static pid_t pid;
static const char **debug_dirs;
static size_t n_debug_dirs, debug_dirs_cap;
static FILE *pick_out; /* fzf's standard input */
static const char *exact;
static struct mt_regex match = MT_REGEX_INIT;
static uint64_t *addrs;
static size_t n_addrs, addrs_cap;

/* Whether the symbol is listed: --exact and --match by any of its names
 * (demangle.h); shown is its demangled name. */
static int wanted(const char *mangled, const char *shown)
{
	if (exact && !mt_demangle_is(mangled, shown, exact))
		return 0;
	if (match.re && !mt_demangle_match(&match, mangled, shown))
		return 0;
	return 1;
}

static void json_str(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void json_begin(void)
{
	fputs(first_obj ? "[\n" : ",\n", stdout);
	first_obj = 0;
}

/* The source line of the file address a, or NULL. */
static const char *line_of(struct obj *o, uint64_t a, int *line)
{
	const char *file;

	if (!o->dl || mt_dwlines_lookup(o->dl, a, &file, line) != 0)
		return NULL;
	return file;
}

static void json_fields(struct obj *o, const struct mt_sym *s,
			const char *shown)
{
	const char *src;
	int line;

	fputs("{\"file\":", stdout);
	json_str(o->file);
	printf(",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"binding\":\"%s\","
	       "\"name\":", s->addr + o->bias, s->size, mt_sym_bind_name(s->bind));
	json_str(s->name);
	fputs(",\"demangled\":", stdout);
	json_str(shown);
	if (lines && (src = line_of(o, s->addr, &line)) != NULL) {
		fputs(",\"source\":", stdout);
		json_str(src);
		printf(",\"line\":%d", line);
	}
}

/* The tab-separated line of a symbol, to f. */
static void text_line(FILE *f, struct obj *o, const struct mt_sym *s,
		      const char *shown)
{
	/* by hand, not printf: a third of a listing's time otherwise */
	char num[48], *p = num + sizeof(num);
	uint64_t a = s->addr + o->bias, z = s->size;

	*--p = '\t';
	do
		*--p = (char)('0' + z % 10);
	while (z /= 10);
	*--p = '\t';
	do
		*--p = "0123456789abcdef"[a & 15];
	while (a >>= 4);
	*--p = 'x';
	*--p = '0';
	if (multi) {
		fputs_unlocked(o->file, f);
		putc_unlocked('\t', f);
	}
	fwrite_unlocked(p, 1, (size_t)(num + sizeof(num) - p), f);
	fputs_unlocked(mt_sym_bind_name(s->bind), f);
	putc_unlocked('\t', f);
	fputs_unlocked(s->name, f);
	putc_unlocked('\t', f);
	fputs_unlocked(shown, f);
	if (lines) {
		int line;
		const char *src = line_of(o, s->addr, &line);

		if (src)
			fprintf(f, "\t%s:%d", src, line);
		else
			fputs("\t-", f);
	}
	putc_unlocked('\n', f);
}

static void print_sym(struct obj *o, const struct mt_sym *s, const char *shown)
{
	if (pick) {
		/* what fzf shows, then the line printed if it is picked */
		fprintf(pick_out, "%s\t", shown);
		text_line(pick_out, o, s, shown);
	} else if (json) {
		json_begin();
		json_fields(o, s, shown);
		putchar('}');
	} else {
		text_line(stdout, o, s, shown);
	}
}

static void list(struct obj *o)
{
	const struct mt_symtab *t = &sym(o)->t;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct mt_sym *s = &t->v[i];
		char *dm = mt_demangle(s->name, MT_DEMANGLE_FULL);
		const char *shown = dm ? dm : s->name;

		if (wanted(s->name, shown))
			print_sym(o, s, shown);
		free(dm);
		if (pick && ferror(pick_out))
			return; /* fzf is gone: the choice was made */
	}
}

/* Print where the runtime (or file) address a is; 0, or 1 when it is in
 * no symbol of o. */
static int resolve_one(struct obj *o, uint64_t a)
{
	const struct mt_sym *s = mt_symtab_lookup(&sym(o)->t, a - o->bias);
	const char *shown, *src = NULL;
	char *dm;
	int line = 0;

	if (!s)
		return 1;
	dm = mt_demangle(s->name, MT_DEMANGLE_FULL);
	shown = dm ? dm : s->name;
	if (lines)
		src = line_of(o, a - o->bias, &line);
	if (json) {
		json_begin();
		json_fields(o, s, shown);
		printf(",\"at\":\"0x%" PRIx64 "\",\"offset\":\"0x%" PRIx64 "\"",
		       a, a - o->bias - s->addr);
		if (src) {
			fputs(",\"at_source\":", stdout);
			json_str(src);
			printf(",\"at_line\":%d", line);
		}
		putchar('}');
	} else {
		if (multi)
			printf("%s\t", o->file);
		printf("%s+0x%" PRIx64, shown, a - o->bias - s->addr);
		if (lines) {
			if (src)
				printf("\t%s:%d", src, line);
			else
				fputs("\t-", stdout);
		}
		putchar('\n');
	}
	free(dm);
	return 0;
}

/* --addr over the loaded objects; returns the exit status. */
static int resolve(struct obj *objs, size_t nobjs)
{
	size_t i, k;
	int status = MT_EXIT_OK;

	for (i = 0; i < n_addrs; i++) {
		int found = 0;

		for (k = 0; k < nobjs && !found; k++) {
			struct obj *o = &objs[k];

			if (!sym(o)->t.n)
				continue;
			/* with -p, an address belongs to the file mapped there */
			if (o->end && !o->jit &&
			    (addrs[i] < o->start || addrs[i] >= o->end))
				continue;
			found = !resolve_one(o, addrs[i]);
		}
		if (!found) {
			if (pid)
				warn("process %d: 0x%" PRIx64 ": in no function symbol",
				     (int)pid, addrs[i]);
			else
				warn("%s: 0x%" PRIx64 ": in no function symbol",
				     nobjs == 1 ? objs[0].shown : "(all files)",
				     addrs[i]);
			status = MT_EXIT_DATA;
		}
	}
	return status;
}

/* What became of the debug file and DWARF of o, read without error. */
static void debug_and_lines(struct obj *o)
{
	struct mt_symfile *f = sym(o);
	char q[MT_QUOTE_SIZE(PATH_MAX)];
	int err;

	if (f->debug_err)
		warn("%s: debug file %s: %s: not used", o->shown,
		     mt_quote_str(q, sizeof(q), f->debug),
		     f->debug_err == MT_EMISMATCH ? "of another build" :
		     mt_strerror(f->debug_err));
	if (f->t.fde_err)
		warn("%s: .eh_frame: %s at byte %zu: the functions without symbols "
		     "are not listed", o->shown, mt_strerror(f->t.fde_err), f->t.fde_bad_off);
	if (!lines || f->dwfd < 0)
		return;
	err = mt_dwlines_open(&o->dl, f->dwfd);
	if (err == MT_ENOMEM)
		die_mt(err, "%s", o->shown);
}

/* A perf map's symbols. */
static int load_jit(struct obj *o)
{
	size_t bad = 0;
	int fd = open(o->file, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", o->shown);
	n = mt_symtab_read_perfmap(&o->own.t, fd, &bad);
	close(fd);
	if (n == MT_ESYNTAX) {
		warn("%s:%zu: not a perf map line (START SIZE NAME)", o->shown, bad);
		return MT_EXIT_DATA;
	}
	if (n < 0)
		die_mt(n, "%s", o->shown);
	return MT_EXIT_OK;
}

/* Read o's symbols. Returns the exit status for this file; dies on a
 * system error. */
static int load(struct obj *o)
{
	unsigned flags = lines ? MT_SYMFILE_DWARF : 0;
	char q[MT_QUOTE_SIZE(PATH_MAX)];
	int fd, n;

	if (o->jit)
		return load_jit(o);
	if (o->vdso) {
		n = mt_procsyms_load(&proc, (size_t)(o->pf - proc.files), NULL, 0, 0);
		if (n == MT_ENOMEM)
			die(MT_EXIT_SYSTEM, "out of memory");
		if (n < 0)
			warn("process %d: [vdso]: cannot be read: %s", (int)pid,
			     mt_strerror(n));
		o->bias = o->pf->bias;
		return MT_EXIT_OK; /* the rest is still worth listing */
	}
	if (o->pf) {
		n = mt_procsyms_load(&proc, (size_t)(o->pf - proc.files), debug_dirs,
				     n_debug_dirs, flags);
		if (n == MT_ENOENT)
			die_errno(MT_EXIT_SYSTEM, "%s", o->shown);
	} else {
		fd = open(o->file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", o->shown);
		n = mt_symfile_read(&o->own, fd, o->file, debug_dirs, n_debug_dirs,
				    flags);
		close(fd);
	}
	switch (n) {
	case MT_EMAGIC:
		warn("%s: not an ELF file", o->shown);
		return MT_EXIT_DATA;
	case MT_ECORRUPT:
		warn("%s: malformed ELF file", o->shown);
		return MT_EXIT_DATA;
	case MT_ENOMEM:
		die_mt(n, "%s", sym(o)->debug ?
		       mt_quote_str(q, sizeof(q), sym(o)->debug) : o->shown);
	default:
		if (n < 0)
			die_mt(n, "%s", o->shown);
	}
	debug_and_lines(o);
	if (!sym(o)->t.n) {
		warn("%s: no function symbols%s", o->shown,
		     sym(o)->t.debuglink || sym(o)->t.build_id_len ?
		     " (stripped; its debug file was not found: see --debug-dir)" :
		     "");
		return MT_EXIT_DATA;
	}
	return MT_EXIT_OK;
}

static void unload(struct obj *o)
{
	mt_dwlines_free(o->dl);
	mt_symfile_release(&o->own);
	free(o->file);
	free(o->shown);
}

static struct obj *objs;
static size_t nobjs, objs_cap;

static struct obj *new_obj(const char *file)
{
	struct obj *o;

	grow_or_die(&objs, &objs_cap, nobjs, sizeof(*objs));
	o = &objs[nobjs++];
	memset(o, 0, sizeof(*o));
	mt_symfile_init(&o->own);
	o->file = xstrdup(file);
	o->shown = xmalloc(MT_QUOTE_SIZE(strlen(file)));
	mt_quote_str(o->shown, MT_QUOTE_SIZE(strlen(file)), file);
	return o;
}

/*
 * The executable mappings of process pid, one object per file (its first
 * executable mapping gives the load bias), then [vdso], then the perf map
 * of a JIT if there is one.
 */
static void add_process(void)
{
	char path[64];
	size_t first = nobjs, k;
	struct stat st;
	int n = mt_procsyms_read(&proc, pid);

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (n == MT_ENOENT && errno == ENOENT)
		die(MT_EXIT_DATA, "no such process: %d", (int)pid);
	if (n == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (n < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	for (k = 0; k < proc.nfiles; k++) {
		struct mt_procfile *f = &proc.files[k];
		struct obj *o;

		/* not anonymous (JIT: the perf map) nor [vsyscall] */
		if (!f->vdso && f->path[0] != '/')
			continue;
		o = new_obj(f->path);
		o->pf = f;
		o->vdso = f->vdso;
		o->start = f->start;
		o->end = f->end;
	}
	if (nobjs == first)
		die(MT_EXIT_DATA, "process %d: no executable mappings (a kernel thread?)",
		    (int)pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	if (stat(path, &st) == 0)
		new_obj(path)->jit = 1;
}

/* A file mapped by the process: the bias from its mapping, and a mapping
 * end that covers all its segments (for --addr). */
static void place(struct obj *o)
{
	if (!o->pf->placed) {
		warn("%s: mapped from offset 0x%" PRIx64 ", in no segment: "
		     "addresses not relocated", o->shown, o->pf->pgoff);
		return;
	}
	o->bias = o->pf->bias;
	o->end = o->pf->code_end;
}

static struct mt_fzf fzf;

/* Start fzf: candidates go to pick_out. */
static void start_fzf(void)
{
	char *argv[] = { "fzf", "--delimiter=\\t", "--with-nth=1",
			 "--prompt=function> ", "--no-multi", NULL };

	pick_out = mt_fzf_start(&fzf, argv);
	if (!pick_out)
		die(MT_EXIT_SYSTEM, "--pick needs fzf, which is not installed "
		    "(Debian, Ubuntu: apt install fzf); or name the function "
		    "with --exact NAME");
}

/* Wait for fzf and print the line of the picked symbol. */
static int finish_fzf(void)
{
	char buf[65536];
	ssize_t len = mt_fzf_finish(&fzf, buf, sizeof(buf));
	char *tab, *nl;

	if (len < 0)
		die_errno(MT_EXIT_SYSTEM, "reading fzf's choice");
	if (WIFEXITED(fzf.s.status) && WEXITSTATUS(fzf.s.status) == 127)
		die(MT_EXIT_SYSTEM, "fzf could not be run");
	/* cancelled (Esc, Ctrl+C), or killed: the user knows, and the
	 * caller (mt-record) tells it from nothing matched */
	if (WIFEXITED(fzf.s.status) && WEXITSTATUS(fzf.s.status) == MT_EXIT_CANCELLED)
		return MT_EXIT_CANCELLED;
	if (WIFSIGNALED(fzf.s.status))
		return 128 + WTERMSIG(fzf.s.status);
	nl = strchr(buf, '\n');
	tab = strchr(buf, '\t');
	if (!len || !tab || !nl || tab > nl) {
		warn("nothing picked");
		return MT_EXIT_DATA;
	}
	*nl = '\0';
	puts(tab + 1); /* the first line, should fzf print several */
	return MT_EXIT_OK;
}

static void add_addr(const char *arg)
{
	const char *p = arg;
	char *end;
	unsigned long long v;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	errno = 0;
	v = strtoull(p, &end, 16);
	if (end == p || *end || errno || *p == '-' || *p == '+' || *p == ' ')
		die(MT_EXIT_USAGE, "--addr %s: expected a hexadecimal address", arg);
	grow_or_die(&addrs, &addrs_cap, n_addrs, sizeof(*addrs));
	addrs[n_addrs++] = v;
}

static void set_pid(const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || v <= 0 || v > 0x3fffffff)
		die(MT_EXIT_USAGE, "-p %s: expected a process id", arg);
	pid = (pid_t)v;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_MATCH, OPT_EXACT, OPT_ADDR, OPT_LINES,
	       OPT_PICK, OPT_DEBUG_DIR };
	static const struct option longopts[] = {
		{ "addr", required_argument, NULL, OPT_ADDR },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "exact", required_argument, NULL, OPT_EXACT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "pick", no_argument, NULL, OPT_PICK },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, MT_OPT_HELP },
		{ "version", no_argument, NULL, MT_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	size_t k;
	int c, i, status = MT_EXIT_OK;

	mt_set_progname(argv[0]);
	mt_set_manual();
	while ((c = getopt_long(argc, argv, "p:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			set_pid(optarg);
			break;
		case OPT_ADDR:
			add_addr(optarg);
			break;
		case OPT_DEBUG_DIR:
			grow_or_die(&debug_dirs, &debug_dirs_cap, n_debug_dirs,
				    sizeof(*debug_dirs));
			debug_dirs[n_debug_dirs++] = optarg;
			break;
		case OPT_EXACT:
			exact = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_LINES:
			lines = 1;
			break;
		case OPT_MATCH:
			mt_regex_option(&match, "--match", optarg);
			break;
		case OPT_PICK:
			pick = 1;
			break;
		default:
			mt_option_default(c, USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1 && !pid)
		usage_fail(USAGE);
	if (n_addrs && (exact || match.re || pick))
		die(MT_EXIT_USAGE, "--addr cannot be combined with --match, --exact "
		    "or --pick");
	if (pick && json)
		die(MT_EXIT_USAGE, "--pick cannot be combined with --json");

	if (pid)
		add_process();
	for (i = 0; i < argc; i++)
		new_obj(argv[i]);
	multi = nobjs > 1 || pid;
	for (k = 0; k < nobjs; k++) {
		int st = load(&objs[k]);

		if (st > status)
			status = st;
		if (objs[k].pf && !objs[k].vdso && sym(&objs[k])->t.nseg)
			place(&objs[k]);
	}
	if (pick)
		start_fzf();
	if (n_addrs) {
		int st = resolve(objs, nobjs);

		if (st > status)
			status = st;
	} else {
		for (k = 0; k < nobjs; k++)
			list(&objs[k]);
	}
	if (pick) {
		int st = finish_fzf();

		if (st > status)
			status = st;
	}
	if (json)
		fputs(first_obj ? "[]\n" : "\n]\n", stdout);
	close_stdout_or_die();
	for (k = 0; k < nobjs; k++)
		unload(&objs[k]);
	free(objs);
	mt_procsyms_release(&proc);
	free(debug_dirs);
	mt_regex_release(&match);
	free(addrs);
	return status;
}
