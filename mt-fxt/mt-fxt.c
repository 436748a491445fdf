/*
 * mt-fxt: span streams in, Fuchsia trace format (or Chrome JSON) out, as
 * Perfetto imports it. See docs/mt-fxt.1; the layout and Perfetto's rules
 * are in docs/fxt.md. This file walks the stream; the writer chosen here,
 * fxt.h's or json.h's, writes it (writer.h).
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
#include "names.h"
#include "stream.h"
#include "tidtable.h"
#include "wire.h"
#include "fxt.h"
#include "json.h"
#include "writer.h"
#include "banned.h"

#define USAGE "usage: mt-fxt [-v] [--json] [--dso] [--gzip] [--allow-empty] [-o output] [file]\n"

static const char *in_name; /* for messages (mt_filter_open_or_die) */
static const char *out_name = "<stdout>";
static struct mt_reader in;
static const struct writer *wr = &fxt_writer;
static int with_dso;

const char *const pinned_names[NPINNED + 1] = {
	[S_PROCESS] = "process", [S_ADDRESS] = "address",
	[S_INFERRED] = "inferred start", [S_OPEN] = "open end",
	[S_CLIPSTART] = "clipped start", [S_CLIPEND] = "clipped end",
	[S_DSO] = "dso", [S_MESSAGE] = "message", [S_CODE] = "code",
	[S_IP] = "ip", [S_UNKNOWN] = "[unknown]", [S_DECODE] = "decode error",
	[S_LOST] = "lost data", [S_TRIGGER] = "trigger",
	[S_FUNCTION] = "function", [S_SNAPSHOT] = "snapshot",
	[S_WALLCLOCK] = "wall clock", [S_UNIX_NS] = "unix time ns",
	[S_CBR] = "cpu frequency of cpu", [S_MHZ] = "MHz", [S_PTWRITE] = "ptwrite",
	[S_PAYLOAD] = "payload", [S_POWER] = "power", [S_EVTRACE] = "event trace",
	[S_MARK] = "mark", [S_TEXT] = "text", [S_VALUE] = "value",
	[S_PERF_NS] = "perf time ns",
	[S_CBR_THREAD] = "cpu frequency of thread",
	[S_TIMESTAMP_PASSED] = "timestamp_passed", [S_ARG] = "arg",
	[S_TIMESTAMP] = "timestamp", [S_TID] = "tid",
	[S_OFF] = "recording off", [S_CALLS_PER_S] = "calls per second",
};

/* ---- threads: by (pid, tid), in the order first seen ---- */

static struct mt_tidtable threads; /* of struct thread */

static struct thread *thread_get(uint32_t pid, uint32_t tid)
{
	struct thread *t;
	int is_new;

	if (mt_tidtable_get(&threads, pid, tid, &t, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (is_new) {
		t->pid = pid;
		t->tid = tid;
		t->index = (uint32_t)(mt_tidtable_count(&threads) - 1);
	}
	return t;
}

/* A thread's name as it changes: t->comm keeps the id of the whole, the
 * writer gets the text cut to 200 bytes (FXT's inline names). */
static void name_thread(const struct mt_thread *th)
{
	struct thread *t = thread_get(th->pid, th->tid);
	const char *s;
	size_t len;
	char *tmp;

	if (!th->comm || th->comm == t->comm)
		return;
	t->comm = th->comm;
	s = text_need(th->comm, &len, &tmp);
	len = utf8_cut(s, len, 200);
	wr->thread_name(t, s, len);
	free(tmp);
}

/* ---- records ---- */

static unsigned long long nspans, ninstants, ncounters, nskipped_branches,
	deep_threads;

static void span(const struct mt_span *s)
{
	struct thread *t = thread_get(s->pid, s->tid);
	struct mt_span out = *s;

	nspans++;
	if (!t->has_depth || s->depth < t->min_depth)
		t->min_depth = s->depth;
	if (!t->has_depth || s->depth > t->max_depth)
		t->max_depth = s->depth;
	t->has_depth = 1;
	if (!with_dso)
		out.dso = 0;
	wr->span(t, &out);
}

/* An instant named by the pinned string name, or, with name_sid, by that
 * input string. */
static void instant(uint32_t pid, uint32_t tid, uint64_t time, uint32_t name,
		    uint32_t name_sid, const struct arg *args, size_t n)
{
	struct thread *t;

	if (pid == MT_NONE32 || tid == MT_NONE32)
		pid = tid = 0; /* a mark of no thread after the spans: pid 0 */
	t = thread_get(pid, tid);
	ninstants++;
	wr->instant(t, time, name, name_sid, args, n);
}

static void error_rec(const struct mt_error *e)
{
	struct arg a[3];
	size_t n = 0;

	if (e->msg)
		a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_MESSAGE, e->msg };
	a[n++] = (struct arg){ MT_FXT_ARG_INT32, S_CODE, e->code };
	if (e->ip)
		a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, e->ip };
	instant(e->pid, e->tid, e->time,
		e->class == MT_ERRC_LOST ? S_LOST : S_DECODE, 0, a, n);
}

