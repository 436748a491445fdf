/*
 * Durations and times given on command lines: a decimal number and a unit,
 * "300ns", "1.5us", "2ms", "4s", "0". Units: ns, us, ms, s (also "µs").
 */
#ifndef MT_DURATION_H
#define MT_DURATION_H

#include <stdint.h>

/* Parse s (the whole string) into nanoseconds, rounding to the nearest ns.
 * A bare number is accepted only when it is 0. Returns 0, MT_ESYNTAX
 * (empty, no unit, unknown unit, junk, a sign) or MT_ERANGE (> 2^64-1 ns). */
int mt_parse_duration(const char *s, uint64_t *ns);

#endif
