/*
 * Records copied between streams with their strings re-interned: see
 * streamcopy.h.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "streamcopy.h"
#include "banned.h"

void mt_copier_init(struct mt_copier *c)
{
	memset(c, 0, sizeof(*c));
}

void mt_copier_release(struct mt_copier *c)
{
	free(c->map);
	free(c->frames);
	memset(c, 0, sizeof(*c));
}

int mt_copy_string(struct mt_writer *w, const struct mt_reader *r,
		   struct mt_copier *c, uint32_t id, uint32_t *out)
{
	const char *s;
	size_t len;
	int err;

	if (!id) {
		*out = 0;
		return 0;
	}
	if (id < c->cap && c->map[id]) {
		*out = c->map[id];
		return 0;
	}
	if (!(s = mt_reader_str(r, id, &len)))
		return MT_EUNDEFSTR;
	if ((err = mt_writer_intern(w, s, len, out)))
		return err;
	if (id >= c->cap && mt_grow(&c->map, &c->cap, (size_t)id + 1, sizeof(*c->map)))
		return MT_ENOMEM;
	c->map[id] = *out;
	return 0;
}

/* Two of a record's string ids, in place. */
static int two(struct mt_writer *w, const struct mt_reader *r,
	       struct mt_copier *c, uint32_t *a, uint32_t *b)
{
	int err = mt_copy_string(w, r, c, *a, a);

	return err ? err : mt_copy_string(w, r, c, *b, b);
}

static int loc(struct mt_writer *w, const struct mt_reader *r,
	       struct mt_copier *c, struct mt_loc *l)
{
	return two(w, r, c, &l->sym, &l->dso);
}

static int sample(struct mt_writer *w, const struct mt_reader *r,
		  struct mt_copier *c, const struct mt_sample *in)
{
	struct mt_sample s = *in;
	uint32_t i;
	int err;

	if (s.nframes > c->frames_cap &&
	    mt_grow(&c->frames, &c->frames_cap, s.nframes, sizeof(*c->frames)))
		return MT_ENOMEM;
	for (i = 0; i < s.nframes; i++) {
		c->frames[i] = in->frames[i];
		if ((err = loc(w, r, c, &c->frames[i])))
			return err;
	}
	s.frames = c->frames;
	if ((err = mt_copy_string(w, r, c, s.event, &s.event)))
		return err;
	return mt_write_sample(w, &s);
}

int mt_copy_record(struct mt_writer *w, const struct mt_reader *r,
		   struct mt_copier *c, const struct mt_record *rec)
{
	int err = 0;

	switch (rec->type) {
	case MT_REC_END:
		return 0;
	case MT_REC_STRING:
		/* the id means another text from here on */
		if (rec->u.string.id < c->cap)
			c->map[rec->u.string.id] = 0;
		return 0;
	case MT_REC_THREAD: {
		struct mt_thread t = rec->u.thread;

		if ((err = mt_copy_string(w, r, c, t.comm, &t.comm)))
			return err;
		return mt_write_thread(w, &t);
	}
	case MT_REC_BRANCH: {
		struct mt_branch b = rec->u.branch;

		if ((err = loc(w, r, c, &b.from)) || (err = loc(w, r, c, &b.to)))
			return err;
		return mt_write_branch(w, &b);
	}
	case MT_REC_ERROR: {
		struct mt_error e = rec->u.error;

		if ((err = mt_copy_string(w, r, c, e.msg, &e.msg)))
			return err;
		return mt_write_error(w, &e);
	}
	case MT_REC_MARK: {
		struct mt_mark m = rec->u.mark;

		if ((err = two(w, r, c, &m.name, &m.text)))
			return err;
		return mt_write_mark(w, &m);
	}
	case MT_REC_SAMPLE:
		return sample(w, r, c, &rec->u.sample);
	case MT_REC_SPAN: {
		struct mt_span s = rec->u.span;

		if ((err = two(w, r, c, &s.name, &s.dso)))
			return err;
		return mt_write_span(w, &s);
	}
	case MT_REC_META: {
		struct mt_meta m = rec->u.meta;

		if ((err = two(w, r, c, &m.key, &m.value)))
			return err;
		return mt_write_meta(w, &m);
	}
	default:
		return mt_write_raw(w, rec->raw, rec->raw_len);
	}
}
