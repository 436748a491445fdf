#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "die.h"
#include "err.h"
#include "quote.h"
#include "stream.h"
#include "banned.h"

static const char *progname = "mt";

static int has_manual;

void mt_set_manual(void)
{
	has_manual = 1;
}

void mt_set_progname(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0 && *argv0)
		progname = slash ? slash + 1 : argv0;
}

const char *mt_progname(void)
{
	return progname;
}

static void __attribute__((format(printf, 1, 0)))
vreport(const char *fmt, va_list ap, const char *suffix)
{
	char msg[4096], shown[MT_QUOTE_SIZE(sizeof(msg))];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	/* whatever a message holds from outside reaches no terminal as a
	 * control sequence */
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	mt_quote_controls(shown, sizeof(shown), msg, (size_t)n);
	if (suffix)
		fprintf(stderr, "%s: %s: %s\n", progname, shown, suffix);
	else
		fprintf(stderr, "%s: %s\n", progname, shown);
}

void vwarn(const char *fmt, va_list ap)
{
	vreport(fmt, ap, NULL);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, NULL);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, NULL);
	va_end(ap);
	exit(code);
}

void die_errno(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, strerror(e));
	va_end(ap);
	exit(code);
}

static void (*pipe_hook)(void);

void die_pipe_hook(void (*fn)(void))
{
	pipe_hook = fn;
}

void die_pipe(void)
{
	void (*fn)(void) = pipe_hook;

	pipe_hook = NULL;
	if (fn)
		fn();
	output_remove_tmp_signal_safe();
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

void die_mt(int err, const char *fmt, ...)
{
	int e = errno;
	char both[512];
	va_list ap;

	if (err == MT_EPIPE)
		die_pipe();
	if (err == MT_EIO) {
		snprintf(both, sizeof(both), "%s: %s", mt_strerror(err),
			 strerror(e));
	} else {
		snprintf(both, sizeof(both), "%s", mt_strerror(err));
	}
	va_start(ap, fmt);
	vreport(fmt, ap, both);
	va_end(ap);
	exit(err == MT_ENOMEM || err == MT_EIO ? MT_EXIT_SYSTEM : MT_EXIT_DATA);
}

void die_reader(const struct mt_reader *r, int err, const char *name)
{
	unsigned long long off = mt_reader_offset(r);
	const char *like = err == MT_EMAGIC ? mt_reader_looks_like(r) : NULL;
	const char *hint = "";

	if (!like)
		die_mt(err, "%s: byte offset 0x%llx", name, off);
	if (!strcmp(like, "an FXT trace"))
		hint = "; mt-slice reads FXT, Perfetto shows it";
	else if (!strcmp(like, "text"))
		hint = "; perf script output goes through mt-script-parse first";
	else if (!strcmp(like, "a perf.data file"))
		hint = "; mt-record -i decodes it";
	else if (!strcmp(like, "gzip-compressed data"))
		hint = "; decompress it first (zcat)";
	die(MT_EXIT_DATA, "%s: byte offset 0x%llx: %s: it is %s%s", name, off,
	    mt_strerror(err), like, hint);
}

size_t read_or_die(int fd, void *buf, size_t n, const char *name)
{
	ssize_t got;

	do
		got = read(fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die_errno(MT_EXIT_SYSTEM, "%s: read error", name);
	return (size_t)got;
}

void write_or_die(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE)
				die_pipe();
			if (fd == STDOUT_FILENO)
				output_write_failed();
			die_errno(MT_EXIT_SYSTEM, "write error");
		}
		p += done;
		n -= (size_t)done;
	}
}

void grow_or_die(void *p, size_t *cap, size_t need, size_t elem)
{
	if (mt_grow(p, cap, need + 1, elem))
		die(MT_EXIT_SYSTEM, "out of memory");
}

#define MT_VERSION "0.1"

void usage_ok(const char *usage)
{
	fputs(usage, stdout);
	if (has_manual)
		printf("\nThe manual: man %s (docs/%s.1 in the source tree)\n",
		       progname, progname);
	close_stdout_or_die();
	exit(MT_EXIT_OK);
}

void usage_fail(const char *usage)
{
	fputs(usage, stderr);
	exit(MT_EXIT_USAGE);
}

void version_ok(void)
{
	printf("%s (mt) %s\n", progname, MT_VERSION);
	close_stdout_or_die();
	exit(MT_EXIT_OK);
}

int open_input_or_die(const char *name)
{
	int fd;

	if (!name || !strcmp(name, "-")) {
		output_note_input(STDIN_FILENO, NULL);
		return STDIN_FILENO;
	}
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", name);
	output_note_input(fd, name);
	return fd;
}

int mt_progress_enabled(void)
{
	return isatty(STDERR_FILENO);
}

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
	static const char msg[] =
		": interrupted again: stopping without finishing the output\n";
	const char *name = mt_progname();

	if (++interrupts < 2)
		return;
	/* async-signal-safe: write(2), unlink(2) and _exit(2) only */
	output_remove_tmp_signal_safe();
	if (write(STDERR_FILENO, name, strlen(name)) >= 0)
		(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(128 + sig);
}

void mt_finish_on_interrupt(void)
{
	struct stat st;
	struct sigaction sa;

	if (fstat(STDIN_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
}
