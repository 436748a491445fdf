/*
 * The FXT encoder (fxtwrite.h). Each record is sized first, checked
 * against the format's limits, then built in w->rec and handed on whole.
 */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fxtwrite.h"
#include "wire.h"
#include "banned.h"

#define INLINE_MAX 0x7fffu /* the 15 bits of an inline length */

static void start(struct mt_fxtw *w)
{
	w->len = 0;
}

static void put(struct mt_fxtw *w, uint64_t word)
{
	mt_put64(w->rec + w->len, word);
	w->len += 8;
}

/* A stream: the bytes, zero-padded to whole words. */
static void put_stream(struct mt_fxtw *w, const char *s, size_t len)
{
	if (len)
		memcpy(w->rec + w->len, s, len);
	w->len += len;
	while (w->len % 8)
		w->rec[w->len++] = 0;
}

static void put_bytes(struct mt_fxtw *w, const void *p, size_t len)
{
	memcpy(w->rec + w->len, p, len);
	w->len += len;
}

static int finish(struct mt_fxtw *w)
{
	if (w->write)
		return w->write(w->ctx, w->rec, w->len);
	return mt_buf_add(w->buf, w->rec, w->len);
}

static size_t words_of(size_t len)
{
	return (len + 7) / 8;
}

static void init_common(struct mt_fxtw *w)
{
	memset(w, 0, offsetof(struct mt_fxtw, rec));
	w->len = 0;
	w->str_owner = NULL;
	w->str_used = NULL;
	w->str_pinned = w->str_hand = 0;
	w->str_index = NULL;
	w->str_index_cap = 0;
	memset(w->thr_owner, 0, sizeof(w->thr_owner));
	memset(w->thr_used, 0, sizeof(w->thr_used));
	w->thr_hand = 0;
	w->thr_index = NULL;
	w->thr_index_cap = 0;
}

void mt_fxtw_init(struct mt_fxtw *w, mt_fxtw_write_fn write, void *ctx)
{
	init_common(w);
	w->write = write;
	w->ctx = ctx;
}

void mt_fxtw_init_buf(struct mt_fxtw *w, struct mt_buf *out)
{
	init_common(w);
	w->buf = out;
}

void mt_fxtw_release(struct mt_fxtw *w)
{
	free(w->str_owner);
	free(w->str_used);
	free(w->str_index);
	free(w->thr_index);
	w->str_owner = NULL;
	w->str_used = NULL;
	w->str_index = NULL;
	w->thr_index = NULL;
	w->str_index_cap = w->thr_index_cap = 0;
	w->str_pinned = w->str_hand = w->thr_hand = 0;
	memset(w->thr_owner, 0, sizeof(w->thr_owner));
	memset(w->thr_used, 0, sizeof(w->thr_used));
}

/* ---- refs and arguments ---- */

static int str_ok(struct mt_fxtw_str s)
{
	return s.index ? s.index <= MT_FXTW_STRINGS : s.len <= INLINE_MAX;
}

/* The 16-bit ref of s: its index, 0x8000 | len inline, 0 when empty. */
static uint64_t str_ref(struct mt_fxtw_str s)
{
	if (s.index)
		return s.index;
	return s.len ? 0x8000 | s.len : 0;
}

static void put_str(struct mt_fxtw *w, struct mt_fxtw_str s)
{
	if (!s.index)
		put_stream(w, s.p, s.len);
}

size_t mt_fxtw_str_words(struct mt_fxtw_str s)
{
	return s.index ? 0 : words_of(s.len);
}

/* the value is a word after the name */
static int value_word(unsigned type)
{
	switch (type) {
	case MT_FXT_ARG_INT64:
	case MT_FXT_ARG_UINT64:
	case MT_FXT_ARG_DOUBLE:
	case MT_FXT_ARG_POINTER:
	case MT_FXT_ARG_KOID:
		return 1;
	default:
		return 0;
	}
}

size_t mt_fxtw_arg_words(const struct mt_fxtw_arg *a)
{
	if (a->raw)
		return a->raw_len / 8;
	return 1 + mt_fxtw_str_words(a->name) + (size_t)value_word(a->type) +
	       (a->type == MT_FXT_ARG_STRING ? mt_fxtw_str_words(a->s) : 0);
}

