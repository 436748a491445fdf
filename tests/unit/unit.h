/*
 * A minimal unit-test harness. A test file defines test functions and a
 * main() that calls RUN(fn) for each; CHECK() records a failure with its
 * line and goes on. main() ends with `return unit_done();`, which prints
 * "unit NAME: N passed, N failed" and returns non-zero on any failure.
 *
 * poison(): fill a struct with 0xcd before _init, as libipt's tests do, so
 * that an _init that forgets a field shows up.
 */
#ifndef MT_UNIT_H
#define MT_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed, unit_case_failed;
static const char *unit_case;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n",     \
				__FILE__, __LINE__, unit_case, #cond);       \
			unit_case_failed = 1;                                \
		}                                                            \
	} while (0)

#define CHECK_EQ(a, b)                                                       \
	do {                                                                 \
		unsigned long long va_ = (unsigned long long)(a);            \
		unsigned long long vb_ = (unsigned long long)(b);            \
		if (va_ != vb_) {                                            \
			fprintf(stderr,                                      \
				"%s:%d: %s: %s == %s failed: %llu != %llu\n", \
				__FILE__, __LINE__, unit_case, #a, #b, va_,   \
				vb_);                                        \
			unit_case_failed = 1;                                \
		}                                                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *sa_ = (a), *sb_ = (b);                           \
		if (!sa_ || !sb_ || strcmp(sa_, sb_)) {                      \
			fprintf(stderr, "%s:%d: %s: \"%s\" != \"%s\"\n",     \
				__FILE__, __LINE__, unit_case,               \
				sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)"); \
			unit_case_failed = 1;                                \
		}                                                            \
	} while (0)

#define RUN(fn)                                                              \
	do {                                                                 \
		unit_case = #fn;                                             \
		unit_case_failed = 0;                                        \
		fn();                                                        \
		if (unit_case_failed)                                        \
			unit_failed++;                                       \
		else                                                         \
			unit_passed++;                                       \
	} while (0)

#define poison(p) memset((p), 0xcd, sizeof(*(p)))

static inline int unit_done_named(const char *file)
{
	const char *base = strrchr(file, '/');

	printf("unit %s: %d passed, %d failed\n", base ? base + 1 : file,
	       unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#define unit_done() unit_done_named(__FILE__)

#endif
