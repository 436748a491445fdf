/*
 * mt-stacks: branch events (and sampled stacks) in, call spans out.
 * See docs/mt-stacks.1 for the rules and docs/format.md for the records.
 * This file: the stream in and out, threads, the spreading of equal
 * timestamps, errors, marks and triggers, main. The rules are branch.c's,
 * the stacks stack.c's, uprobes and samples probe.c's (stacks.h).
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
#include "output.h"
#include "err.h"
#include "stacks.h"
#include "tidtable.h"
#include "banned.h"

#define USAGE "usage: mt-stacks [-v] [--no-spread] [--keep-after-trigger] [-o output] [file]\n"

void stacks_check(int err)
{
	if (err)
		die_mt(err, "writing the stream");
}

/* ---- strings: input ids to output ids ---- */

uint32_t stacks_out_str(struct stacks *ctx, const char *s, size_t len)
{
	uint32_t id;

	stacks_check(mt_writer_intern(&ctx->out, s, len, &id));
	return id;
}

uint32_t stacks_out_lit(struct stacks *ctx, const char *s)
{
	return stacks_out_str(ctx, s, strlen(s));
}

uint32_t stacks_map_id(struct stacks *ctx, uint32_t id)
{
	const char *s;
	size_t len;

	if (!id)
		return 0;
	if (id < ctx->idmap_cap && ctx->idmap[id])
		return ctx->idmap[id];
	s = mt_reader_str(&ctx->in, id, &len);
	if (!s)
		die(MT_EXIT_DATA, "%s: string id %u is not defined",
		    ctx->in_name, id);
	if (id < (1u << 26))
		grow_or_die(&ctx->idmap, &ctx->idmap_cap, id,
			    sizeof(*ctx->idmap));
	if (id < ctx->idmap_cap)
		return ctx->idmap[id] = stacks_out_str(ctx, s, len);
	return stacks_out_str(ctx, s, len); /* huge ids: not cached */
}

/* A STRING record redefined an input id. */
static void forget_id(struct stacks *ctx, uint32_t id)
{
	if (id < ctx->idmap_cap)
		ctx->idmap[id] = 0;
	forget_class(ctx, id);
}

/* ---- threads ---- */

static struct thread *thread_get(struct stacks *ctx, uint32_t pid, uint32_t tid)
{
	struct thread *t;
	int is_new;