/*
 * A cbr packet gives the frequency of the CPU the trace came from. Perfetto
 * keys a counter track by (process, "name:arg:counter id"): the counter id
 * is the CPU, so each CPU has a track of its own; without a cpu in the
 * stream, it is the tid (the frequency of the CPU the thread ran on).
 */
static void cbr(const struct mt_mark *m)
{
	struct thread *t = thread_get(m->pid, m->tid);
	int by_cpu = m->cpu != MT_NONE32;
	uint64_t id = by_cpu ? m->cpu : koid(m->tid);
	unsigned name = by_cpu ? S_CBR : S_CBR_THREAD;
	struct arg a = { MT_FXT_ARG_INT32, S_MHZ, m->value };

	ncounters++;
	wr->counter(t, m->time, name, id, &a);
}

/* A mark that becomes an instant named by its kind, its value and text
 * as arguments. */
static void kind_mark(const struct mt_mark *m)
{
	struct arg a[3];
	size_t n = 0;
	unsigned name;

	switch (m->kind) {
	case MT_MARK_TRIGGER:
		name = S_TRIGGER;
		if (m->text)
			a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_FUNCTION, m->text };
		break;
	case MT_MARK_SNAPSHOT:
		name = S_SNAPSHOT;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_VALUE, m->value };
		break;
	case MT_MARK_WALLCLOCK:
		/* absolute time of this instant: unix time ns; for any other
		 * time t, unix time = unix_ns + (t - perf_ns) */
		name = S_WALLCLOCK;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_UNIX_NS, m->value };
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_PERF_NS, m->time };
		break;
	case MT_MARK_PTWRITE:
		name = S_PTWRITE;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_PAYLOAD, m->value };
		break;
	case MT_MARK_POWER:
		name = S_POWER;
		break;
	case MT_MARK_EVTRACE:
		name = S_EVTRACE;
		break;
	default:
		name = S_MARK;
		break;
	}
	if (m->text && m->kind != MT_MARK_TRIGGER)
		a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_TEXT, m->text };
	instant(m->pid, m->tid, m->time, name, 0, a, n);
}

/*
 * A region a stop indicator's hit closed (magic-trace's trigger
 * arguments): as magic-trace's trace_writer.ml writes a hit, a complete
 * event "hit SYMBOL" on a process of its own, "Snapshot symbol hits",
 * thread "hits", from the passed time to the hit (no time passed, or one
 * after the hit: at the hit), its arguments the passed time, the
 * program's value, the hit's time, thread and address.
 */

