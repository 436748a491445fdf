/*
 * Writes the seed streams of tests/fuzz/corpus/stream/ through the writer
 * API. Not built by make; after a format change, regenerate with
 *
 *   cc -std=gnu11 -D_GNU_SOURCE -Icommon -o /tmp/gen-seeds \
 *	tests/fuzz/gen-seeds.c common/err.c common/buf.c common/intern.c \
 *	common/stream.c
 *   /tmp/gen-seeds tests/fuzz/corpus/stream
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

static const char *dir;

static int sink(void *ctx, const void *p, size_t n)
{
	return mt_buf_add(ctx, p, n);
}

static void check(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "gen-seeds: %s: %s\n", what, mt_strerror(err));
		exit(1);
	}
}

static void save(const char *name, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Finish w, save its bytes, and release both. */
static void done(struct mt_writer *w, struct mt_buf *out, const char *name)
{
	check(mt_writer_finish(w), name);
	mt_writer_release(w);
	save(name, out->p, out->len);
	mt_buf_release(out);
}

static void start(struct mt_writer *w, struct mt_buf *out)
{
	mt_buf_init(out);
	check(mt_writer_init_fn(w, sink, out), "init");
}

static uint32_t str(struct mt_writer *w, const char *s)
{
	uint32_t id;

	check(mt_writer_intern(w, s, strlen(s), &id), s);
	return id;
}

/* One record of every type. */
static void all_types(void)
{
	struct mt_writer w;
	struct mt_buf out;
	struct mt_loc fr[2];
	uint32_t main_id, libc, ev;
	static const unsigned char unk[] = { 0x33, 3, 0, 0, 'a', 'b', 'c' };

	start(&w, &out);
	check(mt_write_meta(&w, &(struct mt_meta){ str(&w, "source"),
						   str(&w, "perf-script") }),
	      "meta");
	main_id = str(&w, "main");
	libc = str(&w, "/lib/libc.so.6");
	check(mt_write_thread(&w, &(struct mt_thread){ 100, 101, main_id,
						       1000 }), "thread");
	check(mt_write_branch(&w, &(struct mt_branch){
		2000, 100, 101, 0, MT_BR_CALL, MT_BF_INTX,
		{ 0x401000, 0x10, main_id, libc },
		{ 0x7f0000001000, MT_NONE64, 0, libc } }), "branch");
	check(mt_write_branch(&w, &(struct mt_branch){
		2100, 100, 101, 0, MT_BR_NONE, MT_BF_END,
		{ 0x401020, 0x30, main_id, 0 }, { 0, MT_NONE64, 0, 0 } }),
	      "branch");
	check(mt_write_error(&w, &(struct mt_error){
		MT_NONE64, 100, 101, 1, MT_ERRC_LOST, 0, 8, 1, 16,
		str(&w, "Lost trace data") }), "error");
	ev = str(&w, "cbr");
	check(mt_write_mark(&w, &(struct mt_mark){
		2200, 100, 101, 0, MT_MARK_CBR, 0, 2400, 0, ev, 0 }), "mark");
	fr[0] = (struct mt_loc){ 0x401005, 5, main_id, 0 };
	fr[1] = (struct mt_loc){ 0x7f0000000100, MT_NONE64, 0, libc };
	check(mt_write_sample(&w, &(struct mt_sample){
		2300, 100, 101, 0, 0, 10000, str(&w, "cpu-clock"), 2, fr }),
	      "sample");
	check(mt_write_span(&w, &(struct mt_span){
		2000, 2100, 100, 101, 0, MT_SPAN_FUNCTION, MT_SF_INFERRED,
		0x401000, main_id, libc }), "span");
	check(mt_write_raw(&w, unk, sizeof(unk)), "raw");
	done(&w, &out, "all-types");
}

/* Header and END only. */
static void empty(void)
{
	struct mt_writer w;
	struct mt_buf out;

	start(&w, &out);
	done(&w, &out, "empty");
}

/* String ids defined by hand: high bytes, redefinition, the largest id. */
static void strings(void)
{
	struct mt_writer w;
	struct mt_buf out;

	start(&w, &out);
	check(mt_write_string(&w, 1, "caf\xc3\xa9\x80\xff", 7), "s1");
	check(mt_write_string(&w, 0xffffffff, "max", 3), "smax");
	check(mt_write_meta(&w, &(struct mt_meta){ 1, 0xffffffff }), "m1");
	check(mt_write_string(&w, 1, "", 0), "s1 again");
	check(mt_write_meta(&w, &(struct mt_meta){ 0xffffffff, 1 }), "m2");
	check(mt_write_thread(&w, &(struct mt_thread){
		MT_NONE32, MT_NONE32, 1, MT_NONE64 }), "thread");
	done(&w, &out, "strings");
}

/* A later minor version: longer bodies and frames, skippable types. */
static void future(void)
{
	struct mt_writer w;
	struct mt_buf out;
	unsigned char rec[4 + 40 + 2 * 32 + 4];
	unsigned char th[4 + 28];

	memset(rec, 0, sizeof(rec));
	rec[0] = MT_REC_SAMPLE;
	mt_put24(rec + 1, sizeof(rec) - 4);
	mt_put64(rec + 4, 5000);
	mt_put16(rec + 4 + 22, 32);
	mt_put32(rec + 4 + 36, 2);
	mt_put64(rec + 4 + 40, 0x401000);
	mt_put64(rec + 4 + 40 + 32, 0x402000);
	memset(th, 0xee, sizeof(th));
	th[0] = MT_REC_THREAD;
	mt_put24(th + 1, sizeof(th) - 4);
	mt_put32(th + 4 + 8, 0);
	start(&w, &out);
	mt_put16(w.buf + 10, 3); /* minor 3 */
	check(mt_write_raw(&w, rec, sizeof(rec)), "sample");
	check(mt_write_raw(&w, th, sizeof(th)), "thread");
	check(mt_write_raw(&w, (const unsigned char[]){ 0x09, 0, 0, 0 }, 4),
	      "0x09");
	check(mt_write_raw(&w, (const unsigned char[]){ 0x7f, 1, 0, 0, 0 }, 5),
	      "0x7f");
	done(&w, &out, "future");
}

/* A few of each branch kind, to give the fuzzer many records to cut. */
static void branches(void)
{
	struct mt_writer w;
	struct mt_buf out;
	uint32_t f = 0, g = 0;
	unsigned k;

	start(&w, &out);
	for (k = 0; k < MT_BR_NKINDS; k++) {
		if (k == 1)
			f = str(&w, "f");
		if (k == 5)
			g = str(&w, "g");
		check(mt_write_branch(&w, &(struct mt_branch){
			k * 10, 7, 7, k % 2, (uint8_t)k, (uint16_t)(1u << k),
			{ 0x1000 + k, k, f, g }, { 0x2000 + k, MT_NONE64, g, 0 } }),
		      "branch");
	}
	done(&w, &out, "branches");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen-seeds DIR\n");
		return 2;
	}
	dir = argv[1];
	all_types();
	empty();
	strings();
	future();
	branches();
	return 0;
}
