/* Unit tests for mt_quote (common/quote.h). */
#include <string.h>

#include "quote.h"
#include "unit.h"
#include "banned.h"

static void test_plain(void)
{
	char b[64];

	CHECK_STR(mt_quote_str(b, sizeof(b), "main+0x1a (/bin/x)"),
		  "main+0x1a (/bin/x)");
	CHECK_STR(mt_quote(b, sizeof(b), "", 0), "");
}

/* What a web page can put in a request path: an OSC title sequence. */
static void test_controls(void)
{
	char b[64];
	const char osc[] = "\x1b]0;X\x07/\x9b" "1m\x7f";

	CHECK_STR(mt_quote(b, sizeof(b), osc, sizeof(osc) - 1),
		  "\\x1b]0;X\\x07/\\x9b1m\\x7f");
	CHECK_STR(mt_quote_str(b, sizeof(b), "a\tb\nc\rd\\e\"f"),
		  "a\\tb\\nc\\rd\\\\e\\\"f");
	CHECK_STR(mt_quote(b, sizeof(b), "a\0b", 3), "a\\x00b");
	/* UTF-8 too: the terminal decides nothing */
	CHECK_STR(mt_quote_str(b, sizeof(b), "\xc3\xa9"), "\\xc3\\xa9");
}

/* Cut at a whole escape, "..." after, always terminated, never past cap. */
static void test_cut(void)
{
	char b[16];
	size_t cap;

	memset(b, 'Z', sizeof(b));
	CHECK_STR(mt_quote_str(b, 10, "abcdefghijklmnop"), "abcdef...");
	CHECK_EQ(b[10], 'Z');
	CHECK_STR(mt_quote_str(b, 10, "abcdefghi"), "abcdefghi");
	CHECK_STR(mt_quote_str(b, 10, "abcdefghij"), "abcdef...");
	CHECK_STR(mt_quote_str(b, 10, "abcde\x1b" "fgh"), "abcde...");
	CHECK_STR(mt_quote_str(b, 10, "ab\x1b"), "ab\\x1b");
	for (cap = 1; cap <= sizeof(b); cap++) {
		memset(b, 'Z', sizeof(b));
		mt_quote_str(b, cap, "\x01\x02\x03\x04\x05\x06\x07");
		CHECK(strlen(b) < cap);
		if (cap < sizeof(b))
			CHECK_EQ(b[cap], 'Z');
	}
}

int main(void)
{
	RUN(test_plain);
	RUN(test_controls);
	RUN(test_cut);
	return unit_done();
}
