/*
 * Where mt-record's libraries are: see libpath.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "libpath.h"
#include "xalloc.h"
#include "banned.h"

char *mt_lib_path(const char *name)
{
	static const char *const where[] = { "/", "/../lib/mt/", "/../lib/" };
	char exe[PATH_MAX], *slash, *path;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		path = xasprintf("%s%s%s", exe, where[i], name);
		if (!access(path, R_OK)) {
			char *real = realpath(path, NULL);

			if (real) {
				free(path);
				return real;
			}
			return path;
		}
		free(path);
	}
	return NULL;
}