static int arg_ok(const struct mt_fxtw_arg *a)
{
	if (a->raw)
		return a->raw_len >= 8 && a->raw_len % 8 == 0 &&
		       a->raw_len / 8 <= MT_FXT_MAX_WORDS;
	if (a->type > MT_FXT_ARG_BOOL || !str_ok(a->name))
		return 0;
	return a->type != MT_FXT_ARG_STRING || str_ok(a->s);
}

/* Check args and add their words to *nw. */
static int args_size(const struct mt_fxtw_arg *args, unsigned nargs,
		     size_t *nw)
{
	unsigned i;

	for (i = 0; i < nargs; i++) {
		if (!arg_ok(&args[i]))
			return MT_EINVAL;
		*nw += mt_fxtw_arg_words(&args[i]);
	}
	return 0;
}

static void put_arg(struct mt_fxtw *w, const struct mt_fxtw_arg *a)
{
	uint64_t h, v = 0;

	if (a->raw) {
		put_bytes(w, a->raw, a->raw_len);
		return;
	}
	h = a->type | (uint64_t)mt_fxtw_arg_words(a) << 4 |
	    str_ref(a->name) << 16;
	switch (a->type) {
	case MT_FXT_ARG_INT32:
	case MT_FXT_ARG_UINT32:
	case MT_FXT_ARG_BOOL:
		h |= (a->u & 0xffffffffu) << 32;
		break;
	case MT_FXT_ARG_STRING:
		h |= str_ref(a->s) << 32;
		break;
	case MT_FXT_ARG_DOUBLE:
		memcpy(&v, &a->d, 8);
		break;
	default:
		v = a->u;
		break;
	}
	put(w, h);
	put_str(w, a->name);
	if (value_word(a->type))
		put(w, v);
	if (a->type == MT_FXT_ARG_STRING)
		put_str(w, a->s);
}

static void put_args(struct mt_fxtw *w, const struct mt_fxtw_arg *args,
		     unsigned nargs)
{
	unsigned i;

	for (i = 0; i < nargs; i++)
		put_arg(w, &args[i]);
}

/* ---- records ---- */

int mt_fxtw_magic(struct mt_fxtw *w)
{
	start(w);
	put(w, MT_FXT_MAGIC);
	return finish(w);
}

int mt_fxtw_provider(struct mt_fxtw *w, uint32_t id, const char *name,
		     size_t len)
{
	if (len > 255)
		return MT_EINVAL;
	start(w);
	put(w, MT_FXT_METADATA | (uint64_t)(1 + words_of(len)) << 4 |
	       (uint64_t)MT_FXT_META_PROVIDER_INFO << 16 | (uint64_t)id << 20 |
	       (uint64_t)len << 52);
	put_stream(w, name, len);
	return finish(w);
}

int mt_fxtw_initialization(struct mt_fxtw *w, uint64_t ticks_per_second)
{
	start(w);
	put(w, MT_FXT_INIT | 2 << 4);
	put(w, ticks_per_second);
	return finish(w);
}

int mt_fxtw_string(struct mt_fxtw *w, unsigned index, const char *s,
		   size_t len)
{
	int err;

	if (!index || index > MT_FXTW_STRINGS || len > INLINE_MAX)
		return MT_EINVAL;
	if (1 + words_of(len) > MT_FXT_MAX_WORDS)
		return MT_ETOOBIG;
	start(w);
	put(w, MT_FXT_STRING | (uint64_t)(1 + words_of(len)) << 4 |
	       (uint64_t)index << 16 | (uint64_t)len << 32);
	put_stream(w, s, len);
	if (!(err = finish(w)))
		w->string_records++;
	return err;
}

int mt_fxtw_thread(struct mt_fxtw *w, unsigned index, uint64_t pid,
		   uint64_t tid)
{
	int err;

	if (!index || index > MT_FXTW_THREADS)
		return MT_EINVAL;
	start(w);
	put(w, MT_FXT_THREAD | 3 << 4 | (uint64_t)index << 16);
	put(w, pid);
	put(w, tid);
	if (!(err = finish(w)))
		w->thread_records++;
	return err;
}