static void region(const struct mt_mark *m)
{
	static int named;
	struct arg a[5];
	size_t n = 0, len;
	uint64_t start = m->start <= m->time ? m->start : m->time;
	const char *s;
	char *tmp, *name;

	if (m->time == MT_NONE64)
		return;
	if (!named++) {
		wr->thread_name(thread_get(MT_HITS_PID, MT_HITS_PID), "Snapshot symbol hits", 20);
		wr->thread_name(thread_get(MT_HITS_PID, MT_HITS_TID), "hits", 4);
	}
	s = "", len = 0, tmp = NULL;
	if (m->text)
		s = text_need(m->text, &len, &tmp);
	if (!(name = malloc(len + 5)))
		die(MT_EXIT_SYSTEM, "out of memory");
	memcpy(name, "hit ", 4);
	memcpy(name + 4, s, len);
	free(tmp);
	if (m->start != MT_NONE64)
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_TIMESTAMP_PASSED, m->start };
	a[n++] = (struct arg){ MT_FXT_ARG_INT64, S_ARG, m->value };
	a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_TIMESTAMP, m->time };
	a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_TID, m->tid };
	if (m->ip)
		a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, m->ip };
	ninstants++;
	wr->complete(thread_get(MT_HITS_PID, MT_HITS_TID), name, len + 4, start, m->time, a, n);
	free(name);
}

static void mark(const struct mt_mark *m)
{
	struct arg a[3];
	size_t n = 0;

	switch (m->kind) {
	case MT_MARK_PSB:
		return; /* decoder sync points: noise in a timeline */
	case MT_MARK_CBR:
		cbr(m);
		return;
	case MT_MARK_REGION:
		region(m);
		return;
	case MT_MARK_OFF:
		/* mt-record --max-overhead: from here on the function's
		 * calls are not in the trace (on the thread that made it
		 * the hottest) */
		if (m->text)
			a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_FUNCTION, m->text };
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_CALLS_PER_S, m->value };
		if (m->ip)
			a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, m->ip };
		instant(m->pid, m->tid, m->time, S_OFF, 0, a, n);
		return;
	case MT_MARK_EVENT:
		/* a sample of mt-record --events: named by its event */
		if (m->text)
			a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_FUNCTION, m->text };
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_VALUE, m->value };
		if (m->ip)
			a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, m->ip };
		instant(m->pid, m->tid, m->time, S_MARK, m->name, a, n);
		return;
	default:
		kind_mark(m);
	}
}

/* ---- main loop ---- */

/*
 * Marks of no thread (mt-record's wallclock and snapshot lines) come
 * before any span: they wait for the first span and go on its thread's
 * track, rather than on a track of their own; on pid 0's when no span
 * comes, or when a string they may name is about to be redefined.
 */
static struct mt_mark pending[16];
static size_t npending;

static void flush_pending(uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < npending; i++) {
		pending[i].pid = pid;
		pending[i].tid = tid;
		mark(&pending[i]);
	}
	npending = 0;
}

/* Whether a waiting mark names string id (about to be redefined). */
static int pending_uses(uint32_t id)
{
	size_t i;

	for (i = 0; i < npending; i++)
		if (pending[i].name == id || pending[i].text == id)
			return 1;
	return 0;
}

static void run(void)
{
	struct mt_record r;
	int got, show = mt_progress_enabled();
	unsigned long long nrec = 0;

	while ((got = mt_reader_next(&in, &r)) > 0) {
		if (show && !(++nrec & 0xfffff))
			fprintf(stderr, "\r%s: %llu records", mt_progname(), nrec);
		switch (r.type) {
		case MT_REC_STRING:
			if (pending_uses(r.u.string.id))
				flush_pending(0, 0);
			wr->string_defined(r.u.string.id);
			break;
		case MT_REC_THREAD:
			name_thread(&r.u.thread);
			break;
		case MT_REC_SPAN:
			wr->saw_time(r.u.span.start);
			if (npending)
				flush_pending(r.u.span.pid, r.u.span.tid);
			span(&r.u.span);
			break;
		case MT_REC_MARK:
			wr->saw_time(r.u.mark.time);
			if ((r.u.mark.pid == MT_NONE32 || r.u.mark.tid == MT_NONE32) &&
			    !nspans && npending < sizeof(pending) / sizeof(pending[0]))
				pending[npending++] = r.u.mark;
			else
				mark(&r.u.mark);
			break;
		case MT_REC_ERROR:
			wr->saw_time(r.u.error.time);
			error_rec(&r.u.error);
			break;
		case MT_REC_BRANCH:
		case MT_REC_SAMPLE:
			nskipped_branches++;
			break;
		default:
			break;
		}
	}
	if (got < 0)
		die_reader(&in, got, in_name);
	flush_pending(0, 0);
	if (show && nrec > 0xfffff)
		fputs("\r\033[K", stderr);
}

