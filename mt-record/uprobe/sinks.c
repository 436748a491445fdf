/*
 * The uprobe backend's sinks: see sinks.h.
 */
#include <stdio.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "sinks.h"
#include "banned.h"

/* --text: the lines are written in chunks of about this many bytes */
#define LINES_CHUNK 65536

static uint32_t str(struct stream_out *s, const char *p)
{
	return p ? stream_out_str(s, p, strlen(p)) : 0;
}

/* The event's thread named as its line names it: ":TID" when unknown. */
static void thread(struct stream_out *s, const struct mt_uprobe_event *e)
{
	char tidname[16];
	const char *comm = e->comm;

	if (!comm) {
		snprintf(tidname, sizeof(tidname), ":%u", e->tid);
		comm = tidname;
	}
	stream_out_thread(s, e->pid, e->tid, comm, strlen(comm));
}

/* Where e's ip is; the offset MT_NONE64 when its symbol is unknown. */
static struct mt_loc where(struct stream_out *s, const struct mt_uprobe_event *e)
{
	struct mt_loc l;

	l.ip = e->ip;
	l.off = e->sym ? e->off : MT_NONE64;
	l.sym = str(s, e->sym);
	l.dso = str(s, e->dso);
	return l;
}

/* Lost events: the ERROR perf's PERF_RECORD_LOST line makes. */
static void lost(struct stream_out *s, const struct mt_uprobe_event *e)
{
	char msg[64];
	struct mt_error err = {
		.time = e->time, .pid = MT_NONE32, .tid = MT_NONE32,
		.cpu = (uint32_t)e->cpu, .class = MT_ERRC_LOST, .count = e->lost,
	};

	snprintf(msg, sizeof(msg), "PERF_RECORD_LOST lost %llu",
		 (unsigned long long)e->lost);
	err.msg = str(s, msg);
	stream_out_error(s, &err);
}

/* An entry is a call of the function to it, a return one from it to the
 * return address. */
int uprobe_sink_records(void *arg, const struct mt_uprobe_event *e)
{
	struct stream_out *s = arg;
	struct mt_branch b = {
		.time = e->time, .pid = e->pid, .tid = e->tid, .cpu = (uint32_t)e->cpu,
		.kind = e->kind == MT_UPROBE_EV_RETURN ? MT_BR_RETURN : MT_BR_CALL,
		.flags = MT_BF_PROBE,
		.from = { 0, MT_NONE64, 0, 0 },
	};

	if (e->kind == MT_UPROBE_EV_LOST) {
		lost(s, e);
		return 0;
	}
	thread(s, e);
	b.to = where(s, e);
	if (e->kind == MT_UPROBE_EV_ENTRY) {
		if (!b.to.sym) { /* the probe names what is there */
			b.to.sym = str(s, e->func);
			b.to.off = 0;
		}
	} else {
		b.from.ip = e->func_addr;
		b.from.sym = str(s, e->func);
		b.from.off = e->func_addr ? 0 : MT_NONE64;
		b.from.dso = b.to.dso;
	}
	stream_out_branch(s, &b);
	return 0;
}

void uprobe_lines_init(struct uprobe_lines *l, const struct mt_uprobe *u, int fd)
{
	l->u = u;
	l->fd = fd;
	mt_buf_init(&l->b);
}

int uprobe_sink_lines(void *arg, const struct mt_uprobe_event *e)
{
	struct uprobe_lines *l = arg;
	int err = mt_uprobe_event_text(l->u, e, &l->b);

	if (err)
		return err;
	if (l->b.len >= LINES_CHUNK) {
		write_or_die(l->fd, l->b.p, l->b.len);
		mt_buf_reset(&l->b);
	}
	return 0;
}

void uprobe_lines_finish(struct uprobe_lines *l)
{
	if (l->b.len)
		write_or_die(l->fd, l->b.p, l->b.len);
	mt_buf_release(&l->b);
}
