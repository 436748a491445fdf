/*
 * mt-symbols: the function symbols of ELF files or of a running process,
 * with their demangled names and source lines; filter them by name, pick
 * one with fzf, or resolve an address to name+offset.
 * See docs/mt-symbols.1.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <libiberty/demangle.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "dwline.h"
#include "proc.h"
#include "quote.h"
#include "symtab.h"
#include "banned.h"

#define USAGE "usage: mt-symbols [--json] [--lines] [--pick] [--match regex] " \
	"[--exact name] [--addr addr] [--debug-dir dir] [-p pid] [file ...]\n"

/* One ELF file (or a process's mapping of one, or its perf map). */
struct obj {
	char *file;     /* the name printed */
	char *shown;    /* file as messages show it (mt_quote): a path from
			 * a process's maps may hold any byte */
	char *open_as;  /* where to read it: /proc/PID/map_files/..., or NULL */
	uint64_t bias;  /* runtime address - file address (with -p) */
	uint64_t start, end; /* its mapping (with -p): for --addr */
	int jit;        /* a perf map */
	int vdso;       /* read from the process's memory */
	struct mt_symtab t;
	int dwfd;       /* the file with DWARF for --lines, or -1 */
	struct mt_dwlines *dl;
};

static int json, multi, lines, pick, first_obj = 1;
static pid_t pid;
static const char **debug_dirs;
static size_t n_debug_dirs, debug_dirs_cap;
static FILE *pick_out; /* fzf's standard input */
static const char *exact;
static pcre2_code *match_re;
static pcre2_match_data *match_md;
static uint64_t *addrs;
static size_t n_addrs, addrs_cap;

/* A legacy Rust name: _ZN...17h<16 hex digits>E. */
static int rust_legacy(const char *name, size_t len)
{
	size_t i;

	if (len < 24 || memcmp(name + len - 20, "17h", 3) || name[len - 1] != 'E')
		return 0;
	for (i = len - 17; i < len - 1; i++)
		if (!isxdigit((unsigned char)name[i]))
			return 0;
	return 1;
}

/*
 * The demangled name, malloced, or NULL when name is not mangled.
 * The style is chosen from the name: libiberty's automatic style would
 * try Rust on every C++ name first, a tenth of the time of a listing.
 */
static char *demangle(const char *name)
{
	size_t len;
	char *dm;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (name[1] == 'R')
		return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST);
	len = strlen(name);
	if (rust_legacy(name, len) &&
	    (dm = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST)))
		return dm;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
}

static int re_match(const char *s)
{
	return pcre2_match(match_re, (PCRE2_SPTR)s, strlen(s), 0, 0, match_md,
			   NULL) >= 0;
}

