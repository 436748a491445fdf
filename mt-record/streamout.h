/*
 * mt-record's output as an mt stream (when Intel PT is decoded through
 * mt-dlfilter.so, and the patch backend's): one stream for a whole
 * recording, or one a snapshot file with -o DIR/, holding what the text
 * path's output gives through mt-script-parse: mt-record's marks as MARK
 * records (common/mtline.h; with --text, their "# mt:" lines, written by
 * mark_text_write()), and the streams perf script
 * writes for each snapshot, joined into one (common/streamcopy.h), or the
 * records the patch backend makes (stream_out_branch()).
 *
 * A struct stream_out is its caller's; it dies (system) on a write error,
 * naming what it was writing.
 */
#ifndef MT_RECORD_STREAMOUT_H
#define MT_RECORD_STREAMOUT_H

#include <stdint.h>

#include "mtline.h"
#include "stream.h"
#include "tidtable.h"

/* A mark to put among a snapshot's records: before the first later than
 * time (MT_NONE64: none), or at the end. */
struct mark_line {
	uint64_t time;
	struct mt_mt_line ml;
	int has_region;         /* a stop indicator's hit: its region's */
	struct mt_mt_line region; /* MARK after ml's */
};

struct stream_out {
	int fd;
	const char *source;    /* the META source: "perf script" unless the
				* caller says otherwise before the first record */
	int started;           /* the header went out on fd */
	struct mt_writer w;
	/* the comm each thread was last given in a THREAD record (struct
	 * stream_thread, streamout.c's) */
	struct mt_tidtable threads;
};

/* Nothing is written until there is a record: a recording that took no
 * snapshot leaves fd empty, as the text path does. */
void stream_out_init(struct stream_out *s, int fd);

/* A MARK record of mt-record's (mtline.h's mt_mt_trigger(), ...). */
void stream_out_mark(struct stream_out *s, const struct mt_mt_line *ml);

/* The text output's form of a mark: its "# mt:" line on fd. Dies
 * (system) on a write error. */
void mark_text_write(int fd, const struct mt_mt_line *ml);

/* mk's MARK, and its region's after it when it has one: into s, or as
 * text lines on fd. */
void stream_out_mark_line(struct stream_out *s, const struct mark_line *mk);
void mark_line_text_write(int fd, const struct mark_line *mk);

/*
 * The stream r reads (perf script's through the dlfilter), copied in:
 * records of a time at or before *after are left out (with --repeat,
 * what the last snapshot held: they overlap), then *after is the last
 * time copied; mk's MARK (when mk and its time is not MT_NONE64) goes
 * before the first record after that time, or at the end. A thread's
 * THREAD record goes before its first record copied, and again only when
 * its name changes, as mt-script-parse gives them for the text.
 */
int stream_out_copy(struct stream_out *s, struct mt_reader *r,
		    const struct mark_line *mk, uint64_t *after);

/* The id of the string p (len bytes) in the stream. */
uint32_t stream_out_str(struct stream_out *s, const char *p, size_t len);

/* Thread (pid, tid) is called comm (len bytes): its THREAD record goes
 * before its next record, when the name is new to the stream. */
void stream_out_thread(struct stream_out *s, uint32_t pid, uint32_t tid,
		       const char *comm, size_t len);

/* A BRANCH record (its strings stream_out_str()'s), its thread's
 * THREAD first when due. */
void stream_out_branch(struct stream_out *s, const struct mt_branch *b);

/* An ERROR record (its msg stream_out_str()'s), its thread's THREAD
 * first when due (pid MT_NONE32: no thread's). */
void stream_out_error(struct stream_out *s, const struct mt_error *e);

/* What is buffered written out (when the stream was started): a reader
 * of a recording that streams (--full) gets each pass as it is read. */
void stream_out_flush(struct stream_out *s);

/* The stream's END (when it was started), flushed. */
void stream_out_finish(struct stream_out *s);

void stream_out_release(struct stream_out *s);

#endif
