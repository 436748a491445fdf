/*
 * mt-slice: keep a time window, some threads, the longer spans or what
 * runs between two calls of an mt stream or an FXT file. See
 * docs/mt-slice.1; slice.h says which file does what.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "fxtread.h"
#include "idlist.h"
#include "kind.h"
#include "output.h"
#include "slice.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

#define USAGE "usage: mt-slice [-v] [--from time] [--to time] [--duration time] [--abs] [--min-duration time] [--pid list] [--tid list] [--max-depth n] [--match regex] [--between start stop] [--gzip] [-o output] [file]\n"

/* ---- --pid and --tid lists ---- */

int thread_kept(const struct slice *sl, uint32_t pid, uint32_t tid)
{
	return mt_idlist_has(&sl->pids, pid) && mt_idlist_has(&sl->tids, tid);
}

/* ---- the window ---- */

/* The first timestamp of the input is the start of the trace. */
void see_time(struct slice *sl, uint64_t t)
{
	uint64_t base;

	if (sl->have_base || t == MT_NONE64)
		return;
	sl->have_base = 1;
	base = sl->absolute ? 0 : t;
	sl->win_from = sl->have_from ? base + sl->opt_from : 0;
	/* --duration alone: the window ends that long after the start */
	if (sl->opt_dur != MT_NONE64)
		sl->win_to = base + sl->opt_from + sl->opt_dur;
	else
		sl->win_to = sl->have_to ? base + sl->opt_to : MT_NONE64;
}

int time_kept(const struct slice *sl, uint64_t t)
{
	if (sl->have_between)
		return between_kept(t);
	if (t == MT_NONE64)
		return 1;
	return t >= sl->win_from && t < sl->win_to;
}

/* ---- temporary files ---- */

void tmp_io(int wr, FILE *f, void *p, size_t n, uint64_t at)
{
	ssize_t k = wr ? pwrite(fileno(f), p, n, (off_t)at) :
			 pread(fileno(f), p, n, (off_t)at);

	if (k != (ssize_t)n)
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
}

FILE *tmp_open(void)
{
	FILE *f = tmpfile();

	if (!f)
		die_errno(MT_EXIT_SYSTEM, "a temporary file");
	return f;
}


/* The options into *sl (set to none before); *io gets -o, -v and the
 * input; *gzip is --gzip. Dies (usage) on a bad one. */
static void parse_options(int argc, char **argv, struct slice *sl,
			  struct mt_filter_io *io, int *gzip)
{
	enum {
		OPT_FROM = 256, OPT_TO, OPT_DURATION, OPT_ABS, OPT_MIN, OPT_PID,
		OPT_TID, OPT_MAXDEPTH, OPT_MATCH, OPT_BETWEEN, OPT_GZIP
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
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "between", required_argument, NULL, OPT_BETWEEN },
		{ "gzip", no_argument, NULL, OPT_GZIP },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = mt_getopt(argc, argv, "o:v", longopts, USAGE)) != -1) {
		switch (c) {
		case OPT_FROM:
			sl->opt_from = mt_duration_arg(optarg, "--from");
			sl->have_from = 1;
			break;
		case OPT_TO:
			sl->opt_to = mt_duration_arg(optarg, "--to");
			sl->have_to = 1;
			break;
		case OPT_DURATION:
			sl->opt_dur = mt_duration_arg(optarg, "--duration");
			break;
		case OPT_ABS:
			sl->absolute = 1;
			break;
		case OPT_MIN:
			sl->min_dur = mt_duration_arg(optarg, "--min-duration");
			sl->have_min = 1;
			break;
		case OPT_PID:
			mt_idlist_parse_or_die(&sl->pids, optarg, "--pid");
			break;
		case OPT_TID:
			mt_idlist_parse_or_die(&sl->tids, optarg, "--tid");
			break;
		case OPT_MATCH:
			mt_regex_option(&sl->match_rx, "--match", optarg);
			break;
		case OPT_BETWEEN:
			/* STOP is the next argument, whatever it looks like */
			if (sl->have_between)
				die(MT_EXIT_USAGE, "--between: given twice");
			if (optind >= argc)
				die(MT_EXIT_USAGE, "--between %s: STOP missing "
				    "(--between START STOP)", optarg);
			sl->start_pat = optarg;
			sl->stop_pat = argv[optind++];
			mt_regex_option(&sl->start_rx, "--between", sl->start_pat);
			mt_regex_option(&sl->stop_rx, "--between", sl->stop_pat);
			sl->have_between = 1;
			break;
		case OPT_MAXDEPTH: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < -1000000 || v > 1000000)
				die(MT_EXIT_USAGE, "--max-depth %s: expected a number", optarg);
			sl->max_depth = (int32_t)v;
			sl->have_max_depth = 1;
			break;
		}
		case OPT_GZIP:
			*gzip = 1;
			break;
		default:
			mt_filter_option(io, c, USAGE);
		}
	}
	/* the operands before the window's checks, as always */
	if (argc - optind > 1)
		usage_fail(USAGE);
	if (sl->have_to && sl->opt_dur != MT_NONE64)
		die(MT_EXIT_USAGE, "--to and --duration: give one of them");
	if (sl->have_to && sl->have_from && sl->opt_to < sl->opt_from)
		die(MT_EXIT_USAGE, "--to is before --from");
	mt_filter_open_or_die(io, argc - optind, argv + optind, USAGE);
	output_binary_or_die("a trace");
	sl->verbose = io->verbose;
}

/* The first bytes of the input, up to n: how many there were. */
static size_t sniff(const char *in_name, int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
		if (!r)
			break;
		got += (size_t)r;
	}
	return got;
}

int main(int argc, char **argv)
{
	struct mt_filter_io io = { 0 };
	struct slice sl = { .in_name = "<stdin>", .opt_to = MT_NONE64,
			    .opt_dur = MT_NONE64 };
	int gzip = 0;
	unsigned char magic[MT_MAGIC_LEN];
	size_t got;
	enum mt_kind kind;

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	parse_options(argc, argv, &sl, &io, &gzip);
	sl.in_name = io.in_name;
	gzip |= output_name_is_gz(io.out_name);
	/* what kind of input: sniff the magic */
	got = sniff(sl.in_name, io.in_fd, magic, sizeof(magic));
	if (!sl.have_to && sl.opt_dur == MT_NONE64)
		sl.win_to = MT_NONE64;
	kind = mt_kind_of(magic, got);
	if (kind == MT_KIND_GZIP)
		fxt_slice(&sl, io.in_fd, magic, got, 1, gzip);
	else if (kind == MT_KIND_FXT)
		fxt_slice(&sl, io.in_fd, magic, got, 0, gzip);
	else if (gzip)
		die(MT_EXIT_USAGE, "%s: an mt stream is written as it is: --gzip "
		    "and -o NAME.gz are for FXT input", sl.in_name);
	else
		stream_slice(&sl, io.in_fd, magic, got);
	mt_regex_release(&sl.match_rx);
	mt_regex_release(&sl.start_rx);
	mt_regex_release(&sl.stop_rx);
	mt_idlist_release(&sl.pids);
	mt_idlist_release(&sl.tids);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
