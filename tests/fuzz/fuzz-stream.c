/*
 * libFuzzer harness for the stream reader (common/stream.c): any bytes must
 * read to an error or to END without a crash, a leak or undefined behaviour.
 *
 * Besides surviving, it checks what the reader promises: every string id in
 * an accepted record is defined (mt_reader_str finds it, NUL-terminated at
 * its length, with no NUL inside), offsets grow record by record, raw holds
 * the whole record, nothing comes after END. A stream that reads to the end
 * is written again through the writer and read back: it must read again,
 * with the same number of records.
 *
 * Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

static void use_str(const struct mt_reader *r, uint32_t id)
{
	size_t len = 0;
	const char *p = mt_reader_str(r, id, &len);

	if (!id) {
		require(!p);
		return;
	}
	require(p);
	require(p[len] == '\0' && strlen(p) == len);
}

static void use_loc(const struct mt_reader *r, const struct mt_loc *l)
{
	use_str(r, l->sym);
	use_str(r, l->dso);
}

static void use_record(const struct mt_reader *r, const struct mt_record *rec)
{
	unsigned sum = 0;
	size_t i;

	require(rec->raw && rec->raw_len >= MT_REC_HDR);
	require(rec->raw[0] == rec->type);
	require(mt_get24(rec->raw + 1) == rec->raw_len - MT_REC_HDR);
	for (i = 0; i < rec->raw_len; i++) /* let ASan see every byte */
		sum += rec->raw[i];
	(void)sum;
	switch (rec->type) {
	case MT_REC_END:
		require(rec->u.end.bytes == rec->offset);
		break;
	case MT_REC_STRING:
		require(rec->u.string.id != 0);
		use_str(r, rec->u.string.id);
		require(rec->u.string.p ==
			mt_reader_str(r, rec->u.string.id, NULL));
		break;
	case MT_REC_THREAD:
		use_str(r, rec->u.thread.comm);
		break;
	case MT_REC_BRANCH:
		use_loc(r, &rec->u.branch.from);
		use_loc(r, &rec->u.branch.to);
		break;
	case MT_REC_ERROR:
		use_str(r, rec->u.error.msg);
		break;
	case MT_REC_MARK:
		use_str(r, rec->u.mark.name);
		use_str(r, rec->u.mark.text);
		break;
	case MT_REC_SAMPLE:
		use_str(r, rec->u.sample.event);
		require(rec->u.sample.nframes <= rec->raw_len / MT_SIZE_FRAME);
		for (i = 0; i < rec->u.sample.nframes; i++)
			use_loc(r, &rec->u.sample.frames[i]);
		break;
	case MT_REC_SPAN:
		require(rec->u.span.end >= rec->u.span.start);
		use_str(r, rec->u.span.name);
		use_str(r, rec->u.span.dso);
		break;
	case MT_REC_META:
		use_str(r, rec->u.meta.key);
		use_str(r, rec->u.meta.value);
		break;
	default:
		require(rec->type < MT_REC_CRITICAL);
		break;
	}
}

/* Write rec again; 0 or an MT_E* code. */
static int rewrite(struct mt_writer *w, const struct mt_reader *r,
		   const struct mt_record *rec)
{
	switch (rec->type) {
	case MT_REC_END:
		return 0;
	case MT_REC_STRING:
		return mt_write_string(w, rec->u.string.id,
				       mt_reader_str(r, rec->u.string.id, NULL),
				       rec->u.string.len);
	case MT_REC_THREAD:
		return mt_write_thread(w, &rec->u.thread);
	case MT_REC_BRANCH:
		return mt_write_branch(w, &rec->u.branch);
	case MT_REC_ERROR:
		return mt_write_error(w, &rec->u.error);
	case MT_REC_MARK:
		return mt_write_mark(w, &rec->u.mark);
	case MT_REC_SAMPLE:
		return mt_write_sample(w, &rec->u.sample);
	case MT_REC_SPAN:
		return mt_write_span(w, &rec->u.span);
	case MT_REC_META:
		return mt_write_meta(w, &rec->u.meta);
	default:
		return mt_write_raw(w, rec->raw, rec->raw_len);
	}
}

static int sink(void *ctx, const void *p, size_t n)
{
	return mt_buf_add(ctx, p, n);
}

/* Read to the end; returns the records read (END included) or an error. */
static long read_all(const void *data, size_t size, struct mt_writer *w)
{
	struct mt_reader r;
	struct mt_record rec;
	uint64_t last = 0;
	long n = 0;
	int got, ended = 0;

	mt_reader_init_mem(&r, data, size);
	while ((got = mt_reader_next(&r, &rec)) == 1) {
		require(!ended);
		require(rec.offset >= MT_HEADER_LEN && rec.offset >= last);
		require(rec.offset + rec.raw_len <= size);
		require(mt_reader_offset(&r) == rec.offset);
		last = rec.offset + rec.raw_len;
		use_record(&r, &rec);
		if (w)
			require(rewrite(w, &r, &rec) == 0);
		ended = rec.type == MT_REC_END;
		n++;
	}
	require(got <= 0 && got >= MT_ERR_MIN);
	require(mt_reader_offset(&r) <= size);
	if (!got) {
		require(ended);
		require(mt_reader_next(&r, &rec) == 0);
	}
	mt_reader_release(&r);
	return got ? got : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_writer w;
	struct mt_buf out = MT_BUF_INIT;
	long n = read_all(data, size, NULL);

	/* most inputs fail: only the good ones pay for a writer */
	if (n <= 0 || mt_writer_init_fn(&w, sink, &out))
		return 0;
	require(read_all(data, size, &w) == n);
	require(mt_writer_finish(&w) == 0);
	require(read_all(out.p, out.len, NULL) == n);
	mt_writer_release(&w);
	mt_buf_release(&out);
	return 0;
}