int mt_fxtw_kobj(struct mt_fxtw *w, unsigned obj_type, uint64_t koid,
		 struct mt_fxtw_str name, const struct mt_fxtw_arg *args,
		 unsigned nargs)
{
	size_t nw = 2 + mt_fxtw_str_words(name);
	int err;

	if (obj_type > 0xff || !str_ok(name) || nargs > MT_FXT_MAX_ARGS)
		return MT_EINVAL;
	if ((err = args_size(args, nargs, &nw)))
		return err;
	if (nw > MT_FXT_MAX_WORDS)
		return MT_ETOOBIG;
	start(w);
	put(w, MT_FXT_KOBJ | (uint64_t)nw << 4 | (uint64_t)obj_type << 16 |
	       str_ref(name) << 24 | (uint64_t)nargs << 40);
	put(w, koid);
	put_str(w, name);
	put_args(w, args, nargs);
	return finish(w);
}

int mt_fxtw_process_name(struct mt_fxtw *w, uint64_t pid,
			 struct mt_fxtw_str name)
{
	return mt_fxtw_kobj(w, MT_FXT_OBJ_PROCESS, pid, name, NULL, 0);
}

int mt_fxtw_thread_name(struct mt_fxtw *w, uint64_t tid,
			struct mt_fxtw_str name, uint64_t pid,
			struct mt_fxtw_str process)
{
	struct mt_fxtw_arg a = { .type = MT_FXT_ARG_KOID, .name = process,
				 .u = pid };

	return mt_fxtw_kobj(w, MT_FXT_OBJ_THREAD, tid, name, &a, 1);
}

/* whether an event of type has a word after its arguments */
static int has_word(unsigned type)
{
	return type == MT_FXT_EV_COUNTER || type >= MT_FXT_EV_COMPLETE;
}

int mt_fxtw_event(struct mt_fxtw *w, unsigned type,
		  const struct mt_fxtw_event *ev, uint64_t word)
{
	size_t nw = 2 + (ev->thread.index ? 0 : 2) +
		    mt_fxtw_str_words(ev->cat) + mt_fxtw_str_words(ev->name) +
		    (size_t)has_word(type);
	int err;

	if (type > MT_FXT_EV_FLOW_END || ev->thread.index > MT_FXTW_THREADS ||
	    !str_ok(ev->cat) || !str_ok(ev->name) || ev->nargs > MT_FXT_MAX_ARGS)
		return MT_EINVAL;
	if ((err = args_size(ev->args, ev->nargs, &nw)))
		return err;
	if (nw > MT_FXT_MAX_WORDS)
		return MT_ETOOBIG;
	start(w);
	put(w, MT_FXT_EVENT | (uint64_t)nw << 4 | (uint64_t)type << 16 |
	       (uint64_t)ev->nargs << 20 | (uint64_t)ev->thread.index << 24 |
	       str_ref(ev->cat) << 32 | str_ref(ev->name) << 48);
	put(w, ev->ts);
	if (!ev->thread.index) {
		put(w, ev->thread.pid);
		put(w, ev->thread.tid);
	}
	put_str(w, ev->cat);
	put_str(w, ev->name);
	put_args(w, ev->args, ev->nargs);
	if (has_word(type))
		put(w, word);
	return finish(w);
}

int mt_fxtw_event_again(struct mt_fxtw *w, unsigned type,
			const unsigned char *body, size_t len, uint64_t ts,
			const struct mt_fxtw_arg *args, unsigned nargs,
			uint64_t word)
{
	size_t nw;
	uint64_t h;
	unsigned own;
	int err;

	if (len < 16 || len % 8 || type > MT_FXT_EV_FLOW_END)
		return MT_EINVAL;
	h = mt_get64(body);
	own = (unsigned)(h >> 20 & 0xf);
	if (own + nargs > MT_FXT_MAX_ARGS)
		return MT_EINVAL;
	nw = len / 8 + (size_t)has_word(type);
	if ((err = args_size(args, nargs, &nw)))
		return err;
	if (nw > MT_FXT_MAX_WORDS)
		return MT_ETOOBIG;
	h &= ~(0xfffull << 4 | 0xffull << 16);
	h |= (uint64_t)nw << 4 | (uint64_t)type << 16 |
	     (uint64_t)(own + nargs) << 20;
	start(w);
	put_bytes(w, body, len);
	mt_put64(w->rec, h);
	mt_put64(w->rec + 8, ts);
	put_args(w, args, nargs);
	if (has_word(type))
		put(w, word);
	return finish(w);
}

