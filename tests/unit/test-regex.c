/* Unit tests for common/regex (PCRE2 patterns). */
#include <string.h>

#include "err.h"
#include "regex.h"
#include "unit.h"
#include "banned.h"

static void test_match(void)
{
	struct mt_regex r = MT_REGEX_INIT;
	char msg[MT_REGEX_MSG_SIZE];
	size_t at = 99;

	CHECK_EQ(mt_regex_compile(&r, "^ma.n$", &at, msg, sizeof(msg)), 0);
	CHECK(r.re != NULL && r.md != NULL);
	CHECK_EQ(at, 99); /* untouched on success */
	CHECK_EQ(mt_regex_match(&r, "main"), 1);
	CHECK_EQ(mt_regex_match(&r, "xmain"), 0);
	CHECK_EQ(mt_regex_match_len(&r, "mainly", 4), 1); /* len bytes only */
	CHECK_EQ(mt_regex_match_len(&r, "ma\0n", 4), 1); /* a NUL is a byte */
	/* a second pattern replaces the first */
	CHECK_EQ(mt_regex_compile(&r, "ai", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_regex_match(&r, "main"), 1);
	CHECK_EQ(mt_regex_match(&r, ""), 0);
	mt_regex_release(&r);
	CHECK(r.re == NULL && r.md == NULL);
	mt_regex_release(&r); /* empty: nothing to do */
}

static void test_errors(void)
{
	struct mt_regex r = MT_REGEX_INIT;
	char msg[MT_REGEX_MSG_SIZE], small[8];
	size_t at = 0;

	CHECK_EQ(mt_regex_compile(&r, "(ab", &at, msg, sizeof(msg)), MT_ESYNTAX);
	CHECK(r.re == NULL && r.md == NULL);
	CHECK_EQ(at, 3);
	CHECK_STR(msg, "missing closing parenthesis");
	CHECK_EQ(mt_regex_compile(&r, "a{2,1}", &at, msg, sizeof(msg)), MT_ESYNTAX);
	CHECK_EQ(at, 5);
	CHECK_STR(msg, "numbers out of order in {} quantifier");
	/* a message cut to the buffer, still a string */
	CHECK_EQ(mt_regex_compile(&r, "(", &at, small, sizeof(small)), MT_ESYNTAX);
	CHECK_EQ(strlen(small), sizeof(small) - 1);
	CHECK(!strncmp(small, "missing", 7));
	/* a failed compile empties r */
	CHECK_EQ(mt_regex_compile(&r, "ok", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_regex_compile(&r, "[", &at, msg, sizeof(msg)), MT_ESYNTAX);
	CHECK(r.re == NULL && r.md == NULL);
}

int main(void)
{
	RUN(test_match);
	RUN(test_errors);
	return unit_done();
}
