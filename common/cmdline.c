#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "banned.h"

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

static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

char *mt_which(const char *name)
{
	const char *path = getenv("PATH"), *p, *colon;

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
		free(cand);
		if (!colon)
			return NULL;
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