static void report(int verbose)
{
	/* everything is written by now: what was flushed and what is not yet */
	unsigned long long bytes = out_total();
	size_t i;

	for (i = 0; i < mt_tidtable_count(&threads); i++) {
		const struct thread *t = mt_tidtable_at(&threads, i);

		if (t->has_depth && t->max_depth - t->min_depth >= 512) {
			if (!deep_threads++)
				warn("%s: thread %u nests %d deep: Perfetto drops "
				     "slices deeper than 512", in_name, t->tid,
				     t->max_depth - t->min_depth + 1);
		}
	}
	wr->warn();
	if (nskipped_branches && !nspans)
		warn("%s: %llu branch and sample records but no spans: "
		     "run mt-stacks first", in_name, nskipped_branches);
	if (!verbose)
		return;
	fprintf(stderr, "%s: %s: %llu spans, %llu instants, %llu counters, "
		"%zu threads, %llu bytes", mt_progname(), out_name, nspans,
		ninstants, ncounters, mt_tidtable_count(&threads), bytes);
	if (nspans)
		fprintf(stderr, " (%.1f per span)", (double)bytes / (double)nspans);
	wr->verbose();
	fputc('\n', stderr);
}

/* The options into io and the statics; returns --allow-empty's flag. */
static int parse_options(int argc, char **argv, struct mt_filter_io *io)
{
	enum { OPT_JSON = 256, OPT_DSO, OPT_GZIP, OPT_ALLOW_EMPTY };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "dso", no_argument, NULL, OPT_DSO },
		{ "gzip", no_argument, NULL, OPT_GZIP },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int gzip = 0, allow_empty = 0, c;

	while ((c = mt_getopt(argc, argv, "o:v", longopts, USAGE)) != -1) {
		switch (c) {
		case OPT_JSON:
			wr = &json_writer;
			break;
		case OPT_DSO:
			with_dso = 1;
			break;
		case OPT_GZIP:
			gzip = 1;
			break;
		case OPT_ALLOW_EMPTY:
			allow_empty = 1;
			break;
		default:
			mt_filter_option(io, c, USAGE);
		}
	}
	mt_filter_open_or_die(io, argc - optind, argv + optind, USAGE);
	in_name = io->in_name;
	if (io->out_name)
		out_name = io->out_name;
	if (gzip || output_name_is_gz(io->out_name)) {
		output_binary_or_die("compressed data");
		output_gzip();
	} else if (wr->binary) {
		output_binary_or_die(wr->binary);
	}
	return allow_empty;
}

/* No spans, instants or counters: nothing recorded replaces nothing. */
static int finish_empty(int allow_empty)
{
	if (output_discard()) {
		if (allow_empty)
			return MT_EXIT_OK;
		die(MT_EXIT_DATA, "%s: no spans, instants or counters: "
		    "nothing written, %s left as it was", in_name, out_name);
	}
	out_flush();
	close_stdout_or_die();
	if (allow_empty)
		return MT_EXIT_OK;
	die(MT_EXIT_DATA, "%s: no spans, instants or counters: the "
	    "trace is empty", in_name);
}

int main(int argc, char **argv)
{
	struct mt_filter_io io = { 0 };
	int allow_empty, err;

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	allow_empty = parse_options(argc, argv, &io);
	if ((err = mt_reader_init_fd(&in, io.in_fd, NULL, 0)))
		die_mt(err, "%s", in_name);
	text_init(&in, in_name);
	mt_tidtable_init(&threads, sizeof(struct thread));
	wr->begin(in_name, out_name);
	run();
	wr->end(threads.slots, mt_tidtable_count(&threads));
	report(io.verbose);
	if (!nspans && !ninstants && !ncounters)
		return finish_empty(allow_empty);
	out_flush();
	wr->release();
	mt_reader_release(&in);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
