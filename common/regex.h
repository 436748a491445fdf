/*
 * Regular expressions: PCRE2 patterns (link -lpcre2-8), as --match and
 * --functions take them. Nothing is printed; errors are MT_E* codes (err.h)
 * with PCRE2's message in the caller's buffer. struct mt_regex owns its
 * compiled pattern and match data; mt_regex_release() frees them and
 * leaves it empty. A zeroed struct (MT_REGEX_INIT) is empty.
 */
#ifndef MT_REGEX_H
#define MT_REGEX_H

#include <stddef.h>

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

struct mt_regex {
	pcre2_code *re;          /* NULL when empty */
	pcre2_match_data *md;
};

#define MT_REGEX_INIT { NULL, NULL }

/* Room for PCRE2's longest message. */
#define MT_REGEX_MSG_SIZE 256

/*
 * Compile pattern (PCRE2 syntax, no options) into r, replacing (and
 * freeing) what r held. 0; or MT_ESYNTAX when it does not compile, with *at the offset in
 * pattern where PCRE2 stopped and msg (size bytes, NUL-terminated) its
 * message; or MT_ENOMEM. On error r is empty.
 */
int mt_regex_compile(struct mt_regex *r, const char *pattern, size_t *at,
		     char *msg, size_t size);

/* 1 when s matches r anywhere, else 0. r must hold a pattern. */
int mt_regex_match(const struct mt_regex *r, const char *s);
/* The same for the len bytes at s (which may hold NULs). */
int mt_regex_match_len(const struct mt_regex *r, const char *s, size_t len);

void mt_regex_release(struct mt_regex *r);

/*
 * Tool tier (libmttool.a, common/regexopt.c): compile the pattern given
 * to the command-line option opt ("--match") into r, or die: "OPT
 * PATTERN: at offset N: MESSAGE" with MT_EXIT_USAGE, "out of memory" with
 * MT_EXIT_SYSTEM.
 */
void mt_regex_option(struct mt_regex *r, const char *opt, const char *pattern);

#endif
