/*
 * The steps of a qsort comparator over integer keys, without the overflow
 * of a - b. Header-only (the patch runtime uses it too).
 *
 * MT_CMP(a, b): -1, 0 or 1 as a is below, equal to or above b, two
 * integers of one type: the last key's step.
 *
 * MT_CMP_BY(a, b): a key before the last: returns from the comparator
 * (-1 or 1) when a and b differ, else goes on to the next key. One test
 * where they are equal, as keys before the last mostly are: an || chain
 * of MT_CMPs costs sorts twice the comparator's instructions.
 */
#ifndef MT_CMP_H
#define MT_CMP_H

#define MT_CMP(a, b) (((a) > (b)) - ((a) < (b)))

#define MT_CMP_BY(a, b)                                                       \
	do {                                                                  \
		if ((a) != (b))                                               \
			return (a) < (b) ? -1 : 1;                            \
	} while (0)

#endif