/* ---- the string table ---- */

static int str_table(struct mt_fxtw *w)
{
	if (w->str_owner)
		return 0;
	w->str_owner = calloc(MT_FXTW_STRINGS + 1, sizeof(*w->str_owner));
	w->str_used = calloc(MT_FXTW_STRINGS + 1, sizeof(*w->str_used));
	if (!w->str_owner || !w->str_used) {
		free(w->str_owner);
		free(w->str_used);
		w->str_owner = NULL;
		w->str_used = NULL;
		return MT_ENOMEM;
	}
	w->str_hand = w->str_pinned;
	return 0;
}

int mt_fxtw_str_pin(struct mt_fxtw *w, unsigned n)
{
	if (n >= MT_FXTW_STRINGS || w->str_owner)
		return MT_EINVAL;
	w->str_pinned = n;
	return str_table(w);
}

unsigned mt_fxtw_str_find(struct mt_fxtw *w, uint32_t key)
{
	unsigned i;

	if (key >= w->str_index_cap || !(i = w->str_index[key]))
		return 0;
	w->str_used[i] = 1;
	return i;
}

int mt_fxtw_str_add(struct mt_fxtw *w, uint32_t key, const char *s,
		    size_t len)
{
	unsigned i;
	int err;

	if (!key || !len || mt_fxtw_str_find(w, key))
		return MT_EINVAL;
	if ((err = str_table(w)) ||
	    (err = mt_grow(&w->str_index, &w->str_index_cap, (size_t)key + 1,
			   sizeof(*w->str_index))))
		return err;
	/* a free index, or the clock's: a used one gets a second chance */
	for (;;) {
		w->str_hand = w->str_hand >= MT_FXTW_STRINGS ?
			      w->str_pinned + 1 : w->str_hand + 1;
		if (!w->str_owner[w->str_hand] || !w->str_used[w->str_hand])
			break;
		w->str_used[w->str_hand] = 0;
	}
	i = w->str_hand;
	if ((err = mt_fxtw_string(w, i, s, len)))
		return err;
	if (w->str_owner[i]) {
		w->str_index[w->str_owner[i]] = 0;
		w->evictions++;
	}
	w->str_owner[i] = key;
	w->str_used[i] = 1;
	w->str_index[key] = (uint16_t)i;
	return (int)i;
}

void mt_fxtw_str_forget(struct mt_fxtw *w, uint32_t key)
{
	if (key < w->str_index_cap && w->str_index[key]) {
		w->str_owner[w->str_index[key]] = 0;
		w->str_index[key] = 0;
	}
}

/* ---- the thread table ---- */

int mt_fxtw_thread_ref(struct mt_fxtw *w, uint32_t key, uint64_t pid,
		       uint64_t tid)
{
	unsigned i;
	int err;

	if (key == UINT32_MAX)
		return MT_EINVAL;
	if ((err = mt_grow(&w->thr_index, &w->thr_index_cap, (size_t)key + 1,
			   sizeof(*w->thr_index))))
		return err;
	if ((i = w->thr_index[key])) {
		w->thr_used[i] = 1;
		return (int)i;
	}
	for (;;) {
		w->thr_hand = w->thr_hand >= MT_FXTW_THREADS ? 1 : w->thr_hand + 1;
		if (!w->thr_owner[w->thr_hand] || !w->thr_used[w->thr_hand])
			break;
		w->thr_used[w->thr_hand] = 0;
	}
	i = w->thr_hand;
	if ((err = mt_fxtw_thread(w, i, pid, tid)))
		return err;
	if (w->thr_owner[i])
		w->thr_index[w->thr_owner[i] - 1] = 0;
	w->thr_owner[i] = key + 1;
	w->thr_used[i] = 1;
	w->thr_index[key] = (uint8_t)i;
	return (int)i;
}