static int wanted(const char *mangled, const char *shown)
{
	if (exact && strcmp(exact, mangled) && strcmp(exact, shown))
		return 0;
	if (match_re && !re_match(shown) && !re_match(mangled))
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
	size_t i;

	for (i = 0; i < o->t.n; i++) {
		const struct mt_sym *s = &o->t.v[i];
		char *dm = demangle(s->name);
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
	const struct mt_sym *s = mt_symtab_lookup(&o->t, a - o->bias);
	const char *shown, *src = NULL;
	char *dm;
	int line = 0;

	if (!s)
		return 1;
	dm = demangle(s->name);
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

			if (!o->t.n)
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

/* The separate debug file, for symbols a stripped file lacks and for
 * DWARF; quiet when there is none. */
static void load_debug(struct obj *o)
{
	char *found = NULL, q[MT_QUOTE_SIZE(PATH_MAX)];
	int fd, n;

	if (o->t.has_symtab && (o->t.has_debug_info || !lines))
		return;
	fd = mt_symtab_find_debug(&o->t, o->file, debug_dirs, n_debug_dirs,
				  &found);
	if (fd == MT_ENOMEM)
		die_mt(fd, "%s", o->shown);
	if (fd < 0)
		return;
	n = mt_symtab_merge(&o->t, fd);
	if (n == MT_ENOMEM)
		die_mt(n, "%s", mt_quote_str(q, sizeof(q), found));
	if (n < 0) {
		warn("%s: debug file %s: %s: not used", o->shown,
		     mt_quote_str(q, sizeof(q), found),
		     n == MT_EMISMATCH ? "of another build" : mt_strerror(n));
		close(fd);
	} else if (lines && o->dwfd < 0) {
		o->dwfd = fd; /* kept open for libdw */
	} else {
		close(fd);
	}
	free(found);
}

static void open_lines(struct obj *o, int fd)
{
	int err;

	if (o->dwfd < 0 && o->t.has_debug_info)
		o->dwfd = dup(fd);
	if (o->dwfd < 0)
		return;
	err = mt_dwlines_open(&o->dl, o->dwfd);
	if (err == MT_ENOMEM)
		die_mt(err, "%s", o->shown);
}

/* Read o's symbols. Returns the exit status for this file; dies on a
 * system error. */
static int load(struct obj *o)
{
	int fd, n;

	o->dwfd = -1;
	if (o->jit) {
		size_t bad = 0;

		fd = open(o->file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", o->shown);
		n = mt_symtab_read_perfmap(&o->t, fd, &bad);
		close(fd);
		if (n == MT_ESYNTAX) {
			warn("%s:%zu: not a perf map line (START SIZE NAME)",
			     o->shown, bad);
			return MT_EXIT_DATA;
		}
		if (n < 0)
			die_mt(n, "%s", o->shown);
		return MT_EXIT_OK;
	}
	if (o->vdso) {
		char *img = malloc(o->end - o->start), mem[64];
		ssize_t got;

		if (!img)
			die(MT_EXIT_SYSTEM, "out of memory");
		snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
		fd = open(mem, O_RDONLY | O_CLOEXEC);
		got = fd < 0 ? -1 : pread(fd, img, o->end - o->start, (off_t)o->start);
		if (fd >= 0)
			close(fd);
		n = got == (ssize_t)(o->end - o->start) ?
			mt_symtab_read_mem(&o->t, img, (size_t)got) : MT_EIO;
		free(img);
		if (n < 0) {
			warn("process %d: [vdso]: cannot be read: %s", (int)pid,
			     mt_strerror(n));
			return MT_EXIT_OK; /* the rest is still worth listing */
		}
		mt_symtab_bias(&o->t, o->start, 0, &o->bias);
		return MT_EXIT_OK;
	}
	fd = open(o->open_as ? o->open_as : o->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && o->open_as)
		fd = open(o->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", o->shown);
	n = mt_symtab_read(&o->t, fd);
	switch (n) {
	case MT_EMAGIC:
		warn("%s: not an ELF file", o->shown);
		close(fd);
		return MT_EXIT_DATA;
	case MT_ECORRUPT:
		warn("%s: malformed ELF file", o->shown);
		close(fd);
		return MT_EXIT_DATA;
	default:
		if (n < 0)
			die_mt(n, "%s", o->shown);
	}
	load_debug(o);
	if (lines)
		open_lines(o, fd);
	close(fd);
	if (!o->t.n) {
		warn("%s: no function symbols%s", o->shown,
		     o->t.debuglink || o->t.build_id_len ?
		     " (stripped; its debug file was not found: see --debug-dir)" :
		     "");
		return MT_EXIT_DATA;
	}
	return MT_EXIT_OK;
}

static void unload(struct obj *o)
{
	mt_dwlines_free(o->dl);
	if (o->dwfd >= 0)
		close(o->dwfd);
	mt_symtab_release(&o->t);
	free(o->file);
	free(o->shown);
	free(o->open_as);
}

static struct obj *objs;
static size_t nobjs, objs_cap;

static struct obj *new_obj(const char *file)
{
	struct obj *o;

	grow_or_die(&objs, &objs_cap, nobjs, sizeof(*objs));
	o = &objs[nobjs++];
	memset(o, 0, sizeof(*o));
	o->dwfd = -1;
	o->file = strdup(file);
	o->shown = malloc(MT_QUOTE_SIZE(strlen(file)));
	if (!o->file || !o->shown)
		die(MT_EXIT_SYSTEM, "out of memory");
	mt_quote_str(o->shown, MT_QUOTE_SIZE(strlen(file)), file);
	return o;
}

/*
 * The executable mappings of process pid, one object per file (its first
 * executable mapping gives the load bias), then [vdso], then the perf map
 * of a JIT if there is one.
 */
static int add_process(void)
{
	char path[64], *line = NULL;
	size_t cap = 0, first = nobjs, k;
	FILE *f;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			die(MT_EXIT_DATA, "no such process: %d", (int)pid);
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	}
	while (getline(&line, &cap, f) >= 0) {
		unsigned long long start, end, pgoff;
		int dup_file = 0;
		char *name;
		struct obj *o;
		struct mt_map m;

		if (mt_maps_parse(line, &m) || !m.exec)
			continue;
		start = m.start;
		end = m.end;
		pgoff = m.pgoff;
		name = line + (m.path - line);
		name[m.path_len] = '\0';
		if (!strcmp(name, "[vdso]")) {
			o = new_obj(name);
			o->vdso = 1;
			o->start = start;
			o->end = end;
			continue;
		}
		if (name[0] != '/')
			continue; /* anonymous (JIT: the perf map), [vsyscall] */
		for (k = first; k < nobjs; k++)
			if (!strcmp(objs[k].file, name))
				dup_file = 1;
		if (dup_file)
			continue;
		o = new_obj(name);
		o->start = start;
		o->end = end;
		if (asprintf(&o->open_as, "/proc/%d/map_files/%llx-%llx", (int)pid,
			     start, end) < 0)
			die(MT_EXIT_SYSTEM, "out of memory");
		o->bias = pgoff; /* pgoff until the file is read */
	}
	free(line);
	if (ferror(f))
		die_errno(MT_EXIT_SYSTEM, "%s", path);
	fclose(f);
	if (nobjs == first)
		die(MT_EXIT_DATA, "process %d: no executable mappings (a kernel thread?)",
		    (int)pid);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	if (stat(path, &st) == 0)
		new_obj(path)->jit = 1;
	return 0;
}

/* A file mapped by the process: the bias from its mapping, and a mapping
 * end that covers all its segments (for --addr). */
static void place(struct obj *o)
{
	uint64_t pgoff = o->bias, bias;
	size_t i;

	o->bias = 0;
	if (mt_symtab_bias(&o->t, o->start, pgoff, &bias) != 0) {
		warn("%s: mapped from offset 0x%" PRIx64 ", in no segment: "
		     "addresses not relocated", o->shown, pgoff);
		return;
	}
	o->bias = bias;
	for (i = 0; i < o->t.nseg; i++)
		if (o->t.seg[i].exec &&
		    o->t.seg[i].vaddr + o->t.seg[i].memsz + bias > o->end)
			o->end = o->t.seg[i].vaddr + o->t.seg[i].memsz + bias;
}

/* Whether fzf can be run. */
static int have_fzf(void)
{
	char *p = mt_which("fzf");

	free(p);
	return p != NULL;
}

static pid_t fzf_pid;
static int fzf_result = -1;

/* Start fzf: candidates go to pick_out, its choice comes back on the
 * returned fd. */
static int start_fzf(void)
{
	int in[2], out[2];

	if (!have_fzf())
		die(MT_EXIT_SYSTEM, "--pick needs fzf, which is not installed "
		    "(Debian, Ubuntu: apt install fzf); or name the function "
		    "with --exact NAME");
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die_errno(MT_EXIT_SYSTEM, "pipe");
	fzf_pid = fork();
	if (fzf_pid < 0)
		die_errno(MT_EXIT_SYSTEM, "fork");
	if (!fzf_pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execlp("fzf", "fzf", "--delimiter=\\t", "--with-nth=1",
		       "--prompt=function> ", "--no-multi", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	signal(SIGPIPE, SIG_IGN); /* fzf may exit before it has read all */
	pick_out = fdopen(in[1], "w");
	if (!pick_out)
		die_errno(MT_EXIT_SYSTEM, "fdopen");
	fzf_result = out[0];
	return out[0];
}

/* Wait for fzf and print the line of the picked symbol. */
static int finish_fzf(void)
{
	char buf[65536];
	size_t len = 0;
	ssize_t got;
	int st;
	char *tab, *nl;

	fclose(pick_out); /* EPIPE here only means fzf had its answer */
	while (len < sizeof(buf) - 1 &&
	       (got = read(fzf_result, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die_errno(MT_EXIT_SYSTEM, "reading fzf's choice");
		}
		len += (size_t)got;
	}
	buf[len] = '\0';
	close(fzf_result);
	while (waitpid(fzf_pid, &st, 0) < 0)
		if (errno != EINTR)
			die_errno(MT_EXIT_SYSTEM, "waitpid");
	signal(SIGPIPE, SIG_DFL);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		die(MT_EXIT_SYSTEM, "fzf could not be run");
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

static void set_match(const char *re)
{
	int code;
	PCRE2_SIZE at;

	match_re = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &code,
				 &at, NULL);
	if (!match_re) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof(msg));
		die(MT_EXIT_USAGE, "--match %s: at offset %zu: %s", re, (size_t)at,
		    (char *)msg);
	}
	match_md = pcre2_match_data_create_from_pattern(match_re, NULL);
	if (!match_md)
		die(MT_EXIT_SYSTEM, "out of memory");
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
			set_match(optarg);
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
	if (n_addrs && (exact || match_re || pick))
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
		if (pid && objs[k].end && !objs[k].vdso && !objs[k].jit &&
		    objs[k].t.nseg)
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
	free(debug_dirs);
	pcre2_match_data_free(match_md);
	pcre2_code_free(match_re);
	free(addrs);
	return status;
}
