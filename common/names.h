/*
 * The names of kinds, classes and flags of the stream's records, as the
 * text form prints them (docs/format.md section 6). Shared by what writes
 * that text (mt-dump) and what reads it back (tests/helpers/mt-asm).
 * Entries without a name are NULL.
 */
#ifndef MT_NAMES_H
#define MT_NAMES_H

#include "stream.h"

extern const char *const mt_branch_kind_names[MT_BR_NKINDS];
extern const char *const mt_branch_flag_names[9];       /* by bit */
extern const char *const mt_error_class_names[MT_ERRC_LOST + 1];
extern const char *const mt_mark_kind_names[MT_MARK_NKINDS];
extern const char *const mt_span_kind_names[MT_SPAN_NKINDS];
extern const char *const mt_span_flag_names[4];         /* by bit */

/* Where a trigger's region goes in a trace (magic-trace's "Snapshot
 * symbol hits" process, thread "hits"), as "hit SYMBOL" (mt-fxt(1)). */
#define MT_HITS_PID 0x7ffffff0u
#define MT_HITS_TID 0x7ffffff1u

#endif
