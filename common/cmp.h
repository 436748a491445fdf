/*
 * MT_CMP(a, b): -1, 0 or 1 as a is below, equal to or above b, two
 * integers of one type: a step of a qsort comparator, without the
 * overflow of a - b. Header-only (the patch runtime uses it too).
 */
#ifndef MT_CMP_H
#define MT_CMP_H

#define MT_CMP(a, b) (((a) > (b)) - ((a) < (b)))

#endif
