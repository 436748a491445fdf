/*
 * What the parts of mt-fxt share; each file has one job:
 *
 *   mt-fxt.c  the options, the walk of the mt stream, the FXT and JSON
 *             records, the report; main()
 *   text.c    the text of input strings: valid UTF-8, cut when too long
 *   out.c     the output buffer the records are written through
 *
 * They die (die.h) on any error.
 */
#ifndef MT_FXT_WRITER_H
#define MT_FXT_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/* ---- the output buffer (out.c) ---- */

/* Append n bytes at p to the output, written through output.h's
 * output_write() as the buffer fills. */
void out_mem(const void *p, size_t n);
/* Write what the buffer holds. */
void out_flush(void);
/* Bytes appended so far, written or not. */
unsigned long long out_total(void);

/* ---- the text of input strings (text.c) ---- */

/* The strings are those of r; in_name names it in messages. Both must
 * outlive every other call below. */
void text_init(const struct mt_reader *r, const char *in_name);

/*
 * The text of input string id, valid UTF-8 (every ill-formed subpart is
 * U+FFFD), cut with a visible mark when longer than 32,000 bytes, in
 * *len bytes; NULL when id is not defined. *tmp is what to free after
 * (NULL when nothing).
 */
const char *text_of(uint32_t id, size_t *len, char **tmp);

/* The same, dying (MT_EXIT_DATA) when id is not defined. */
const char *text_need(uint32_t id, size_t *len, char **tmp);

/* Where to cut valid UTF-8 at most keep bytes long, not inside a
 * sequence: the length to keep. */
size_t utf8_cut(const char *s, size_t len, size_t keep);

#endif
