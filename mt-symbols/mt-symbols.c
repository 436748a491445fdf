/*
 * mt-symbols: the function symbols of ELF files, with their demangled
 * names; filter them by name, or resolve an address to name+offset.
 * See docs/mt-symbols.1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "die.h"
#include "err.h"
#include "symtab.h"
#include "banned.h"

#define USAGE "usage: mt-symbols [--json] [--match regex] [--exact name] " \
	"[--addr addr] file ...\n"

static int json, multi, first_obj = 1;
static const char *exact;
static pcre2_code *match_re;
static pcre2_match_data *match_md;
static uint64_t *addrs;
static size_t n_addrs, addrs_cap;

/*
 * The demangled name, malloced, or NULL when name is not mangled.
 * No style flag: libiberty's automatic style tries Rust, then the C++
 * ABI; DMGL_RUST alone would turn C++ names away.
 */
static char *demangle(const char *name)
{
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
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

static void json_fields(const char *file, const struct mt_sym *s,
			const char *shown)
{
	fputs("{\"file\":", stdout);
	json_str(file);
	printf(",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 ",\"binding\":\"%s\","
	       "\"name\":", s->addr, s->size, mt_sym_bind_name(s->bind));
	json_str(s->name);
	fputs(",\"demangled\":", stdout);
	json_str(shown);
}

static void print_sym(const char *file, const struct mt_sym *s,
		      const char *shown)
{
	if (json) {
		json_begin();
		json_fields(file, s, shown);
		putchar('}');
		return;
	}
	if (multi)
		printf("%s\t", file);
	printf("0x%" PRIx64 "\t%" PRIu64 "\t%s\t%s\t%s\n", s->addr, s->size,
	       mt_sym_bind_name(s->bind), s->name, shown);
}

static void list(const char *file, const struct mt_symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct mt_sym *s = &t->v[i];
		char *dm = demangle(s->name);
		const char *shown = dm ? dm : s->name;

		if (wanted(s->name, shown))
			print_sym(file, s, shown);
		free(dm);
	}
}

/* Returns 0, or 1 when an address is in no symbol (after printing the
 * others). */
static int resolve(const char *file, const struct mt_symtab *t)
{
	size_t i;
	int missed = 0;

	for (i = 0; i < n_addrs; i++) {
		const struct mt_sym *s = mt_symtab_lookup(t, addrs[i]);
		char *dm;
		const char *shown;

		if (!s) {
			warn("%s: 0x%" PRIx64 ": in no function symbol", file,
			     addrs[i]);
			missed = 1;
			continue;
		}
		dm = demangle(s->name);
		shown = dm ? dm : s->name;
		if (json) {
			json_begin();
			json_fields(file, s, shown);
			printf(",\"at\":\"0x%" PRIx64 "\",\"offset\":\"0x%" PRIx64
			       "\"}", addrs[i], addrs[i] - s->addr);
		} else {
			if (multi)
				printf("%s\t", file);
			printf("%s+0x%" PRIx64 "\n", shown, addrs[i] - s->addr);
		}
		free(dm);
	}
	return missed;
}

/* Returns the exit status for this file; dies on a system error. */
static int do_file(const char *file)
{
	struct mt_symtab t = MT_SYMTAB_INIT;
	int fd = open_input_or_die(file), n, status = MT_EXIT_OK;

	n = mt_symtab_read(&t, fd);
	close(fd);
	switch (n) {
	case MT_EMAGIC:
		warn("%s: not an ELF file", file);
		return MT_EXIT_DATA;
	case MT_ECORRUPT:
		warn("%s: malformed ELF file", file);
		return MT_EXIT_DATA;
	case 0:
		warn("%s: no function symbols", file);
		return MT_EXIT_DATA;
	default:
		if (n < 0)
			die_mt(n, "%s", file);
	}
	if (n_addrs)
		status = resolve(file, &t) ? MT_EXIT_DATA : MT_EXIT_OK;
	else
		list(file, &t);
	mt_symtab_release(&t);
	return status;
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

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_MATCH, OPT_EXACT, OPT_ADDR, OPT_HELP,
	       OPT_VERSION };
	static const struct option longopts[] = {
		{ "addr", required_argument, NULL, OPT_ADDR },
		{ "exact", required_argument, NULL, OPT_EXACT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c, i, status = MT_EXIT_OK;

	mt_set_progname(argv[0]);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ADDR:
			add_addr(optarg);
			break;
		case OPT_EXACT:
			exact = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_MATCH:
			set_match(optarg);
			break;
		case OPT_HELP:
			usage_ok(USAGE);
		case OPT_VERSION:
			version_ok();
		default:
			usage_fail(USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage_fail(USAGE);
	if (n_addrs && (exact || match_re))
		die(MT_EXIT_USAGE, "--addr cannot be combined with --match or --exact");
	multi = argc > 1;

	for (i = 0; i < argc; i++) {
		int st = do_file(argv[i]);

		if (st > status)
			status = st;
	}
	if (json)
		fputs(first_obj ? "[]\n" : "\n]\n", stdout);
	close_stdout_or_die();
	pcre2_match_data_free(match_md);
	pcre2_code_free(match_re);
	free(addrs);
	return status;
}
