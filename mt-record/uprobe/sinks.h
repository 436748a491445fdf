/*
 * The uprobe backend's sinks (uprobe.h's mt_uprobe_sink): where a
 * snapshot's events go on mt-record's output. As records of its stream:
 * each event the records mt-script-parse makes of perf script's line for
 * it (the thread's THREAD when new or renamed, then a call or a return
 * BRANCH flagged PROBE; lost events an ERROR of class lost, no thread's),
 * so that the stream is what `--text | mt-script-parse` gives. Or, with
 * --text, as that line (mt_uprobe_event_text()).
 *
 * Both die (system) on a write error, as mt-record's output does.
 */
#ifndef MT_RECORD_UPROBE_SINKS_H
#define MT_RECORD_UPROBE_SINKS_H

#include "buf.h"
#include "streamout.h"
#include "uprobe.h"

/* A sink: e as records of the stream arg (a struct stream_out *). */
int uprobe_sink_records(void *arg, const struct mt_uprobe_event *e);

/* The text sink's state: the engine (the lines' widths), the output. */
struct uprobe_lines {
	const struct mt_uprobe *u;
	int fd;
	struct mt_buf b;
};

void uprobe_lines_init(struct uprobe_lines *l, const struct mt_uprobe *u, int fd);

/* A sink: e as its line, buffered (arg a struct uprobe_lines *). */
int uprobe_sink_lines(void *arg, const struct mt_uprobe_event *e);

/* The lines buffered written out; the buffer freed. */
void uprobe_lines_finish(struct uprobe_lines *l);

#endif
