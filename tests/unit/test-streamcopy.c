/*
 * common/streamcopy: records copied between streams keep their texts
 * under the writer's ids.
 */
#include <string.h>

#include "buf.h"
#include "err.h"
#include "stream.h"
#include "streamcopy.h"
#include "unit.h"
#include "banned.h"

static int sink_buf(void *ctx, const void *p, size_t n)
{
	return mt_buf_add(ctx, p, n);
}

/* A stream with every record type, an id redefined half way. */
static void source(struct mt_buf *out)
{
	struct mt_writer w;
	struct mt_loc frames[2] = { { 0x10, 1, 3, 4 }, { 0x20, MT_NONE64, 0, 4 } };

	mt_buf_init(out);
	CHECK_EQ(mt_writer_init_fn(&w, sink_buf, out), 0);
	CHECK_EQ(mt_write_string(&w, 1, "key", 3), 0);
	CHECK_EQ(mt_write_string(&w, 2, "first", 5), 0);
	CHECK_EQ(mt_write_string(&w, 3, "sym", 3), 0);
	CHECK_EQ(mt_write_string(&w, 4, "dso", 3), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 1, 2 }), 0);
	CHECK_EQ(mt_write_thread(&w, &(struct mt_thread){ 7, 8, 2, 5 }), 0);
	CHECK_EQ(mt_write_branch(&w, &(struct mt_branch){ .time = 6, .pid = 7, .tid = 8,
		.cpu = MT_NONE32, .kind = MT_BR_CALL, .from = { 1, 2, 3, 4 },
		.to = { 5, MT_NONE64, 0, 4 } }), 0);
	CHECK_EQ(mt_write_error(&w, &(struct mt_error){ .time = 7, .pid = 7, .tid = 8,
		.cpu = MT_NONE32, .class = MT_ERRC_DECODE, .msg = 2 }), 0);
	CHECK_EQ(mt_write_sample(&w, &(struct mt_sample){ .time = 8, .pid = 7, .tid = 8,
		.cpu = MT_NONE32, .event = 1, .nframes = 2, .frames = frames }), 0);
	/* id 2 means another text from here on */
	CHECK_EQ(mt_write_string(&w, 2, "second", 6), 0);
	CHECK_EQ(mt_write_mark(&w, &(struct mt_mark){ .time = 9, .pid = MT_NONE32,
		.tid = MT_NONE32, .cpu = MT_NONE32, .kind = MT_MARK_GENERIC,
		.name = 2, .text = 3 }), 0);
	CHECK_EQ(mt_write_span(&w, &(struct mt_span){ .start = 1, .end = 9, .pid = 7,
		.tid = 8, .kind = MT_SPAN_FUNCTION, .name = 2, .dso = 4 }), 0);
	CHECK_EQ(mt_writer_finish(&w), 0);
	mt_writer_release(&w);
}

static const char *str(const struct mt_reader *r, uint32_t id)
{
	const char *s = mt_reader_str(r, id, NULL);

	return id ? s : "";
}

static void test_copy(void)
{
	struct mt_buf in, out;
	struct mt_reader r, back;
	struct mt_writer w;
	struct mt_copier c;
	struct mt_record rec;
	uint32_t other;
	int got, n = 0;

	source(&in);
	mt_buf_init(&out);
	CHECK_EQ(mt_writer_init_fn(&w, sink_buf, &out), 0);
	/* the writer's ids differ from the source's */
	CHECK_EQ(mt_writer_intern(&w, "already here", 12, &other), 0);
	mt_reader_init_mem(&r, in.p, in.len);
	mt_copier_init(&c);
	while ((got = mt_reader_next(&r, &rec)) > 0)
		CHECK_EQ(mt_copy_record(&w, &r, &c, &rec), 0);
	CHECK_EQ(got, 0);
	mt_copier_release(&c);
	CHECK_EQ(mt_writer_finish(&w), 0);
	mt_writer_release(&w);
	mt_reader_release(&r);

	mt_reader_init_mem(&back, out.p, out.len);
	while ((got = mt_reader_next(&back, &rec)) > 0) {
		switch (rec.type) {
		case MT_REC_META:
			CHECK_STR(str(&back, rec.u.meta.key), "key");
			CHECK_STR(str(&back, rec.u.meta.value), "first");
			n++;
			break;
		case MT_REC_THREAD:
			CHECK_STR(str(&back, rec.u.thread.comm), "first");
			CHECK_EQ(rec.u.thread.tid, 8);
			n++;
			break;
		case MT_REC_BRANCH:
			CHECK_STR(str(&back, rec.u.branch.from.sym), "sym");
			CHECK_STR(str(&back, rec.u.branch.from.dso), "dso");
			CHECK_EQ(rec.u.branch.to.sym, 0);
			CHECK_EQ(rec.u.branch.from.off, 2);
			CHECK_EQ(rec.u.branch.kind, MT_BR_CALL);
			n++;
			break;
		case MT_REC_ERROR:
			CHECK_STR(str(&back, rec.u.error.msg), "first");
			n++;
			break;
		case MT_REC_SAMPLE:
			CHECK_STR(str(&back, rec.u.sample.event), "key");
			CHECK_EQ(rec.u.sample.nframes, 2);
			CHECK_STR(str(&back, rec.u.sample.frames[0].sym), "sym");
			CHECK_EQ(rec.u.sample.frames[1].sym, 0);
			CHECK_STR(str(&back, rec.u.sample.frames[1].dso), "dso");
			n++;
			break;
		case MT_REC_MARK:
			CHECK_STR(str(&back, rec.u.mark.name), "second");
			CHECK_STR(str(&back, rec.u.mark.text), "sym");
			n++;
			break;
		case MT_REC_SPAN:
			CHECK_STR(str(&back, rec.u.span.name), "second");
			CHECK_STR(str(&back, rec.u.span.dso), "dso");
			n++;
			break;
		}
	}
	CHECK_EQ(got, 0);
	CHECK_EQ(n, 7);
	mt_reader_release(&back);
	mt_buf_release(&in);
	mt_buf_release(&out);
}

static void test_undefined(void)
{
	struct mt_buf out;
	struct mt_writer w;
	struct mt_reader r;
	struct mt_copier c;
	uint32_t id;

	mt_buf_init(&out);
	CHECK_EQ(mt_writer_init_fn(&w, sink_buf, &out), 0);
	mt_reader_init_mem(&r, "", 0);
	mt_copier_init(&c);
	CHECK_EQ(mt_copy_string(&w, &r, &c, 0, &id), 0);
	CHECK_EQ(id, 0);
	CHECK_EQ(mt_copy_string(&w, &r, &c, 5, &id), MT_EUNDEFSTR);
	mt_copier_release(&c);
	mt_reader_release(&r);
	mt_writer_release(&w);
	mt_buf_release(&out);
}

int main(void)
{
	RUN(test_copy);
	RUN(test_undefined);
	return unit_done();
}
