#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "die.h"
#include "output.h"
#include "xalloc.h"
#include "banned.h"

/* The -o name as given, for messages; NULL: standard output. */
static const char *shown;
/* The file renamed into place at the end, and the temporary beside it.
 * tmp is a fixed array so that a signal handler can unlink it. */
static char *target;
static char tmp[PATH_MAX];
static volatile sig_atomic_t have_tmp;
/* the temporary has no name yet (O_TMPFILE): nothing to remove, and
 * linked at the end; tmp then only describes it (want_unnamed: asked for,
 * output_unnamed()) */
static int unnamed, want_unnamed;

void output_unnamed(void)
{
	want_unnamed = 1;
}
/* The process that made tmp: a child forked later (mt-record's perf, a
 * command) that exits or takes a signal before its exec removes nothing. */
static pid_t tmp_owner;
static const struct output_filter *filter;
static int keep_old;

/* The files read and written, to refuse writing over the input. */
static struct stat in_st, out_st;
static int have_in, have_out;
static const char *in_shown;

const char *output_name(void)
{
	return shown ? shown : "standard output";
}

void output_binary_or_die(const char *what)
{
	if (!shown && isatty(STDOUT_FILENO))
		die(MT_EXIT_USAGE, "not writing %s to a terminal: give -o FILE "
		    "or a pipe", what);
}

int output_name_is_gz(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n > 3 && !strcmp(name + n - 3, ".gz");
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void refuse_if_same(void)
{
	if (have_in && have_out && same_file(&in_st, &out_st))
		die(MT_EXIT_USAGE, "%s: the output is the input%s%s; write to "
		    "another file and rename it", output_name(),
		    in_shown && strcmp(in_shown, shown) ? " " : "",
		    in_shown && strcmp(in_shown, shown) ? in_shown : "");
}

void output_note_input(int fd, const char *name)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	in_st = st;
	have_in = 1;
	in_shown = name;
	refuse_if_same();
}

/* Async-signal-safe. */
static void remove_tmp(void)
{
	if (have_tmp && getpid() == tmp_owner) {
		have_tmp = 0;
		if (!unnamed)
			unlink(tmp);
	}
}

static void at_exit(void)
{
	remove_tmp();
}

static void on_fatal(int sig)
{
	remove_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Remove the temporary when SIGTERM, SIGHUP, SIGINT or SIGQUIT ends the
 * tool, unless the tool handles (or ignores) them itself. */
static void catch_fatal(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int output_tmp_beside(const char *name, char *buf, size_t cap)
{
	const char *slash = strrchr(name, '/');
	int n;

	if (slash)
		n = snprintf(buf, cap, "%.*s/.%s.XXXXXX", (int)(slash - name),
			     name, slash + 1);
	else
		n = snprintf(buf, cap, ".%s.XXXXXX", name);
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkostemp(buf, O_CLOEXEC);
}

/*
 * A temporary with no name in the directory of name (O_TMPFILE), so that
 * a tool killed with SIGKILL leaves nothing behind: its descriptor, its
 * description in buf; -1 where the file system has none.
 */
static int tmp_unnamed(const char *name, char *buf, size_t cap)
{
	const char *slash = strrchr(name, '/');
	char dir[PATH_MAX];
	int fd;

	if (slash && (size_t)(slash - name) >= sizeof(dir))
		return -1;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", slash == name ? 1 : (int)(slash - name), name);
	else
		snprintf(dir, sizeof(dir), ".");
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) < 0)
		return -1;
	if ((size_t)snprintf(buf, cap, "%.*s/(no name yet: %s)", (int)(cap / 2), dir,
			     slash ? slash + 1 : name) >= cap)
		buf[cap - 1] = '\0';
	return fd;
}

/* The unnamed temporary on standard output given the hidden name
 * ".BASE.XXXXXX" beside target (into tmp), to be renamed over it. */
static void link_unnamed(void)
{
	char fdpath[64];
	int tries;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", STDOUT_FILENO);
	for (tries = 0; tries < 100; tries++) {
		int fd = output_tmp_beside(target, tmp, sizeof(tmp));

		/* a fresh name (mkostemp's), freed for the link */
		if (fd < 0)
			break;
		close(fd);
		unlink(tmp);
		if (!linkat(AT_FDCWD, fdpath, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW)) {
			unnamed = 0; /* named now: removed on failure */
			return;
		}
		if (errno != EEXIST)
			break;
	}
	have_tmp = 0;
	die_errno(MT_EXIT_SYSTEM, "%s: cannot give the new file a name beside it",
		  output_name());
}

