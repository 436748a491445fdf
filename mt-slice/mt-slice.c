/*
 * mt-slice: keep a time window, some threads, the longer spans of an mt
 * stream. See docs/mt-slice.1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "duration.h"
#include "err.h"
#include "stream.h"
#include "banned.h"

#define USAGE "usage: mt-slice [-v] [--from time] [--to time] [--duration time] [--abs] [--min-duration time] [--pid list] [--tid list] [--max-depth n] [-o output] [file]\n"

static const char *in_name = "<stdin>";
static struct mt_reader in;
static struct mt_writer out;

static uint64_t opt_from, opt_to = MT_NONE64, opt_dur = MT_NONE64, min_dur;
static int have_from, have_to, absolute, have_max_depth;
static int32_t max_depth;
static uint64_t win_from, win_to; /* absolute, once the base is known */
static int have_base;
static unsigned long long n_in, n_kept, n_clipped, n_short;

/* ---- --pid and --tid lists ---- */

struct idlist {
	uint32_t *v;
	size_t n;
};

static struct idlist pids, tids;

static void parse_list(struct idlist *l, const char *s, const char *opt)
{
	char *end;

	while (*s) {
		unsigned long v;
		uint32_t *nv;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v >= MT_NONE32 || (*end && *end != ','))
			die(MT_EXIT_USAGE, "%s: expected numbers separated by commas: %s",
			    opt, s);
		nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
		if (!nv)
			die(MT_EXIT_SYSTEM, "out of memory");
		l->v = nv;
		l->v[l->n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
}

static int in_list(const struct idlist *l, uint32_t id)
{
	size_t i;

	if (!l->n)
		return 1;
	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 1;
	return 0;
}

static int thread_kept(uint32_t pid, uint32_t tid)
{
	return in_list(&pids, pid) && in_list(&tids, tid);
}

/* ---- the window ---- */

/* The first timestamp of the input is the start of the trace. */
static void see_time(uint64_t t)
{
	uint64_t base;

	if (have_base || t == MT_NONE64)
		return;
	have_base = 1;
	base = absolute ? 0 : t;
	win_from = have_from ? base + opt_from : 0;
	if (opt_dur != MT_NONE64)
		win_to = win_from + opt_dur;
	else
		win_to = have_to ? base + opt_to : MT_NONE64;
}

static int time_kept(uint64_t t)
{
	if (t == MT_NONE64)
		return 1;
	return t >= win_from && t < win_to;
}

/* ---- spans: clipped at the edges, parents first on equal starts ---- */

/*
 * Spans arrive as mt-stacks writes them, when they end, parents first among
 * equal starts. Clipping gives every span that crosses the window's start
 * the same start; those are held, per thread, and written at the end
 * ordered by depth, outermost first. They are the frames open at the
 * window's start: their number is bounded by the stacks' depth.
 */
struct held {
	struct mt_span *v;
	size_t n, cap;
};

static struct held held;

static void hold(const struct mt_span *s)
{
	if (held.n == held.cap) {
		size_t cap = held.cap ? held.cap * 2 : 64;
		struct mt_span *v = realloc(held.v, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		held.v = v;
		held.cap = cap;
	}
	held.v[held.n++] = *s;
}

static void check(int err)
{
	if (err)
		die_mt(err, "writing the stream");
}

static int by_thread_depth(const void *a, const void *b)
{
	const struct mt_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return 0;
}

static void flush_held(void)
{
	size_t i, j;

	/* insertion sort keeps equal keys in arrival order */
	for (i = 1; i < held.n; i++) {
		struct mt_span s = held.v[i];

		for (j = i; j > 0 && by_thread_depth(&held.v[j - 1], &s) > 0; j--)
			held.v[j] = held.v[j - 1];
		held.v[j] = s;
	}
	for (i = 0; i < held.n; i++)
		check(mt_write_span(&out, &held.v[i]));
	n_kept += held.n;
	held.n = 0;
}

static void span(const struct mt_span *in_s)
{
	struct mt_span s = *in_s;

	see_time(s.start);
	if (!thread_kept(s.pid, s.tid))
		return;
	if (s.end - s.start < min_dur) {
		n_short++;
		return;
	}
	if (have_max_depth && s.depth >= max_depth)
		return;
	if (s.start >= win_to)
		return;
	if (s.start < win_from && s.end <= win_from)
		return;
	if (s.start < win_from) {
		s.start = win_from;
		s.flags |= MT_SF_CLIPSTART;
	}
	if (win_to != MT_NONE64 && s.end > win_to) {
		s.end = win_to;
		s.flags |= MT_SF_CLIPEND;
	}
	if (s.flags & (MT_SF_CLIPSTART | MT_SF_CLIPEND))
		n_clipped++;
	if (s.start == win_from && have_from) {
		hold(&s);
		return;
	}
	check(mt_write_span(&out, &s));
	n_kept++;
}

/* ---- main loop ---- */

static void keep(const struct mt_record *r)
{
	check(mt_write_raw(&out, r->raw, r->raw_len));
	n_kept++;
}

static void run(void)
{
	struct mt_record r;
	int got;

	while ((got = mt_reader_next(&in, &r)) > 0) {
		n_in++;
		switch (r.type) {
		case MT_REC_END:
			n_in--;
			break;
		case MT_REC_SPAN:
			span(&r.u.span);
			break;
		case MT_REC_THREAD:
			see_time(r.u.thread.time);
			if (thread_kept(r.u.thread.pid, r.u.thread.tid))
				keep(&r);
			break;
		case MT_REC_BRANCH:
			see_time(r.u.branch.time);
			if (thread_kept(r.u.branch.pid, r.u.branch.tid) &&
			    time_kept(r.u.branch.time))
				keep(&r);
			break;
		case MT_REC_ERROR:
			see_time(r.u.error.time);
			if (thread_kept(r.u.error.pid, r.u.error.tid) &&
			    time_kept(r.u.error.time))
				keep(&r);
			break;
		case MT_REC_MARK:
			see_time(r.u.mark.time);
			if ((r.u.mark.tid == MT_NONE32 ||
			     thread_kept(r.u.mark.pid, r.u.mark.tid)) &&
			    time_kept(r.u.mark.time))
				keep(&r);
			break;
		case MT_REC_SAMPLE:
			see_time(r.u.sample.time);
			if (thread_kept(r.u.sample.pid, r.u.sample.tid) &&
			    time_kept(r.u.sample.time))
				keep(&r);
			break;
		default:
			/* strings, meta, and types this version does not know */
			keep(&r);
			break;
		}
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", in_name,
		       (unsigned long long)mt_reader_offset(&in));
	flush_held();
}

static uint64_t duration_arg(const char *s, const char *opt)
{
	uint64_t v;
	int err = mt_parse_duration(s, &v);

	if (err)
		die(MT_EXIT_USAGE, "%s %s: %s (a number and a unit: ns, us, ms, s)",
		    opt, s, mt_strerror(err));
	return v;
}

int main(int argc, char **argv)
{
	enum {
		OPT_FROM = 256, OPT_TO, OPT_DURATION, OPT_ABS, OPT_MIN, OPT_PID,
		OPT_TID, OPT_MAXDEPTH, OPT_HELP, OPT_VERSION
	};
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "abs", no_argument, NULL, OPT_ABS },
		{ "min-duration", required_argument, NULL, OPT_MIN },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_name = NULL;
	int verbose = 0, fd = STDIN_FILENO, c, err;
	unsigned char magic[MT_MAGIC_LEN];
	ssize_t got = 0;

	mt_set_progname(argv[0]);
	while ((c = getopt_long(argc, argv, "o:v", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FROM:
			opt_from = duration_arg(optarg, "--from");
			have_from = 1;
			break;
		case OPT_TO:
			opt_to = duration_arg(optarg, "--to");
			have_to = 1;
			break;
		case OPT_DURATION:
			opt_dur = duration_arg(optarg, "--duration");
			break;
		case OPT_ABS:
			absolute = 1;
			break;
		case OPT_MIN:
			min_dur = duration_arg(optarg, "--min-duration");
			break;
		case OPT_PID:
			parse_list(&pids, optarg, "--pid");
			break;
		case OPT_TID:
			parse_list(&tids, optarg, "--tid");
			break;
		case OPT_MAXDEPTH: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < -1000000 || v > 1000000)
				die(MT_EXIT_USAGE, "--max-depth %s: expected a number", optarg);
			max_depth = (int32_t)v;
			have_max_depth = 1;
			break;
		}
		case 'o':
			out_name = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_HELP:
			fputs(USAGE, stdout);
			close_stdout_or_die();
			return MT_EXIT_OK;
		case OPT_VERSION:
			puts("mt-slice (mt) 0.1");
			close_stdout_or_die();
			return MT_EXIT_OK;
		default:
			fputs(USAGE, stderr);
			return MT_EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		fputs(USAGE, stderr);
		return MT_EXIT_USAGE;
	}
	if (have_to && opt_dur != MT_NONE64)
		die(MT_EXIT_USAGE, "--to and --duration: give one of them");
	if (have_to && have_from && opt_to < opt_from)
		die(MT_EXIT_USAGE, "--to is before --from");
	if (optind < argc && strcmp(argv[optind], "-")) {
		in_name = argv[optind];
		fd = open(in_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
	}
	if (out_name) {
		int ofd = open(out_name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

		if (ofd < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", out_name);
		if (dup2(ofd, STDOUT_FILENO) < 0)
			die_errno(MT_EXIT_SYSTEM, "dup2");
		close(ofd);
	}
	/* what kind of input: sniff the magic */
	while (got < (ssize_t)sizeof(magic)) {
		ssize_t n = read(fd, magic + got, sizeof(magic) - (size_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
		if (!n)
			break;
		got += n;
	}
	if (got == 8 && !memcmp(magic, "\x10\x00\x04\x46\x78\x54\x16\x00", 8))
		die(MT_EXIT_DATA, "%s: an FXT file: this version of mt-slice reads "
		    "mt streams only; slice before mt-fxt", in_name);
	if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b)
		die(MT_EXIT_DATA, "%s: gzip data: this version of mt-slice reads "
		    "mt streams only", in_name);
	if ((err = mt_reader_init_fd(&in, fd, magic, (size_t)got)))
		die_mt(err, "%s", in_name);
	if ((err = mt_writer_init_fd(&out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	if (!have_to && opt_dur == MT_NONE64)
		win_to = MT_NONE64;
	run();
	check(mt_writer_finish(&out));
	if (verbose || n_short)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), in_name, n_in, n_kept, n_clipped, n_short);
	mt_reader_release(&in);
	mt_writer_release(&out);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
