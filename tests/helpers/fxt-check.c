/*
 * fxt-check: read an FXT file the way Perfetto imports it (common/fxtread.h,
 * docs/fxt.md) and report everything Perfetto would drop, refuse
 * or misplace.
 *
 * usage: fxt-check [--slices] [--names] [--counters] FILE
 *
 * FILE ("-": standard input) is a plain FXT file (gunzip it first). The
 * summary is one line,
 *
 *   fxt-check: N records, S slices, T threads; problems: none
 *
 * or, instead of "none", the count of each kind of problem found
 * ("undefined_string 2, did_not_end 1"), followed by up to three examples of
 * each, one a line:
 *
 *   fxt-check: FILE: byte offset 0x40: undefined_string: what
 *
 * --slices prints every slice Perfetto would create on a thread track, one
 * a line, sorted by (pid, tid, start, file order):
 *
 *   pid tid start end depth name
 *
 * times in ns, end "-" for a slice that never ends (Perfetto's duration
 * -1), depth as Perfetto computes it (0: top level); the name is the rest of the line, with
 * backslash and control bytes escaped (\\, \n, \t, \xNN).
 *
 * --names prints the names kernel objects give, by pid then tid, the last
 * one given winning:
 *
 *   process PID NAME
 *   thread PID TID NAME
 *
 * --counters prints every counter value Perfetto would import, in file
 * order, one a line:
 *
 *   pid ts value track
 *
 * one line for each numeric argument of a counter event; Perfetto puts it on
 * the counter track of process pid named "<event name>:<arg name>:<counter
 * id>" (track, escaped as names are), so (pid, track) is one track.
 *
 * The listings go to standard output; the summary and the examples then go
 * to standard error, and to standard output when nothing is listed.
 *
 * Exit status: 0 when there is no problem, 1 when there is one, 2 on a
 * usage error, 3 on a system error (unreadable file, out of memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "die.h"
#include "err.h"
#include "fxtcheck.h"
#include "banned.h"

static const char usage_text[] =
	"usage: fxt-check [--slices] [--names] [--counters] FILE\n";

static void read_input(const char *name, struct mt_buf *b)
{
	int fd = STDIN_FILENO;

	if (strcmp(name, "-")) {
		fd = open(name, O_RDONLY);
		if (fd < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", name);
	}
	for (;;) {
		ssize_t got;

		if (mt_buf_grow(b, 65536))
			die(MT_EXIT_SYSTEM, "%s: out of memory", name);
		got = read(fd, b->p + b->len, b->cap - b->len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", name);
		if (!got)
			break;
		b->len += (size_t)got;
	}
	if (fd != STDIN_FILENO)
		close(fd);
}

static void put_text(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch == '\\')
			fputs("\\\\", stdout);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\t')
			fputs("\\t", stdout);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
}

static void put_str(const struct mt_fxt_check *c, uint32_t id)
{
	size_t len;
	const char *p = mt_fxt_check_str(c, id, &len);

	put_text(p, len);
}

static void list_slices(const struct mt_fxt_check *c)
{
	size_t i;

	for (i = 0; i < c->nslices; i++) {
		const struct mt_fxt_slice *s = &c->slices[i];

		printf("%u %u %lld ", s->pid, s->tid, (long long)s->start);
		if (s->dur == -1)
			fputs("-", stdout);
		else
			printf("%lld", (long long)(s->start + s->dur));
		printf(" %u ", s->depth);
		put_str(c, s->name);
		putchar('\n');
	}
}

static void list_names(const struct mt_fxt_check *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++) {
		const struct mt_fxt_name *n = &c->names[i];

		if (n->thread)
			printf("thread %u %u ", n->pid, n->tid);
		else
			printf("process %u ", n->pid);
		put_str(c, n->name);
		putchar('\n');
	}
}

/* Perfetto's fuchsia parser: one value per numeric argument, on the track
 * of (process, "name:arg:counter id"). */
