/* Unit tests for mt_parse_duration() (common/duration.h). */
#include <stdint.h>

#include "duration.h"
#include "err.h"
#include "unit.h"
#include "banned.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aull

static void ok(const char *s, uint64_t want)
{
	uint64_t ns = SENTINEL;
	int err = mt_parse_duration(s, &ns);

	if (err)
		fprintf(stderr, "\"%s\": %s\n", s, mt_strerror(err));
	CHECK_EQ(err, 0);
	if (ns != want)
		fprintf(stderr, "\"%s\" gave %llu\n", s, (unsigned long long)ns);
	CHECK_EQ(ns, want);
}

static void bad(const char *s, int want)
{
	uint64_t ns = SENTINEL;
	int err = mt_parse_duration(s, &ns);

	if (err != want)
		fprintf(stderr, "\"%s\": got %d (ns %llu), want %d\n", s, err,
			(unsigned long long)ns, want);
	CHECK_EQ(err, want);
}

static void test_units(void)
{
	ok("300ns", 300);
	ok("1.5us", 1500);
	ok("2ms", 2000000);
	ok("4s", 4000000000ull);
	ok("2\xc2\xb5s", 2000); /* "2µs", U+00B5 MICRO SIGN in UTF-8 */
	ok("1.25\xc2\xb5s", 1250);
	ok("1ns", 1);
	ok("1us", 1000);
	ok("1ms", 1000000);
	ok("1s", 1000000000);
	ok("007ms", 7000000);
	ok("12.345678s", 12345678000ull);
	ok("0.000001ms", 1);
}

/* A bare number is accepted only when it is zero, in any spelling. */
static void test_zero(void)
{
	ok("0", 0);
	ok("000", 0);
	ok("0.0", 0);
	ok("0.", 0);
	ok(".0", 0);
	ok("0ns", 0);
	ok("0s", 0);
	ok("0.000us", 0);
}

/*
 * Fractions are rounded to the nearest nanosecond, halves up: 0.5ns is 1,
 * 0.4999ns is 0, 1.5ns is 2, 2.5ns is 3. Digits beyond 1e-18 of the unit
 * are ignored.
 */
static void test_rounding(void)
{
	ok("0.5ns", 1);
	ok("0.4999ns", 0);
	ok("0.49999999999999999999999ns", 0);
	ok("1.5ns", 2);
	ok("2.5ns", 3);
	ok("0.0005us", 1);
	ok("0.0004us", 0);
	ok("1.0000000001s", 1000000000);
	ok("1.0000000005s", 1000000001);
	ok("1.9999999994s", 1999999999);
	ok("1.9999999995s", 2000000000);
	ok("0.1234567894999999999999999s", 123456789);
	ok(".5ns", 1);
	ok("3.ms", 3000000);
}

/* The full u64 range of nanoseconds, and one past it. */
static void test_range(void)
{
	ok("18446744073709551615ns", UINT64_MAX);
	ok("18446744073709551614ns", UINT64_MAX - 1);
	ok("18446744073709551615.4ns", UINT64_MAX);
	ok("18446744073.709551615s", UINT64_MAX);
	ok("18446744073709551.615us", UINT64_MAX);
	ok("00000000000000000000000000018446744073709551615ns", UINT64_MAX);
	bad("18446744073709551616ns", MT_ERANGE);
	bad("18446744073709551615.5ns", MT_ERANGE);
	bad("18446744073709551620ns", MT_ERANGE);
	bad("99999999999999999999ns", MT_ERANGE);
	bad("184467440737095516150ns", MT_ERANGE);
	bad("1000000000000000000000000000000ns", MT_ERANGE);
	bad("18446744073.709551616s", MT_ERANGE);
	bad("18446744074s", MT_ERANGE);
	bad("18446744073709552us", MT_ERANGE);
}

static void test_syntax(void)
{
	bad("", MT_ESYNTAX);
	bad("ms", MT_ESYNTAX);
	bad("5", MT_ESYNTAX);
	bad("1.5", MT_ESYNTAX);
	bad("-1ms", MT_ESYNTAX);
	bad("+1ms", MT_ESYNTAX);
	bad("1x", MT_ESYNTAX);
	bad("1 ms", MT_ESYNTAX);
	bad(" 1ms", MT_ESYNTAX);
	bad("1ms ", MT_ESYNTAX);
	bad("1ms\n", MT_ESYNTAX);
	bad("1.2.3s", MT_ESYNTAX);
	bad(".", MT_ESYNTAX);
	bad(".s", MT_ESYNTAX);
	bad("1e3ns", MT_ESYNTAX);
	bad("0x10ns", MT_ESYNTAX);
	bad("1MS", MT_ESYNTAX);
	bad("1sec", MT_ESYNTAX);
	bad("1m", MT_ESYNTAX);
	bad("1\xc2\xb5", MT_ESYNTAX);
	bad("1\xb5s", MT_ESYNTAX);
	bad("1nss", MT_ESYNTAX);
	bad("1,5ms", MT_ESYNTAX);
}

static void test_null(void)
{
	uint64_t ns = SENTINEL;

	CHECK_EQ(mt_parse_duration(NULL, &ns), MT_EINVAL);
}

int main(void)
{
	RUN(test_units);
	RUN(test_zero);
	RUN(test_rounding);
	RUN(test_range);
	RUN(test_syntax);
	RUN(test_null);
	return unit_done();
}
