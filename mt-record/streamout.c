/*
 * mt-record's output as an mt stream: see streamout.h.
 */
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "mtline.h"
#include "streamcopy.h"
#include "streamout.h"
#include "threadname.h"
#include "banned.h"

struct stream_thread {
	uint32_t want;  /* the comm perf's stream gave it last (our id) */
	struct mt_thread_name have; /* the comm of the THREAD record written */
};

static void check(int err)
{
	if (err)
		die_mt(err, "writing the trace stream");
}

static void start(struct stream_out *s)
{
	uint32_t k, v;

	if (s->started)
		return;
	s->started = 1;
	check(mt_writer_init_fd(&s->w, s->fd));
	/* as mt-script-parse begins its stream */
	check(mt_writer_intern(&s->w, "source", 6, &k));
	check(mt_writer_intern(&s->w, s->source, strlen(s->source), &v));
	check(mt_write_meta(&s->w, &(struct mt_meta){ k, v }));
}

void stream_out_init(struct stream_out *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->source = "perf script";
	mt_tidtable_init(&s->threads, sizeof(struct stream_thread));
}

void stream_out_mark(struct stream_out *s, const struct mt_mt_line *ml)
{
	struct mt_mark m = ml->mark;

	start(s);
	check(mt_writer_intern(&s->w, ml->name, strlen(ml->name), &m.name));
	check(mt_writer_intern(&s->w, ml->text.p, ml->text.len, &m.text));
	check(mt_write_mark(&s->w, &m));
}

void mark_text_write(int fd, const struct mt_mt_line *ml)
{
	struct mt_buf b = MT_BUF_INIT;
	int err = mt_format_mt_line(&b, ml);

	if (err)
		die_mt(err, "writing a mark line");
	write_or_die(fd, b.p, b.len);
	mt_buf_release(&b);
}

void stream_out_mark_line(struct stream_out *s, const struct mark_line *mk)
{
	stream_out_mark(s, &mk->ml);
	if (mk->has_region)
		stream_out_mark(s, &mk->region);
}

void mark_line_text_write(int fd, const struct mark_line *mk)
{
	mark_text_write(fd, &mk->ml);
	if (mk->has_region)
		mark_text_write(fd, &mk->region);
}

/* The thread of (pid, tid), its comm (our id) given by a THREAD record. */
static struct stream_thread *thread(struct stream_out *s, uint32_t pid, uint32_t tid)
{
	struct stream_thread *t;

	check(mt_tidtable_get(&s->threads, pid, tid, &t, NULL));
	return t;
}

/* Before a record of (pid, tid) is copied: its THREAD, when it has none
 * yet or another name now. */
static void see_thread(struct stream_out *s, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct stream_thread *t = thread(s, pid, tid);

	if (!mt_thread_name_due(&t->have, t->want))
		return;
	check(mt_write_thread(&s->w, &(struct mt_thread){ pid, tid, t->want, time }));
}

/* The time of a record that has one (NONE64 for the rest), and its
 * thread (pid NONE32: none) for a record perf's stream gives a THREAD. */
static uint64_t when(const struct mt_record *rec, uint32_t *pid, uint32_t *tid)
{
	*pid = MT_NONE32;
	switch (rec->type) {
	case MT_REC_BRANCH:
		*pid = rec->u.branch.pid, *tid = rec->u.branch.tid;
		return rec->u.branch.time;
	case MT_REC_SAMPLE:
		*pid = rec->u.sample.pid, *tid = rec->u.sample.tid;
		return rec->u.sample.time;
	case MT_REC_MARK:
		if (rec->u.mark.pid != MT_NONE32)
			*pid = rec->u.mark.pid, *tid = rec->u.mark.tid;
		return rec->u.mark.time;
	case MT_REC_ERROR:
		return rec->u.error.time;
	default:
		return MT_NONE64;
	}
}

int stream_out_copy(struct stream_out *s, struct mt_reader *r,
		    const struct mark_line *mk, uint64_t *after)
{
	uint64_t skip = after ? *after : 0, last = skip;
	int pending = mk && mk->time != MT_NONE64, dropping = 0, got;
	struct mt_copier c;
	struct mt_record rec;

	start(s);
	mt_copier_init(&c);
	while ((got = mt_reader_next(r, &rec)) > 0) {
		uint32_t pid, tid;
		uint64_t t = when(&rec, &pid, &tid);

		if (rec.type == MT_REC_THREAD) {
			uint32_t comm;

			check(mt_copy_string(&s->w, r, &c, rec.u.thread.comm, &comm));
			thread(s, rec.u.thread.pid, rec.u.thread.tid)->want = comm;
			continue;
		}
		if (rec.type == MT_REC_META) {
			size_t len;
			const char *k = mt_reader_str(r, rec.u.meta.key, &len);

			if (k && len == 6 && !memcmp(k, "source", 6))
				continue; /* start() wrote it */
		}
		if (t != MT_NONE64) {
			dropping = skip && t <= skip;
			if (!dropping && t > last)
				last = t;
			if (pending && t > mk->time) {
				stream_out_mark_line(s, mk);
				pending = 0;
			}
		}
		if (dropping)
			continue;
		if (pid != MT_NONE32)
			see_thread(s, pid, tid, t);
		check(mt_copy_record(&s->w, r, &c, &rec));
	}
	mt_copier_release(&c);
	if (got < 0)
		return got;
	if (pending)
		stream_out_mark_line(s, mk);
	if (after)
		*after = last;
	return 0;
}

uint32_t stream_out_str(struct stream_out *s, const char *p, size_t len)
{
	uint32_t id;

	start(s);
	check(mt_writer_intern(&s->w, p, len, &id));
	return id;
}

void stream_out_thread(struct stream_out *s, uint32_t pid, uint32_t tid,
		       const char *comm, size_t len)
{
	thread(s, pid, tid)->want = stream_out_str(s, comm, len);
}

void stream_out_branch(struct stream_out *s, const struct mt_branch *b)
{
	start(s);
	see_thread(s, b->pid, b->tid, b->time);
	check(mt_write_branch(&s->w, b));
}

void stream_out_error(struct stream_out *s, const struct mt_error *e)
{
	start(s);
	if (e->pid != MT_NONE32)
		see_thread(s, e->pid, e->tid, e->time);
	check(mt_write_error(&s->w, e));
}

void stream_out_flush(struct stream_out *s)
{
	if (s->started)
		check(mt_writer_flush(&s->w));
}

void stream_out_finish(struct stream_out *s)
{
	if (s->started)
		check(mt_writer_finish(&s->w));
}

void stream_out_release(struct stream_out *s)
{
	if (s->started)
		mt_writer_release(&s->w);
	mt_tidtable_release(&s->threads);
	memset(s, 0, sizeof(*s));
}