static void list_counters(const void *data, size_t len)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	unsigned i;

	mt_fxt_reader_init_mem(&r, data, len);
	while (mt_fxt_next(&r, &rec) > 0) {
		const struct mt_fxt_event *e = &rec.u.event;
		int64_t ts;

		if (rec.type != MT_FXT_EVENT || rec.bad || rec.undefined ||
		    !rec.provider || e->type != MT_FXT_EV_COUNTER ||
		    mt_fxt_ticks_to_ns(e->ts, rec.provider->ticks_per_second, &ts))
			continue;
		for (i = 0; i < e->nargs; i++) {
			const struct mt_fxt_arg *a = &e->args[i];

			switch (a->type) {
			case MT_FXT_ARG_INT32:
			case MT_FXT_ARG_UINT32:
			case MT_FXT_ARG_INT64:
			case MT_FXT_ARG_UINT64:
				printf("%u %lld %lld ", (uint32_t)e->thread.pid,
				       (long long)ts, (long long)a->i);
				break;
			case MT_FXT_ARG_DOUBLE:
				printf("%u %lld %.17g ", (uint32_t)e->thread.pid,
				       (long long)ts, a->d);
				break;
			default:
				continue; /* fuchsia_non_numeric_counters */
			}
			put_text(e->name.p, e->name.len);
			putchar(':');
			put_text(a->name.p, a->name.len);
			printf(":%llu\n", (unsigned long long)e->id);
		}
	}
	mt_fxt_reader_release(&r);
}

static void summary(FILE *out, const char *name, const struct mt_fxt_check *c)
{
	const char *sep = "";
	int k;
	uint64_t j;

	fprintf(out, "fxt-check: %llu records, %zu slices, %zu threads; problems: ",
		(unsigned long long)c->nrecords, c->nslices, c->nthreads);
	if (!mt_fxt_check_problems(c))
		fputs("none", out);
	for (k = 0; k < MT_FXT_NPROBLEMS; k++) {
		if (!c->count[k])
			continue;
		fprintf(out, "%s%s %llu", sep, mt_fxt_problem_name(k),
			(unsigned long long)c->count[k]);
		sep = ", ";
	}
	fputc('\n', out);
	for (k = 0; k < MT_FXT_NPROBLEMS; k++)
		for (j = 0; j < c->count[k] && j < MT_FXT_EXAMPLES; j++)
			fprintf(out, "fxt-check: %s: byte offset 0x%llx: %s: %s\n",
				name, (unsigned long long)c->ex[k][j].offset,
				mt_fxt_problem_name(k), c->ex[k][j].what);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "counters", no_argument, NULL, 'c' },
		{ "names", no_argument, NULL, 'n' },
		{ "slices", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct mt_buf in = MT_BUF_INIT;
	struct mt_fxt_check c;
	int ch, err, names = 0, slices = 0, counters = 0;
	const char *name;

	mt_set_progname(argv[0]);
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			fputs(usage_text, stdout);
			close_stdout_or_die();
			return MT_EXIT_OK;
		case 'c':
			counters = 1;
			break;
		case 'n':
			names = 1;
			break;
		case 's':
			slices = 1;
			break;
		default:
			fputs(usage_text, stderr);
			return MT_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		fputs(usage_text, stderr);
		return MT_EXIT_USAGE;
	}
	name = argv[optind];
	read_input(name, &in);

	mt_fxt_check_init(&c);
	err = mt_fxt_check_mem(&c, in.p, in.len);
	if (err)
		die_mt(err, "%s", name);
	if (slices)
		list_slices(&c);
	if (names)
		list_names(&c);
	if (counters)
		list_counters(in.p, in.len);
	summary(slices || names || counters ? stderr : stdout, name, &c);
	err = mt_fxt_check_problems(&c) ? MT_EXIT_DATA : MT_EXIT_OK;
	mt_fxt_check_release(&c);
	mt_buf_release(&in);
	close_stdout_or_die();
	return err;
}
