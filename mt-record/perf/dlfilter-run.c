/*
 * Decoding Intel PT through mt's perf dlfilter: see dlfilter-run.h.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "die.h"
#include "dlfilter-run.h"
#include "libpath.h"
#include "perf.h"
#include "stream.h"
#include "streamout.h"
#include "xalloc.h"
#include "banned.h"

#define SO "mt-dlfilter.so"

char *dlfilter_path(void)
{
	return mt_lib_path(SO);
}

void dlfilter_args(struct argv *a, const char *so)
{
	argv_add(a, "--dlfilter");
	argv_add(a, "%s", so);
	/* the filter writes to a copy of perf's stdout, and takes perf's
	 * own text (decoder errors) out of it into the stream */
	argv_add(a, "--dlarg");
	argv_add(a, "fd=1");
	/* perf prints the records after which its maps and threads are not
	 * what they were; the filter keeps resolutions until then */
	argv_add(a, "--show-mmap-events");
	argv_add(a, "--show-task-events");
	argv_add(a, "--dlarg");
	argv_add(a, "sideband");
}

char *dlfilter_choose(const char *perf)
{
	char *so = dlfilter_path(), buf[256];
	int major = 0, minor = 0;

	if (!so) {
		warn("no " SO " next to mt-record (nor in ../lib/mt/): decoding "
		     "through perf's text");
		return NULL;
	}
	if (perf_version(perf, &major, &minor, buf, sizeof(buf)) != 1 ||
	    major < 5 || (major == 5 && minor < 14)) {
		warn("%s: no perf script --dlfilter before perf 5.14: decoding "
		     "through perf's text", perf);
		free(so);
		return NULL;
	}
	return so;
}

/* perf script with the dlfilter, its stdout out_fd (perf_spawn()'s out),
 * started in p. */
static void start_script(struct proc *p, const char *perf, const char *data, int how,
			 const char *so, int out_fd)
{
	struct argv a = { 0 };
	char *errname;

	script_argv(&a, perf, data, how);
	dlfilter_args(&a, so);
	errname = xasprintf("%s/perf-script.err", workdir_path());
	perf_spawn(p, a.v, out_fd, NULL, 0, errname);
	free(errname);
	argv_free(&a);
}

/* Reaps p; dies with its messages when it failed (but for SIGPIPE, when
 * sigpipe_ok: its reader stopped reading). */
static void end_script(struct proc *p, const char *data, int sigpipe_ok)
{
	int st = mt_spawn_wait(&p->sp);

	if (!(sigpipe_ok && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) &&
	    (!WIFEXITED(st) || WEXITSTATUS(st)))
		script_failed(p, data);
	free(p->errfile);
}

void decode_dlfilter(const char *perf, const char *data, int how, const char *so,
		     int out_fd)
{
	struct proc p;

	start_script(&p, perf, data, how, so, out_fd);
	end_script(&p, data, 0);
}

void decode_dlfilter_into(const char *perf, const char *data, int how, const char *so,
			  struct stream_out *s, const struct mark_line *mk,
			  uint64_t *after)
{
	struct mt_reader r;
	struct proc p;
	int err;

	start_script(&p, perf, data, how, so, MT_SPAWN_PIPE);
	if (mt_reader_init_fd(&r, p.sp.from_child, NULL, 0))
		die(MT_EXIT_SYSTEM, "out of memory");
	err = stream_out_copy(s, &r, mk, after);
	close(p.sp.from_child); /* perf, still writing after a bad record, ends */
	end_script(&p, data, err != 0);
	if (err)
		die_reader(&r, err, xasprintf("perf script's stream of %s", data));
	mt_reader_release(&r);
}
