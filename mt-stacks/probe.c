/*
 * mt-stacks: uprobe hits (calls and returns of probed functions only) and
 * sampled stacks (a timeline of whole call chains).
 */
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "stacks.h"
#include "banned.h"

/* ---- uprobes ---- */

/* Whether m is a timeless generic MARK of that name with a text. */
static int generic_named(struct stacks *ctx, const struct mt_mark *m, const char *that)
{
	const char *name;
	size_t len;

	if (m->kind != MT_MARK_GENERIC || !m->name || !m->text)
		return 0;
	name = mt_reader_str(&ctx->in, m->name, &len);
	return name && len == strlen(that) && !memcmp(name, that, len);
}

int is_entry_only_mark(struct stacks *ctx, const struct mt_mark *m)
{
	return generic_named(ctx, m, "entry-only");
}

int is_event_mark(struct stacks *ctx, const struct mt_mark *m)
{
	return generic_named(ctx, m, "event");
}

/* Output string id text (an input id) into the set (a byte a string id):
 * 1 if it is new. */
static int set_add(struct stacks *ctx, uint8_t **set, size_t *cap, uint32_t text)
{
	uint32_t id = stacks_map_id(ctx, text);

	grow_or_die(set, cap, id, sizeof(**set));
	if ((*set)[id])
		return 0;
	(*set)[id] = 1;
	return 1;
}

static int set_has(struct stacks *ctx, const uint8_t *set, size_t cap, uint32_t text)
{
	uint32_t id;

	if (!set || !text)
		return 0;
	id = stacks_map_id(ctx, text);
	return id < cap && set[id];
}

void add_entry_only(struct stacks *ctx, uint32_t text)
{
	ctx->n_entry_only += set_add(ctx, &ctx->entry_only, &ctx->entry_only_cap, text);
}

static int is_entry_only(struct stacks *ctx, uint32_t sym)
{
	return ctx->n_entry_only &&
	       set_has(ctx, ctx->entry_only, ctx->entry_only_cap, sym);
}

void add_event(struct stacks *ctx, uint32_t text)
{
	set_add(ctx, &ctx->events, &ctx->events_cap, text);
}

int is_event_sample(struct stacks *ctx, const struct mt_sample *s)
{
	return set_has(ctx, ctx->events, ctx->events_cap, s->event);
}

void event_sample(struct thread *t, const struct mt_sample *s)
{
	struct stacks *ctx = t->ctx;
	struct mt_mark m = {
		.time = s->time, .pid = s->pid, .tid = s->tid, .cpu = s->cpu,
		.kind = MT_MARK_EVENT, .value = s->period,
		.ip = s->nframes ? s->frames[0].ip : 0,
		.name = stacks_map_id(ctx, s->event),
		.text = s->nframes ? stacks_map_id(ctx, s->frames[0].sym) : 0,
	};

	if (s->time != MT_NONE64 && s->time > ctx->cut_time) {
		ctx->n_after_cut++;
		return;
	}
	ctx->n_event_samples++;
	stacks_check(mt_write_mark(&ctx->out, &m));
}

/*
 * Whether a probe's return from l is frame f's function: by entry address
 * when both have one, else by name (perf probe names the function; the
 * DSO of a return is its caller's).
 */
static int probe_same_fn(const struct mt_loc *l, const struct frame *f)
{
	if (f->pseudo)
		return 0;
	if (l->ip && f->addr)
		return (l->off == MT_NONE64 ? l->ip : l->ip - l->off) == f->addr;
	return l->sym && l->sym == f->sym;
}

/* A probed function's entry: a frame, or an instant when it has no return
 * probe. */
void probe_call(struct thread *t, const struct mt_branch *b, uint64_t time)
{
	if (is_entry_only(t->ctx, b->to.sym)) {
		struct frame f;
		struct mt_span s;

		frame_init(t, &f, &b->to, time, MT_SPAN_FUNCTION, 0);
		span_of(t, &f, time, 0, &s);
		stack_finish(t, parent_of(t, t->cur.n), &s, NULL);
		return;
	}
	stack_call(t, &b->to, time);
}

/*
 * A probed function returns: its frame ends, and those above it (their
 * returns were missed). Probes see only the probed functions, so the
 * return address reveals nothing: the code there may be an unprobed
 * caller's. A function not on the stack was called before the segment
 * began and held all of it.
 */
void probe_return(struct thread *t, const struct mt_branch *b, uint64_t time)
{
	size_t i;

	for (i = t->cur.n; i > 0; i--)
		if (probe_same_fn(&b->from, &t->cur.f[i - 1])) {
			while (t->cur.n >= i)
				stack_pop(t, time, 0);
			return;
		}
	while (t->cur.n)
		stack_pop(t, time, 0);
	stack_reveal(t, &b->from, time);
}

/* ---- sampled stacks become a timeline ---- */

void probe_sample(struct thread *t, const struct mt_sample *s)
{
	uint64_t time = s->time == MT_NONE64 ? t->last_time : s->time;
	size_t n = s->nframes, k = 0;
	uint32_t i;

	if (time > t->ctx->cut_time) {
		t->ctx->n_after_cut++;
		return;
	}
	if (time < t->last_time)
		time = t->last_time;
	if (!t->started) {
		t->seg_start = time;
		t->started = 1;
	}
	t->fresh = 0;
	t->last_time = time;
	/* frames common with the previous sample, from the root, continue */
	while (k < t->cur.n && k < n) {
		const struct mt_loc *l = &s->frames[n - 1 - k];

		if (!same_fn(l, &t->cur.f[k]))
			break;
		k++;
	}
	while (t->cur.n > k)
		stack_pop(t, time, 0);
	for (i = (uint32_t)k; i < n; i++) {
		const struct mt_loc *l = &s->frames[n - 1 - i];

		stack_push(t, l, time, is_kernel(l->ip) ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION, 0);
	}
}

