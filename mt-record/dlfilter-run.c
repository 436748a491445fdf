/*
 * Decoding Intel PT through mt's perf dlfilter: see dlfilter-run.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "dlfilter-run.h"
#include "perf.h"
#include "banned.h"

#define SO "mt-dlfilter.so"

char *dlfilter_path(void)
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
		if (asprintf(&path, "%s%s" SO, exe, where[i]) < 0)
			die(MT_EXIT_SYSTEM, "out of memory");
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

void dlfilter_args(struct argv *a, const char *so)
{
	arg(a, "--dlfilter");
	arg(a, "%s", so);
	/* the filter writes to a copy of perf's stdout, and takes perf's
	 * own text (decoder errors) out of it into the stream */
	arg(a, "--dlarg");
	arg(a, "fd=1");
}

int decode_dlfilter(const char *perf, const char *data, int how, int out_fd)
{
	char *so = dlfilter_path(), *errname, buf[256];
	int major = 0, minor = 0;
	struct argv a = { 0 };
	struct proc p;

	if (!so) {
		warn("no " SO " next to mt-record (nor in ../lib/mt/): decoding "
		     "through perf's text");
		return 0;
	}
	if (perf_version(perf, &major, &minor, buf, sizeof(buf)) != 1 ||
	    major < 5 || (major == 5 && minor < 14)) {
		warn("%s: no perf script --dlfilter before perf 5.14: decoding "
		     "through perf's text", perf);
		free(so);
		return 0;
	}
	script_argv(&a, perf, data, how);
	dlfilter_args(&a, so);
	free(so);
	if (asprintf(&errname, "%s/perf-script.err", workdir_path()) < 0)
		die(MT_EXIT_SYSTEM, "out of memory");
	spawn(&p, a.v, out_fd, NULL, 0, errname, 1);
	free(errname);
	argv_free(&a);
	reap(&p, 1);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status)) {
		show_stderr(&p);
		die(MT_EXIT_SYSTEM, "perf script failed on %s (its messages are above)",
		    data);
	}
	free(p.errfile);
	return 1;
}
