#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "duration.h"
#include "err.h"
#include "banned.h"

/* Edit distance of a and b (insertions, deletions, substitutions and
 * swaps of neighbours), up to 3: more is reported as 3. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
	int d[34][34];
	size_t i, j;

	if (na > 32 || nb > 32)
		return 3;
	for (i = 0; i <= na; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= nb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= na; i++) {
		for (j = 1; j <= nb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[na][nb] < 3 ? d[na][nb] : 3;
}

/* Say what was wrong with the long option text ("--name[=value]"). */
static void bad_long(const char *text, const struct option *longopts)
{
	const char *name = text + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name), nprefix = 0;
	const struct option *o, *match = NULL, *near = NULL;
	int best = 3;
	char list[256] = "";

	for (o = longopts; o->name; o++) {
		size_t len = strlen(o->name), used = strlen(list);
		int d = distance(name, n, o->name, len);

		if (len == n && !memcmp(o->name, name, n)) {
			match = o;
			nprefix = 1;
			break;
		}
		if (len > n && !memcmp(o->name, name, n)) {
			if (!nprefix++)
				match = o;
			if (used + len + 5 < sizeof(list))
				snprintf(list + used, sizeof(list) - used, "%s--%s",
					 used ? ", " : "", o->name);
		}
		if (d < best) {
			best = d;
			near = o;
		}
	}
	if (nprefix == 1 && eq && match->has_arg == no_argument)
		warn("option '--%s' takes no value", match->name);
	else if (nprefix == 1 && !eq && match->has_arg == required_argument)
		warn("option '--%s' needs a value", match->name);
	else if (nprefix > 1)
		warn("option '--%.*s' is ambiguous: %s", (int)n, name, list);
	else if (!nprefix && near)
		warn("unknown option '--%.*s'; did you mean '--%s'?", (int)n, name,
		     near->name);
	else if (!nprefix)
		warn("unknown option '--%.*s'", (int)n, name);
	else
		warn("bad option '%s'", text);
}

int mt_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, const char *usage)
{
	int saved = opterr, c, prev = optind;
	const char *text;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	opterr = saved;
	if (c != '?')
		return c;
	text = optind > prev ? argv[optind - 1] : argv[prev];
	if (!strncmp(text, "--", 2) && text[2])
		bad_long(text, longopts);
	else if (optopt && optopt != ':' && strchr(shortopts, optopt))
		warn("option '-%c' needs a value", optopt);
	else if (optopt > ' ' && optopt < 127)
		warn("unknown option '-%c'", optopt);
	else
		warn("bad option '%s'", text);
	usage_fail(usage);
}

void mt_option_default(int c, const char *usage)
{
	if (c == MT_OPT_HELP)
		usage_ok(usage);
	if (c == MT_OPT_VERSION)
		version_ok();
	usage_fail(usage);
}

void mt_filter_option(struct mt_filter_io *io, int c, const char *usage)
{
	if (c == 'o')
		io->out_name = optarg;
	else if (c == 'v')
		io->verbose = 1;
	else
		mt_option_default(c, usage);
}

void mt_filter_open_or_die(struct mt_filter_io *io, int n, char **operands,
			   const char *usage)
{
	const char *name = n ? operands[0] : NULL;

	if (n > 1)
		usage_fail(usage);
	io->in_name = name && strcmp(name, "-") ? name : "<stdin>";
	io->in_fd = open_input_or_die(name);
	if (io->out_name)
		output_to_or_die(io->out_name);
}

/* Whether path is an executable regular file; if not, errno says why
 * (stat's, EISDIR, or EACCES). */
static int is_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return 0;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK)) {
		errno = EACCES;
		return 0;
	}
	return 1;
}

char *mt_which(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;
	int denied = 0;

	if (strchr(name, '/'))
		return is_executable(name) ? strdup(name) : NULL;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = colon + 1) {
		size_t len, nlen = strlen(name);
		char *cand;

		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strlen(p);
		cand = malloc(len + nlen + 3);
		if (!cand)
			return NULL;
		if (len) {
			memcpy(cand, p, len);
		} else {
			cand[0] = '.'; /* an empty entry is the current directory */
			len = 1;
		}
		cand[len] = '/';
		memcpy(cand + len + 1, name, nlen + 1);
		if (is_executable(cand))
			return cand;
		denied |= errno == EACCES;
		free(cand);
		if (!colon) {
			errno = denied ? EACCES : ENOENT;
			return NULL;
		}
	}
}

void mt_shell_quote(FILE *f, const char *s)
{
	const char *p;

	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789%+,-./:=@_") == strlen(s)) {
		fputs(s, f);
		return;
	}
	putc('\'', f);
	for (p = s; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			putc(*p, f);
	}
	putc('\'', f);
}

uint64_t mt_duration_arg(const char *s, const char *opt)
{
	uint64_t v;
	int err = mt_parse_duration(s, &v);

	if (err)
		die(MT_EXIT_USAGE, "%s %s: %s (a number and a unit: ns, us, ms, s)", opt, s,
		    mt_strerror(err));
	return v;
}
