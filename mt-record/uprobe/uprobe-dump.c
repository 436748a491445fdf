/*
 * The uprobe engine's snapshot (uprobe.h, uprobe-internal.h):
 * mt_uprobe_dump() merges the snapshot rings in time order and hands each
 * event to the caller's sink, symbolized from the process's mappings and
 * the files' symbols (mt_uprobe_event_text(), uprobe-text.c, writes it as
 * perf script's line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "merge.h"
#include "symtab.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

/* A probe's function as perf prints it. */
static const char *probe_name(const struct mt_uprobe_probe *p)
{
	return p->shown ? p->shown : p->sym;
}

/* Where ip is in process pid at time: e's sym, off and dso (NULL: unknown);
 * an entry's probe (hint) names its function where nothing else does. */
static int symbolize(struct mt_uprobe *u, struct mt_uprobe_event *e,
		     const struct mt_uprobe_probe *hint)
{
	const struct map *m = uprobe_map_find(u, e->pid, e->ip, e->time);
	const struct mt_sym *s;
	struct mt_uprobe_file *f;
	uint64_t bias;

	e->sym = e->dso = NULL;
	e->off = 0;
	if (!m) {
		if (hint) { /* an entry: the probe says what is there */
			e->sym = probe_name(hint);
			e->dso = u->files[hint->file].path;
		}
		return 0;
	}
	f = &u->files[m->file];
	e->dso = f->path;
	if (uprobe_file_load(u, m->file) == 0 &&
	    mt_symtab_bias(&f->sym.t, m->start, m->pgoff, &bias) == 0 &&
	    (s = uprobe_file_lookup(f, e->ip - bias))) {
		e->off = e->ip - bias - s->addr;
		return uprobe_file_name(f, s, &e->sym) ? MT_ENOMEM : 0;
	}
	if (hint && hint->file == m->file)
		e->sym = probe_name(hint);
	return 0;
}

/* The kept event ev, as the sink sees it. */
static int make_event(struct mt_uprobe *u, const struct ev *ev,
		      struct mt_uprobe_event *e)
{
	const struct mt_uprobe_probe *p;
	const struct mt_uprobe_thread *t;

	memset(e, 0, sizeof(*e));
	e->time = ev->time;
	e->pid = ev->pid;
	e->tid = ev->tid;
	e->cpu = u->rings[ev->ring].cpu;
	if (ev->kind == K_LOST) {
		e->kind = MT_UPROBE_EV_LOST;
		e->lost = ev->aux;
		return 0;
	}
	p = &u->probes[ev->probe];
	t = uprobe_thread_find(u, ev->tid);
	e->comm = t ? uprobe_comm_at(t, ev->time) : NULL;
	e->func = strchr(p->event, ':') + 1;
	e->ip = ev->ip;
	if (ev->kind == K_ENTRY) {
		e->kind = MT_UPROBE_EV_ENTRY;
		e->event = p->event;
		e->func_addr = ev->ip;
		return symbolize(u, e, p);
	}
	e->kind = MT_UPROBE_EV_RETURN;
	e->event = p->ret_event;
	e->func_addr = ev->aux ? ev->aux : uprobe_probe_addr(u, ev->pid, p, ev->time);
	return symbolize(u, e, NULL);
}

static const struct ev *ring_at(const struct mt_uprobe_ring *r, size_t i)
{
	return &r->v[(r->start + i) % (r->len ? r->len : 1)];
}

/* Ring i's next kept event from pos[i] on, skipping those before from or
 * not after after; NULL when it has none up to until. */
static const struct ev *next_kept(const struct mt_uprobe *u, size_t i, size_t *pos,
				  uint64_t from, uint64_t after, uint64_t until)
{
	const struct mt_uprobe_ring *r = &u->rings[i];

	while (pos[i] < r->len && (ring_at(r, pos[i])->time < from ||
				   (after && ring_at(r, pos[i])->time <= after)))
		pos[i]++;
	if (pos[i] >= r->len || ring_at(r, pos[i])->time > until)
		return NULL;
	return ring_at(r, pos[i]);
}

/* The kept events after after and up to until, to the sink, the rings
 * merged in time order. */
static int dump_kept(struct mt_uprobe *u, uint64_t after, uint64_t until,
		     mt_uprobe_sink sink, void *arg)
{
	struct mt_uprobe_event out;
	struct mt_merge m;
	const struct ev *e;
	size_t *pos, i;
	uint32_t ri;
	uint64_t from = 0;
	int err = 0, n = 0;

	pos = calloc(u->nrings + 1, sizeof(*pos));
	if (!pos || mt_merge_init(&m, u->nrings)) {
		free(pos);
		return MT_ENOMEM;
	}
	/* where every ring that overwrote events still has them all */
	for (i = 0; i < u->nrings; i++)
		if (u->rings[i].overwritten && ring_at(&u->rings[i], 0)->time > from)
			from = ring_at(&u->rings[i], 0)->time;
	for (i = 0; i < u->nrings; i++)
		if ((e = next_kept(u, i, pos, from, after, until)))
			mt_merge_add(&m, (uint32_t)i, e->time);
	while (mt_merge_top(&m, &ri)) {
		err = make_event(u, ring_at(&u->rings[ri], pos[ri]++), &out);
		if (!err)
			err = sink(arg, &out);
		if (err)
			break;
		n++;
		if ((e = next_kept(u, ri, pos, from, after, until)))
			mt_merge_next(&m, e->time);
		else
			mt_merge_drop(&m);
	}
	mt_merge_release(&m);
	free(pos);
	return err ? err : n;
}

int mt_uprobe_dump(struct mt_uprobe *u, uint64_t until, mt_uprobe_sink sink,
		   void *arg)
{
	int err = mt_uprobe_finish(u);

	return err ? err : dump_kept(u, 0, until, sink, arg);
}

int mt_uprobe_snapshot(struct mt_uprobe *u, uint64_t after, uint64_t until,
		       mt_uprobe_sink sink, void *arg)
{
	/* events up to until are taken once older than the reorder
	 * window: wait that out, then read */
	uint64_t ready = until + (uint64_t)u->opts.reorder_ms * 1000000u + 1000000u;
	int err;

	if (u->state != ST_ATTACHED)
		return dump_kept(u, after, until, sink, arg);
	for (;;) {
		uint64_t now = uprobe_now_ns();
		struct timespec ts;

		if (now >= ready)
			break;
		ts.tv_sec = (time_t)((ready - now) / 1000000000u);
		ts.tv_nsec = (long)((ready - now) % 1000000000u);
		nanosleep(&ts, NULL);
	}
	err = uprobe_drain(u, 0);
	return err ? err : dump_kept(u, after, until, sink, arg);
}
