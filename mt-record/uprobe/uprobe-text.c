/*
 * The uprobe engine's output (uprobe.h, uprobe-internal.h):
 * mt_uprobe_dump() merges the snapshot rings in time order and writes
 * each event as the line perf script prints for it, symbolized from the
 * process's mappings and the files' symbols.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buf.h"
#include "err.h"
#include "symtab.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

#define EMIT_CHUNK 65536

/* A probe's function as perf prints it. */
static const char *probe_name(const struct mt_uprobe_probe *p)
{
	return p->shown ? p->shown : p->sym;
}

/* "SYM+0xOFF (DSO)" for ip in process pid at time. */
static int symbolize(struct mt_uprobe *u, struct mt_buf *b, uint32_t pid,
		     uint64_t ip, uint64_t time, const struct mt_uprobe_probe *hint)
{
	const struct map *m = uprobe_map_find(u, pid, ip, time);
	const struct mt_sym *s = NULL;
	struct mt_uprobe_file *f;
	uint64_t bias, v;

	const char *name;

	if (!m) {
		if (hint) /* an entry: the probe says what is there */
			return uprobe_appendf(b, " %s+0x0 (%s)", probe_name(hint),
					      u->files[hint->file].path);
		return uprobe_appendf(b, " [unknown] ([unknown])");
	}
	f = &u->files[m->file];
	if (uprobe_file_load(u, m->file) == 0 &&
	    mt_symtab_bias(&f->sym.t, m->start, m->pgoff, &bias) == 0) {
		v = ip - bias;
		s = uprobe_file_lookup(f, v);
		if (s && uprobe_file_name(f, s, &name))
			return MT_ENOMEM;
		if (s)
			return uprobe_appendf(b, " %s+0x%llx (%s)", name,
					      (unsigned long long)(v - s->addr),
					      f->path);
	}
	if (hint && hint->file == m->file)
		return uprobe_appendf(b, " %s+0x0 (%s)", probe_name(hint), f->path);
	return uprobe_appendf(b, " [unknown] (%s)", f->path);
}

static int format_event(struct mt_uprobe *u, struct mt_buf *b,
			const struct ev *e)
{
	int lost = e->kind == K_LOST;
	const struct mt_uprobe_probe *p = lost ? NULL : &u->probes[e->probe];
	const struct mt_uprobe_thread *t =
		lost ? NULL : uprobe_thread_find(u, e->tid);
	const char *comm = t ? uprobe_comm_at(t, e->time) : NULL;
	char tidname[16];
	int err;

	if (e->kind == K_LOST)
		comm = ":-1";
	else if (!comm) {
		snprintf(tidname, sizeof(tidname), ":%u", e->tid);
		comm = tidname;
	}
	err = uprobe_appendf(b, "%16s %5d/%-5d [%03d] %5llu.%09llu: ", comm,
			     (int)e->pid, (int)e->tid, u->rings[e->ring].cpu,
			     (unsigned long long)(e->time / 1000000000u),
			     (unsigned long long)(e->time % 1000000000u));
	if (err)
		return err;
	if (e->kind == K_LOST)
		return uprobe_appendf(b, "PERF_RECORD_LOST lost %llu\n",
				      (unsigned long long)e->aux);
	if (e->kind == K_ENTRY) {
		err = uprobe_appendf(b, "%*s: (%llx) %16llx", u->name_width,
				     p->event, (unsigned long long)e->ip,
				     (unsigned long long)e->ip);
		if (!err)
			err = symbolize(u, b, e->pid, e->ip, e->time, p);
	} else {
		uint64_t func = e->aux ? e->aux :
				uprobe_probe_addr(u, e->pid, p, e->time);

		err = uprobe_appendf(b, "%*s: (%llx <- %llx) %16llx",
				     u->name_width, p->ret_event,
				     (unsigned long long)func,
				     (unsigned long long)e->ip,
				     (unsigned long long)e->ip);
		if (!err)
			err = symbolize(u, b, e->pid, e->ip, e->time, NULL);
	}
	return err ? err : mt_buf_add(b, "\n", 1);
}

static const struct ev *ring_at(const struct mt_uprobe_ring *r, size_t i)
{
	return &r->v[(r->start + i) % (r->len ? r->len : 1)];
}

/* The kept events after after and up to until, as lines to emit. */
static int dump_kept(struct mt_uprobe *u, uint64_t after, uint64_t until,
		     int (*emit)(void *arg, const char *text, size_t len),
		     void *arg)
{
	struct mt_buf b = MT_BUF_INIT;
	size_t *pos, i;
	uint64_t from = 0;
	int err = 0, lines = 0;

	pos = calloc(u->nrings + 1, sizeof(*pos));
	if (!pos)
		return MT_ENOMEM;
	/* where every ring that overwrote events still has them all */
	for (i = 0; i < u->nrings; i++)
		if (u->rings[i].overwritten && ring_at(&u->rings[i], 0)->time > from)
			from = ring_at(&u->rings[i], 0)->time;
	for (;;) {
		const struct ev *best = NULL;
		size_t bi = 0;

		for (i = 0; i < u->nrings; i++) {
			const struct mt_uprobe_ring *r = &u->rings[i];
			const struct ev *e;

			while (pos[i] < r->len && (ring_at(r, pos[i])->time < from ||
						   (after && ring_at(r, pos[i])->time <= after)))
				pos[i]++;
			if (pos[i] >= r->len)
				continue;
			e = ring_at(r, pos[i]);
			if (e->time > until)
				continue;
			if (!best || e->time < best->time) {
				best = e;
				bi = i;
			}
		}
		if (!best)
			break;
		pos[bi]++;
		err = format_event(u, &b, best);
		if (err)
			break;
		lines++;
		if (b.len >= EMIT_CHUNK) {
			err = emit(arg, b.p, b.len);
			mt_buf_reset(&b);
			if (err)
				break;
		}
	}
	if (!err && b.len)
		err = emit(arg, b.p, b.len);
	mt_buf_release(&b);
	free(pos);
	return err ? err : lines;
}

int mt_uprobe_dump(struct mt_uprobe *u, uint64_t until,
		   int (*emit)(void *arg, const char *text, size_t len),
		   void *arg)
{
	int err = mt_uprobe_finish(u);

	return err ? err : dump_kept(u, 0, until, emit, arg);
}

int mt_uprobe_snapshot(struct mt_uprobe *u, uint64_t after, uint64_t until,
		       int (*emit)(void *arg, const char *text, size_t len),
		       void *arg)
{
	/* events up to until are taken once older than the reorder
	 * window: wait that out, then read */
	uint64_t ready = until + (uint64_t)u->opts.reorder_ms * 1000000u + 1000000u;
	int err;

	if (u->state != ST_ATTACHED)
		return dump_kept(u, after, until, emit, arg);
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
	return err ? err : dump_kept(u, after, until, emit, arg);
}
