/*
 * The FXT writer: writer.h's records as FXT (fxt.h), written by
 * common/fxtwrite.h into the output buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "fxtwrite.h"
#include "fxt.h"
#include "banned.h"

static struct mt_fxtw fw;
static const char *out_name;

/* FXT records go through the same buffer as JSON */
static int fxt_write(void *ctx, const void *p, size_t n)
{
	out_mem(p, n);
	return 0;
}

static void fxt_check(int err)
{
	if (err < 0)
		die_mt(err, "%s: writing FXT", out_name);
}

/* The string index of input string id (0 for none), registering it. */
static uint32_t str_ref(uint32_t id)
{
	uint32_t slot;
	const char *s;
	size_t len;
	char *tmp;
	int got;

	if (!id)
		return 0;
	if ((slot = mt_fxtw_str_find(&fw, id)))
		return slot;
	s = text_need(id, &len, &tmp);
	if (!len) {
		free(tmp);
		return 0;
	}
	got = mt_fxtw_str_add(&fw, id, s, len);
	fxt_check(got);
	free(tmp);
	return (uint32_t)got;
}

static uint32_t thread_ref(const struct thread *t)
{
	int got = mt_fxtw_thread_ref(&fw, t->index, koid(t->pid), koid(t->tid));

	fxt_check(got);
	return (uint32_t)got;
}

/* One event record: an instant, a counter (word: the counter id) or a
 * complete event (word: its end), its strings indexes (string arguments
 * too), no category. */
static void event(unsigned etype, const struct thread *t, uint32_t name,
		  uint64_t ts, uint64_t word, const struct arg *args,
		  size_t nargs)
{
	struct mt_fxtw_arg fa[MT_FXT_MAX_ARGS];
	struct mt_fxtw_event ev = {
		.thread = { .index = thread_ref(t) },
		.name = MT_FXTW_INDEX(name), .ts = ts,
		.args = fa, .nargs = (unsigned)nargs,
	};
	size_t i;

	for (i = 0; i < nargs; i++) {
		fa[i] = (struct mt_fxtw_arg){ .type = args[i].type,
					      .name = MT_FXTW_INDEX(args[i].name),
					      .u = args[i].value };
		if (args[i].type == MT_FXT_ARG_STRING)
			fa[i].s = MT_FXTW_INDEX((unsigned)args[i].value);
	}
	fxt_check(mt_fxtw_event(&fw, etype, &ev, word));
}

static void fxt_begin(const char *in, const char *out)
{
	unsigned i;

	out_name = out;
	mt_fxtw_init(&fw, fxt_write, NULL);
	fxt_check(mt_fxtw_magic(&fw));
	fxt_check(mt_fxtw_provider(&fw, 0, "mt", 2));
	fxt_check(mt_fxtw_initialization(&fw, MT_FXT_TICKS_NS));
	fxt_check(mt_fxtw_str_pin(&fw, NPINNED));
	for (i = 1; i <= NPINNED; i++)
		fxt_check(mt_fxtw_string(&fw, i, pinned_names[i],
					 strlen(pinned_names[i])));
}

/* FXT has no use for the times before they are written. */
static void fxt_saw_time(uint64_t t)
{
}

static void fxt_string_defined(uint32_t id)
{
	mt_fxtw_str_forget(&fw, id);
}

/* names go inline; "process" is a pinned index */
static void fxt_thread_name(const struct thread *t, const char *s, size_t len)
{
	if (t->pid == t->tid || t->pid == MT_NONE32)
		fxt_check(mt_fxtw_process_name(&fw, koid(t->pid),
					       MT_FXTW_INLINE(s, len)));
	fxt_check(mt_fxtw_thread_name(&fw, koid(t->tid), MT_FXTW_INLINE(s, len),
				      koid(t->pid), MT_FXTW_INDEX(S_PROCESS)));
}

static void fxt_span(const struct thread *t, const struct mt_span *s)
{
	struct arg args[6];
	size_t n = 0;

	if (s->address)
		args[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_ADDRESS, s->address };
	if (s->flags & MT_SF_INFERRED)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_INFERRED, 1 };
	if (s->flags & MT_SF_OPEN)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_OPEN, 1 };
	if (s->flags & MT_SF_CLIPSTART)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_CLIPSTART, 1 };
	if (s->flags & MT_SF_CLIPEND)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_CLIPEND, 1 };
	if (s->dso)
		args[n++] = (struct arg){ MT_FXT_ARG_STRING, S_DSO, str_ref(s->dso) };
	event(MT_FXT_EV_COMPLETE, t, s->name ? str_ref(s->name) : S_UNKNOWN,
	      s->start, s->end, args, n);
}

/* String arguments are registered first, then the name, then the thread:
 * the order the records come in. */
static void fxt_instant(const struct thread *t, uint64_t time, unsigned name,
			uint32_t name_sid, const struct arg *args, size_t n)
{
	struct arg a[MT_FXT_MAX_ARGS];
	size_t i;

	for (i = 0; i < n; i++) {
		a[i] = args[i];
		if (a[i].type == MT_FXT_ARG_STRING)
			a[i].value = str_ref((uint32_t)a[i].value);
	}
	event(MT_FXT_EV_INSTANT, t, name_sid ? str_ref(name_sid) : name,
	      time == MT_NONE64 ? 0 : time, 0, a, n);
}

static void fxt_complete(const struct thread *t, const char *name, size_t len,
			 uint64_t start, uint64_t end, const struct arg *args, size_t n)
{
	struct mt_fxtw_arg fa[MT_FXT_MAX_ARGS];
	struct mt_fxtw_event ev = {
		.thread = { .index = thread_ref(t) },
		.name = MT_FXTW_INLINE(name, len), .ts = start,
		.args = fa, .nargs = (unsigned)n,
	};
	size_t i;

	for (i = 0; i < n; i++) /* no string arguments */
		fa[i] = (struct mt_fxtw_arg){ .type = args[i].type,
					      .name = MT_FXTW_INDEX(args[i].name),
					      .u = args[i].value };
	fxt_check(mt_fxtw_event(&fw, MT_FXT_EV_COMPLETE, &ev, end));
}

static void fxt_counter(const struct thread *t, uint64_t time, unsigned name,
			uint64_t id, const struct arg *a)
{
	event(MT_FXT_EV_COUNTER, t, name, time == MT_NONE64 ? 0 : time, id, a, 1);
}

/* Every record is written as it comes: nothing to add at the end. */
static void fxt_end(const struct thread *threads, size_t n)
{
}

static void fxt_warn(void)
{
}

static void fxt_verbose(void)
{
	fprintf(stderr, "; %llu string records (%llu re-registered), "
		"%llu thread records",
		(unsigned long long)fw.string_records,
		(unsigned long long)fw.evictions,
		(unsigned long long)fw.thread_records);
}

static void fxt_release(void)
{
	mt_fxtw_release(&fw);
}

const struct writer fxt_writer = {
	.binary = "an FXT trace",
	.begin = fxt_begin,
	.saw_time = fxt_saw_time,
	.string_defined = fxt_string_defined,
	.thread_name = fxt_thread_name,
	.span = fxt_span,
	.instant = fxt_instant,
	.complete = fxt_complete,
	.counter = fxt_counter,
	.end = fxt_end,
	.warn = fxt_warn,
	.verbose = fxt_verbose,
	.release = fxt_release,
};