static void to_stdout(int fd)
{
	if (fd != STDOUT_FILENO) {
		if (dup2(fd, STDOUT_FILENO) < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", shown);
		close(fd);
	}
}

void output_to_or_die(const char *name)
{
	struct stat st, in0, lst;
	mode_t mode, mask;
	static int registered;
	int fd;

	if (!name || !strcmp(name, "-"))
		return;
	if (!*name)
		die(MT_EXIT_USAGE, "-o: the output file name is empty");
	shown = name;
	if (!fstat(STDIN_FILENO, &in0) && S_ISREG(in0.st_mode) && !have_in) {
		in_st = in0;
		have_in = 1;
	}
	mask = umask(0);
	umask(mask);
	mode = 0666 & ~mask;
	if (!stat(name, &st)) {
		out_st = st;
		have_out = 1;
		refuse_if_same();
		if (S_ISDIR(st.st_mode))
			die(MT_EXIT_SYSTEM, "%s: is a directory", name);
		if (!S_ISREG(st.st_mode)) {
			/* a terminal, /dev/null, a FIFO: written as it is */
			fd = open(name, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				die_errno(MT_EXIT_SYSTEM, "%s", name);
			to_stdout(fd);
			return;
		}
		mode = st.st_mode & 07777;
		/* a link is followed: the file it names is the one replaced */
		if (!lstat(name, &lst) && S_ISLNK(lst.st_mode))
			target = realpath(name, NULL);
		else
			target = strdup(name);
		if (!target)
			die_errno(MT_EXIT_SYSTEM, "%s", name);
	} else if (errno == ENOENT) {
		/* a dangling link is itself replaced, never written through */
		target = xstrdup(name);
	} else {
		die_errno(MT_EXIT_SYSTEM, "%s", name);
	}
	if (want_unnamed && (fd = tmp_unnamed(target, tmp, sizeof(tmp))) >= 0)
		unnamed = 1;
	else
		fd = output_tmp_beside(target, tmp, sizeof(tmp));
	if (fd < 0) {
		const char *slash = strrchr(target, '/');

		die_errno(MT_EXIT_SYSTEM, "%s: cannot create a temporary file in %.*s",
			  name, slash ? (int)(slash - target + 1) : 1,
			  slash ? target : ".");
	}
	have_tmp = 1;
	tmp_owner = getpid();
	if (!registered++) {
		atexit(at_exit);
		catch_fatal();
	}
	if (fchmod(fd, mode))
		die_errno(MT_EXIT_SYSTEM, "%s", tmp);
	if (have_out && geteuid() == 0 && (st.st_uid || st.st_gid))
		(void)!fchown(fd, st.st_uid, st.st_gid);
	to_stdout(fd);
}

int output_discard(void)
{
	int fd;

	filter = NULL;
	if (!have_tmp)
		return 0;
	fflush(stdout);
	remove_tmp();
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		to_stdout(fd);
	return 1;
}

void output_keep_old(void)
{
	keep_old = 1;
}

const char *output_tmp_name(void)
{
	return have_tmp ? tmp : NULL;
}

/* Before the rename: an existing target becomes TARGET.old. */
static void move_old(void)
{
	struct stat st;
	char *old;

	if (lstat(target, &st))
		return;
	old = xasprintf("%s.old", target);
	if (rename(target, old)) {
		have_tmp = 0;	/* the new file stays where it is */
		die_errno(MT_EXIT_SYSTEM, "moving %s to %s (the new file is in %s)",
			  target, old, tmp);
	}
	warn("moved the previous %s to %s", target, old);
	free(old);
}

void output_set_filter(const struct output_filter *f)
{
	filter = f;
}

void output_write(const void *p, size_t n)
{
	if (filter)
		filter->write(p, n);
	else
		write_or_die(STDOUT_FILENO, p, n);
}

void output_remove_tmp_signal_safe(void)
{
	remove_tmp();
}

void output_write_failed(void)
{
	if (errno == EPIPE)
		die_pipe();
	die_errno(MT_EXIT_SYSTEM, "%s: write error%s", output_name(),
		  have_tmp ? " (the file is left as it was)" : "");
}

void close_stdout_or_die(void)
{
	if (fflush(stdout) != 0)
		output_write_failed();
	if (filter) {
		const struct output_filter *f = filter;

		filter = NULL;
		f->finish();
	}
	if (have_tmp) {
		if (fsync(STDOUT_FILENO))
			output_write_failed();
		if (unnamed)
			link_unnamed();
		if (close(STDOUT_FILENO))
			output_write_failed();
		if (keep_old)
			move_old();
		if (rename(tmp, target))
			die_errno(MT_EXIT_SYSTEM, "%s: cannot rename %s over it",
				  output_name(), tmp);
		have_tmp = 0;
		free(target);
		target = NULL;
		return;
	}
	if (close(STDOUT_FILENO) != 0 && errno != EBADF)
		output_write_failed();
}
