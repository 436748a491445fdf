/* Unit tests for mt_strerror() (common/err.h). */
#include <limits.h>
#include <stdio.h>

#include "err.h"
#include "unit.h"
#include "banned.h"

/* Every code of enum mt_err, by name: the table must be kept in step with
 * err.h (test_contiguous checks that it covers MT_ERR_MIN .. -1). */
static const int codes[] = {
	MT_ENOMEM,    MT_EIO,      MT_ETRUNCATED, MT_EMAGIC,   MT_EVERSION,
	MT_ECORRUPT,  MT_EUNDEFSTR, MT_ECRITICAL, MT_ECOUNT,   MT_ETRAILING,
	MT_ESYNTAX,   MT_ERANGE,   MT_ETOOBIG,    MT_EINVAL,   MT_EPIPE,
	MT_ENOENT,    MT_EMISMATCH, MT_ENOTREG,   MT_EFBIG,
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static void test_contiguous(void)
{
	size_t i;
	int seen[-MT_ERR_MIN + 1];

	CHECK_EQ(MT_OK, 0);
	CHECK_EQ(NCODES, (size_t)-MT_ERR_MIN);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < NCODES; i++) {
		CHECK(codes[i] < 0 && codes[i] >= MT_ERR_MIN);
		if (codes[i] < 0 && codes[i] >= MT_ERR_MIN)
			seen[-codes[i]]++;
	}
	for (i = 1; i <= (size_t)-MT_ERR_MIN; i++)
		CHECK_EQ(seen[i], 1);
}

/* Each code from MT_ERR_MIN to 0 has its own non-empty static text (a code
 * added to err.h without a message shows up here, or under ASan as a read
 * past the table). */
static void test_messages(void)
{
	const char *msg[-MT_ERR_MIN + 1];
	int e, f;

	for (e = MT_ERR_MIN; e <= 0; e++) {
		msg[-e] = mt_strerror(e);
		CHECK(msg[-e] != NULL);
		if (!msg[-e])
			return;
		CHECK(msg[-e][0] != '\0');
		CHECK(strncmp(msg[-e], "unknown error", 13) != 0);
	}
	for (e = MT_ERR_MIN; e <= 0; e++)
		for (f = e + 1; f <= 0; f++)
			if (!strcmp(msg[-e], msg[-f])) {
				fprintf(stderr, "codes %d and %d share \"%s\"\n",
					e, f, msg[-e]);
				CHECK(0);
			}
	/* the texts are static: asking again gives the same pointer */
	for (e = MT_ERR_MIN; e <= 0; e++)
		CHECK(mt_strerror(e) == msg[-e]);
	CHECK_STR(mt_strerror(MT_OK), "success");
	CHECK_STR(mt_strerror(MT_ENOMEM), "out of memory");
}

static void check_unknown(int e)
{
	char want[64];

	snprintf(want, sizeof(want), "unknown error %d", e);
	CHECK_STR(mt_strerror(e), want);
}

static void test_unknown(void)
{
	check_unknown(1);
	check_unknown(42);
	check_unknown(MT_ERR_MIN - 1);
	check_unknown(-1000);
	check_unknown(INT_MAX);
	check_unknown(INT_MIN);
	check_unknown(MT_ERR_MIN - 2);
	/* a known code after an unknown one is still right: the static
	 * buffer for unknown codes does not leak into the table */
	{
		const char *known = mt_strerror(MT_EPIPE);

		check_unknown(MT_ERR_MIN - 1);
		CHECK(mt_strerror(MT_EPIPE) == known);
		CHECK(strncmp(known, "unknown", 7) != 0);
	}
}

int main(void)
{
	RUN(test_contiguous);
	RUN(test_messages);
	RUN(test_unknown);
	return unit_done();
}
