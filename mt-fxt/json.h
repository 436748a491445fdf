/*
 * The JSON writer (json.c): the records of writer.h in Chrome's trace
 * event format, as Perfetto's JSON importer reads it:
 *
 *   {"displayTimeUnit":"ns","metadata":{"perf_time_ns_at_ts_0":B},
 *   "traceEvents":[ one event a line ]}
 *
 * - A span is an X event ("address" always, a string of hex; the flags'
 *   booleans as true; "dso"), an instant an i event of thread scope
 *   ("s":"t"), a counter a C event whose "id" is the counter's; pid and
 *   tid are koids (writer.h). M events name processes (the threads whose
 *   pid is their tid) and threads after every other event, from the
 *   thread table; a thread's name is not written before.
 * - ts and dur are microseconds with three decimals, nanoseconds exactly,
 *   ts counted from the base B: 0 while the first time given to
 *   saw_time() is below 2^50 ns, else that time less 2^50 ns in whole
 *   seconds, so that every time within 2^50 ns (13 days) of it is exact
 *   as Perfetto reads ts (a double). The head is written with the first
 *   event, once B is known. A time of 2^51 ns or more from B, or before
 *   it (written as 0), is counted, and warn() says how many.
 * - Strings are the text of input strings (text_of(), valid UTF-8) with
 *   quotes and backslashes escaped, and every control character
 *   (U+0000..U+001F, U+007F..U+009F), U+2028 and U+2029 as \uXXXX.
 *
 * Writes text, to a terminal too (binary is NULL).
 */
#ifndef MT_FXT_JSON_H
#define MT_FXT_JSON_H

#include "writer.h"

extern const struct writer json_writer;

#endif
