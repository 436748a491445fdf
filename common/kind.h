/*
 * What a file's first bytes say it is, for the tools that take more than
 * one kind of input (mt-slice, mt-report) and for messages about a file
 * that is not what a tool reads (mt_reader_looks_like). One place knows
 * the magic numbers: the mt stream's (docs/format.md 2), FXT's (docs/fxt.md
 * 1.3), gzip's, perf.data's, ELF's.
 */
#ifndef MT_KIND_H
#define MT_KIND_H

#include <stddef.h>

enum mt_kind {
	MT_KIND_UNKNOWN,  /* none of the below (or no bytes) */
	MT_KIND_STREAM,   /* an mt stream: its 8-byte magic */
	MT_KIND_FXT,      /* FXT: the magic number record, 8 bytes */
	MT_KIND_GZIP,     /* gzip: 1f 8b */
	MT_KIND_PERFDATA, /* "PERFILE2" */
	MT_KIND_ELF,      /* 7f "ELF" */
	MT_KIND_TEXT,     /* printable ASCII, tabs and line ends only */
};

/* The kind of the n bytes at buf, the start of a file (8 are enough for
 * every magic; fewer can only say gzip or text). */
enum mt_kind mt_kind_of(const void *buf, size_t n);

/* A phrase for messages: "an FXT trace", "gzip-compressed data", ...;
 * NULL for MT_KIND_UNKNOWN. */
const char *mt_kind_phrase(enum mt_kind k);

#endif
