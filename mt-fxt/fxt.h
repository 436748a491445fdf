/*
 * The FXT writer (fxt.c): the records of writer.h as Fuchsia trace format
 * records that Perfetto imports, through common/fxtwrite.h; the layout and
 * Perfetto's rules are in docs/fxt.md.
 *
 * - begin() writes the magic, a provider record named "mt", an
 *   initialization record of 10^9 ticks a second (times are perf's ns)
 *   and the pinned names, string indexes 1..NPINNED.
 * - Input strings go into the rest of the string table, keyed by their
 *   input id, registered when first used and again after the table's
 *   clock evicted them or the stream redefined them; an empty string is
 *   index 0. Threads go into the 255-entry thread table the same way,
 *   keyed by struct thread's index, as koids (writer.h).
 * - A thread's name goes inline in a kernel object record of its koid
 *   (its process a koid argument, "process"), and, when pid is tid or
 *   unknown, its process's name too.
 * - A span is a complete event named by its name ([unknown] without one),
 *   its arguments address (a pointer, when not 0), the flags' booleans and
 *   dso; an instant an instant event at its time (0 when unknown); a
 *   counter a counter event whose id is the counter's. No categories.
 * - -v adds how many string and thread records were written and how many
 *   strings registered again.
 *
 * A record that cannot be written dies (die_mt: "OUTPUT: writing FXT").
 */
#ifndef MT_FXT_FXT_H
#define MT_FXT_FXT_H

#include "writer.h"

extern const struct writer fxt_writer;

#endif
