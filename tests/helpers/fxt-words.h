/*
 * The words of a hand-written FXT file, for the test writers fxt-be and
 * fxt-mtrace (which encode records themselves on purpose: they are FXT
 * that common/fxtwrite did not write). To standard output; a failed write
 * dies.
 */
#ifndef MT_TEST_FXT_WORDS_H
#define MT_TEST_FXT_WORDS_H

#include <stdio.h>

#include "die.h"
#include "wire.h"

/* One little-endian 64-bit word. */
static void word(unsigned long long w)
{
	unsigned char b[8];

	mt_put64(b, w);
	if (fwrite(b, 8, 1, stdout) != 1)
		die_errno(MT_EXIT_SYSTEM, "writing");
}

/* len bytes of a string, padded with zeros to a whole word. */
static void stream(const char *s, size_t len)
{
	static const char zero[8];

	if (len && fwrite(s, len, 1, stdout) != 1)
		die_errno(MT_EXIT_SYSTEM, "writing");
	if (len % 8 && fwrite(zero, 8 - len % 8, 1, stdout) != 1)
		die_errno(MT_EXIT_SYSTEM, "writing");
}

/* How many words len bytes take. */
static size_t words(size_t len)
{
	return (len + 7) / 8;
}

#endif