	if (mt_tidtable_get(&ctx->threads, pid, tid, &t, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (!is_new)
		return t;
	t->ctx = ctx;
	t->pid = pid;
	t->tid = tid;
	t->tracing = 1;
	t->fresh = 1;
	/* the code the trace begins in is depth 0, its callees 1 */
	t->cur.empty_depth = 1;
	return t;
}

/* The thread of index i, in order of first sight. */
static struct thread *thread_at(struct stacks *ctx, size_t i)
{
	return mt_tidtable_at(&ctx->threads, i);
}

static size_t nthreads(const struct stacks *ctx)
{
	return mt_tidtable_count(&ctx->threads);
}

/* ---- spreading equal timestamps ---- */

/*
 * Whether b starts a frame, and so takes a share of the time its timestamp
 * group is spread over. A trace end starts an [untraced] or [syscall]
 * frame: without its share, one after the group's last call would start at
 * the next timestamp, where the next group's first event, the trace start,
 * ends it; zero-length there, it is not inside its frame when the frame
 * returns right after (a system call's wrapper), and viewers nest it
 * beside the frame instead.
 */
static int consumes_time(const struct mt_branch *b)
{
	if ((b->flags & (MT_BF_BEGIN | MT_BF_END)) == MT_BF_END)
		return 1;
	if (b->flags & (MT_BF_BEGIN | MT_BF_END))
		return 0;
	switch (b->kind) {
	case MT_BR_CALL:
	case MT_BR_SYSCALL:
	case MT_BR_HWINT:
	case MT_BR_INT:
		return 1;
	case MT_BR_JMP:
		return b->to.off == 0 && b->to.sym != b->from.sym;
	default:
		return 0;
	}
}

/*
 * Events that share a timestamp are laid out over the interval to the next
 * distinct time: each event that starts a frame takes an equal integer
 * share (the first ones get nothing when there are more such events than
 * nanoseconds); other events take the time where the previous share ended.
 * So nesting comes out right in viewers that cannot nest zero-length spans.
 */
static void flush_batch(struct thread *t, uint64_t next)
{
	uint64_t t0, left, cursor;
	size_t i, consumers = 0;

	if (!t->nbatch)
		return;
	t0 = t->batch[0].time;
	left = next != MT_NONE64 && next > t0 ? next - t0 : 0;
	for (i = 0; i < t->nbatch; i++)
		consumers += consumes_time(&t->batch[i]);
	cursor = t0;
	for (i = 0; i < t->nbatch; i++) {
		const struct mt_branch *b = &t->batch[i];
		uint64_t at = cursor;

		if (consumes_time(b) && consumers) {
			uint64_t share = left / consumers;

			cursor += share;
			left -= share;
			consumers--;
		}
		branch_apply(t, b, at);
	}
	t->nbatch = 0;
}

static void add_branch(struct thread *t, const struct mt_branch *b)
{
	struct stacks *ctx = t->ctx;
	uint64_t time = b->time == MT_NONE64 ? t->last_time : b->time;

	if (time > ctx->cut_time) {
		ctx->n_after_cut++;
		return;
	}
	if (!ctx->spread) {
		branch_apply(t, b, time);
		return;
	}
	if (t->nbatch && t->batch[0].time != time)
		flush_batch(t, time);
	if (t->nbatch == t->capbatch)
		grow_or_die(&t->batch, &t->capbatch, t->nbatch, sizeof(*t->batch));
	t->batch[t->nbatch] = *b;
	t->batch[t->nbatch].time = time;
	t->nbatch++;
}

/* ---- the end of a thread, errors, snapshots, triggers ---- */

/*
 * Whether the thread's last event started a frame under another one: ended
 * there, it would be zero-length at the end of its caller, and viewers
 * would nest it beside it (a thread whose trace ends in a system call).
 */
static int starts_at_end(struct thread *t)
{
	struct frame *f = top(t);

	return f && f->start == t->last_time && parent_of(t, t->cur.n - 1);
}

/* The thread's events end (or a snapshot does): what is open stays open.
 * Spreading, a frame the last event started gets the nanosecond after it
 * (there is no next time to spread over). */
static void end_thread(struct thread *t)
{
	struct stacks *ctx = t->ctx;

	flush_batch(t, MT_NONE64);
	if (t->last_seen > t->last_time && t->last_seen <= ctx->cut_time)
		t->last_time = t->last_seen;
	else if (ctx->spread && starts_at_end(t) &&
		 t->last_time < ctx->cut_time &&
		 t->last_time < MT_NONE64 - 1)
		t->last_time++;
	end_gap(t, t->last_time);
	stack_reset(t, t->last_time, MT_SF_OPEN);
	t->started = 0;
	t->tracing = 1;
}

static void error(struct thread *t, const struct mt_error *e)
{
	struct stacks *ctx = t->ctx;
	uint64_t time = e->time == MT_NONE64 ? t->last_time : e->time;
	char name[300];
	const char *msg = mt_reader_str(&ctx->in, e->msg, NULL);

	flush_batch(t, time);
	if (time < t->last_time)
		time = t->last_time;
	end_gap(t, time);
	stack_reset(t, time, MT_SF_OPEN);
	t->last_time = time;
	t->tracing = 1;
	snprintf(name, sizeof(name), "[%s: %.250s]",
		 e->class == MT_ERRC_LOST ? "lost data" : "decode error",
		 msg ? msg : "?");
	t->gap = 1;
	t->gap_start = time;
	t->gap_name = stacks_out_lit(ctx, name);
}

/* Every thread's trace ends at cut_time. */
static void cut_all(struct stacks *ctx)
{
	size_t i;

	ctx->cut_pending = 0;
	for (i = 0; i < nthreads(ctx); i++) {
		struct thread *t = thread_at(ctx, i);

		flush_batch(t, MT_NONE64);
		if (t->started)
			end_thread(t);
	}
}

static void mark(struct stacks *ctx, const struct mt_mark *m)
{
	size_t i;

	if (m->tid != MT_NONE32 && m->time != MT_NONE64) {
		/* the thread was running then */
		struct thread *t = thread_get(ctx, m->pid, m->tid);

		if (m->time > t->last_seen)
			t->last_seen = m->time;
	}

	if (m->kind == MT_MARK_SNAPSHOT) {
		/* a new snapshot: nothing carries over */
		for (i = 0; i < nthreads(ctx); i++)
			end_thread(thread_at(ctx, i));
		ctx->cut_time = MT_NONE64;
	} else if (m->kind == MT_MARK_TRIGGER && !ctx->keep_after_trigger) {
		uint32_t name = m->text ? stacks_map_id(ctx, m->text) : 0;

		if (!name) {
			/* no function named: the trace ends at the mark */
			ctx->cut_time = m->time;
			cut_all(ctx);
			return;
		}
		for (i = 0; i < nthreads(ctx); i++) {
			struct thread *t = thread_at(ctx, i);

			if (m->tid == MT_NONE32 || m->tid == t->tid) {
				t->trigger = 1;
				t->trigger_name = name;
			}
		}
		if (m->tid != MT_NONE32) {
			struct thread *t = thread_get(ctx, m->pid, m->tid);

			t->trigger = 1;
			t->trigger_name = name;
		}
	}
}

/* ---- main loop ---- */

static void pass_string_ids(struct stacks *ctx, struct mt_record *r)
{
	switch (r->type) {
	case MT_REC_THREAD:
		r->u.thread.comm = stacks_map_id(ctx, r->u.thread.comm);
		stacks_check(mt_write_thread(&ctx->out, &r->u.thread));
		break;
	case MT_REC_ERROR:
		r->u.error.msg = stacks_map_id(ctx, r->u.error.msg);
		stacks_check(mt_write_error(&ctx->out, &r->u.error));
		break;
	case MT_REC_MARK:
		r->u.mark.name = stacks_map_id(ctx, r->u.mark.name);
		r->u.mark.text = stacks_map_id(ctx, r->u.mark.text);
		stacks_check(mt_write_mark(&ctx->out, &r->u.mark));
		break;
	case MT_REC_META:
		r->u.meta.key = stacks_map_id(ctx, r->u.meta.key);
		r->u.meta.value = stacks_map_id(ctx, r->u.meta.value);
		stacks_check(mt_write_meta(&ctx->out, &r->u.meta));
		break;
	case MT_REC_SPAN:
		r->u.span.name = stacks_map_id(ctx, r->u.span.name);
		r->u.span.dso = stacks_map_id(ctx, r->u.span.dso);
		stacks_check(mt_write_span(&ctx->out, &r->u.span));
		break;
	}
}

static void each_thread(struct stacks *ctx, uint32_t pid, uint32_t tid,
			void (*fn)(struct thread *, const void *), const void *arg)
{
	size_t i;

	if (tid != MT_NONE32) {
		fn(thread_get(ctx, pid, tid), arg);
		return;
	}
	for (i = 0; i < nthreads(ctx); i++)
		if (pid == MT_NONE32 || thread_at(ctx, i)->pid == pid)
			fn(thread_at(ctx, i), arg);
}

static void error_fn(struct thread *t, const void *arg)
{
	error(t, arg);
}

static void run(struct stacks *ctx)
{
	struct mt_record r;
	int got, show = mt_progress_enabled();
	unsigned long long nrec = 0;
	size_t i;

	while ((got = mt_reader_next(&ctx->in, &r)) > 0) {
		if (show && !(++nrec & 0xfffff))
			fprintf(stderr, "\r%s: %llu records", mt_progname(), nrec);
		switch (r.type) {
		case MT_REC_END:
			break;
		case MT_REC_STRING:
			forget_id(ctx, r.u.string.id);
			break;
		case MT_REC_BRANCH:
			ctx->n_branches++;
			add_branch(thread_get(ctx, r.u.branch.pid,
					      r.u.branch.tid),
				   &r.u.branch);
			break;
		case MT_REC_SAMPLE:
			ctx->n_samples++;
			if (is_event_sample(ctx, &r.u.sample))
				event_sample(thread_get(ctx, r.u.sample.pid,
							r.u.sample.tid), &r.u.sample);
			else
				probe_sample(thread_get(ctx, r.u.sample.pid, r.u.sample.tid),
					     &r.u.sample);
			break;
		case MT_REC_ERROR: {
			struct mt_error e = r.u.error;

			each_thread(ctx, e.pid, e.tid, error_fn, &e);
			pass_string_ids(ctx, &r);
			break;
		}
		case MT_REC_MARK: {
			struct mt_mark m = r.u.mark;

			if (is_entry_only_mark(ctx, &m)) {
				/* timeless, for this stage only */
				add_entry_only(ctx, m.text);
				break;
			}
			if (is_event_mark(ctx, &m)) {
				add_event(ctx, m.text);
				break;
			}
			pass_string_ids(ctx, &r);
			mark(ctx, &m);
			break;
		}
		case MT_REC_THREAD:
		case MT_REC_META:
		case MT_REC_SPAN:
			pass_string_ids(ctx, &r);
			break;
		default:
			stacks_check(mt_write_raw(&ctx->out, r.raw, r.raw_len));
			break;
		}
		if (ctx->cut_pending)
			cut_all(ctx);
	}
	if (got < 0)
		die_reader(&ctx->in, got, ctx->in_name);
	if (show && nrec > 0xfffff)
		fputs("\r\033[K", stderr);
	for (i = 0; i < nthreads(ctx); i++)
		end_thread(thread_at(ctx, i));
}

static void report(struct stacks *ctx, int verbose)
{
	unsigned long long odd = ctx->n_bad_end + ctx->n_bad_start +
				 ctx->n_noflags + ctx->n_after_cut;

	if (!verbose && !odd)
		return;
	fprintf(stderr, "%s: %s: %llu branches, %llu samples, %zu threads, "
		"%llu spans written\n", mt_progname(), ctx->in_name,
		ctx->n_branches, ctx->n_samples, nthreads(ctx), ctx->n_spans);
	if (ctx->n_bad_end)
		fprintf(stderr, "  %llu 'tr end' while not tracing, ignored\n",
			ctx->n_bad_end);
	if (ctx->n_bad_start)
		fprintf(stderr, "  %llu 'tr strt' while tracing, ignored\n",
			ctx->n_bad_start);
	if (ctx->n_noflags)
		fprintf(stderr, "  %llu branches without flags\n",
			ctx->n_noflags);
	if (ctx->n_after_cut)
		fprintf(stderr, "  %llu events after the trigger, dropped\n",
			ctx->n_after_cut);
	if (ctx->n_entry_only)
		fprintf(stderr, "  %llu functions probed at entry only\n",
			ctx->n_entry_only);
	if (ctx->n_event_samples)
		fprintf(stderr, "  %llu samples of --events, written as instants\n",
			ctx->n_event_samples);
}

int main(int argc, char **argv)
{
	enum { OPT_NO_SPREAD = 256, OPT_KEEP };
	static const struct option longopts[] = {
		{ "no-spread", no_argument, NULL, OPT_NO_SPREAD },
		{ "keep-after-trigger", no_argument, NULL, OPT_KEEP },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	/* the run's state: static, so that what it holds stays reachable
	 * until the exit (nothing is freed but the stream) */
	static struct stacks run_state = { .spread = 1, .cut_time = MT_NONE64 };
	struct stacks *ctx = &run_state;
	struct mt_filter_io io = { 0 };
	int c, err;

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	while ((c = mt_getopt(argc, argv, "o:v", longopts, USAGE)) != -1) {
		switch (c) {
		case OPT_NO_SPREAD:
			ctx->spread = 0;
			break;
		case OPT_KEEP:
			ctx->keep_after_trigger = 1;
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	output_binary_or_die("an mt stream");
	ctx->in_name = io.in_name;
	mt_tidtable_init(&ctx->threads, sizeof(struct thread));
	if ((err = mt_reader_init_fd(&ctx->in, io.in_fd, NULL, 0)))
		die_mt(err, "%s", ctx->in_name);
	if ((err = mt_writer_init_fd(&ctx->out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	{
		struct mt_meta m = { stacks_out_lit(ctx, "stacks"),
				      stacks_out_lit(ctx, "mt-stacks") };

		stacks_check(mt_write_meta(&ctx->out, &m));
	}
	run(ctx);
	stacks_check(mt_writer_finish(&ctx->out));
	report(ctx, io.verbose);
	mt_reader_release(&ctx->in);
	mt_writer_release(&ctx->out);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
