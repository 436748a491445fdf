/*
 * Demangled names of symbols (libiberty for C++ and Rust, perf's rules for
 * OCaml). See demangle.h.
 */
#include <ctype.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "banned.h"

#define PLT_SUFFIX "@plt"

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

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* perf's OCaml demangling (tools/perf/util/demangle-ocaml.c), or NULL. */
static char *ocaml(const char *name)
{
	const char *p = name + 4;
	char *r, *q;

	if (strncmp(name, "caml", 4) || !isupper((unsigned char)name[4]))
		return NULL;
	r = q = malloc(strlen(name) + 1);
	if (!r)
		return NULL;
	while (*p) {
		if (p[0] == '_' && p[1] == '_') {
			*q++ = '.';
			p += 2;
		} else if (p[0] == '$' && isxdigit((unsigned char)p[1]) &&
			   isxdigit((unsigned char)p[2])) {
			*q++ = (char)(hexval(p[1]) << 4 | hexval(p[2]));
			p += 3;
		} else {
			*q++ = *p++;
		}
	}
	*q = '\0';
	return r;
}

/*
 * libiberty's demangling of name. The style is chosen from the name for
 * _Z names: libiberty's automatic style (which perf uses) tries Rust on
 * every C++ name first, a tenth of the time of a listing, and gives the
 * same names.
 */
static char *libiberty(const char *name, enum mt_demangle_style style)
{
	int opts = style == MT_DEMANGLE_FULL ? DMGL_PARAMS | DMGL_ANSI : DMGL_NO_OPTS;
	char *dm;

	if (name[0] != '_' || name[1] != 'Z')
		return style == MT_DEMANGLE_PERF || name[0] == '_' ?
		       cplus_demangle(name, opts | DMGL_AUTO) : NULL;
	if (rust_legacy(name, strlen(name)) &&
	    (dm = cplus_demangle(name, opts | DMGL_RUST)))
		return dm;
	return cplus_demangle(name, opts | DMGL_GNU_V3);
}

static char *demangle_base(const char *name, enum mt_demangle_style style)
{
	char *dm = libiberty(name, style);

	return dm ? dm : ocaml(name);
}

char *mt_demangle(const char *name, enum mt_demangle_style style)
{
	size_t len = strlen(name), k = strlen(PLT_SUFFIX);
	char *base, *dm, *r;

	if (len <= k || strcmp(name + len - k, PLT_SUFFIX))
		return demangle_base(name, style);
	base = strndup(name, len - k);
	if (!base)
		return NULL;
	dm = demangle_base(base, style);
	free(base);
	if (!dm)
		return NULL;
	r = realloc(dm, strlen(dm) + k + 1);
	if (!r) {
		free(dm);
		return NULL;
	}
	memcpy(r + strlen(r), PLT_SUFFIX, k + 1);
	return r;
}

int mt_demangle_is(const char *mangled, const char *full, const char *name)
{
	char *own = NULL, *perf;
	int r;

	if (!strcmp(mangled, name))
		return 1;
	if (!full)
		full = own = mt_demangle(mangled, MT_DEMANGLE_FULL);
	/* the perf style takes some names that the full one refuses (those
	 * with bytes after the mangled name) */
	r = full && !strcmp(full, name);
	if (!r && (perf = mt_demangle(mangled, MT_DEMANGLE_PERF))) {
		r = !strcmp(perf, name);
		free(perf);
	}
	free(own);
	return r;
}

int mt_demangle_match(const struct mt_regex *re, const char *mangled,
		      const char *full)
{
	char *own = NULL, *perf;
	int r;

	if (mt_regex_match(re, mangled))
		return 1;
	if (!full)
		full = own = mt_demangle(mangled, MT_DEMANGLE_FULL);
	r = full && mt_regex_match(re, full);
	if (!r && (perf = mt_demangle(mangled, MT_DEMANGLE_PERF))) {
		r = mt_regex_match(re, perf);
		free(perf);
	}
	free(own);
	return r;
}
