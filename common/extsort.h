/*
 * struct mt_extsort: an external sort of fixed-size records, the one
 * implementation of it. Records are added one at a time and copied into a
 * run of at most `run` records; a full run is sorted (qsort(3) with the
 * caller's comparison) and spilled to a private temporary file (mkstemp(3)
 * in $TMPDIR, or /tmp, unlinked at once: nothing is left behind, even on a
 * crash). mt_extsort_sort() then merges the runs `fanin` at a time until
 * at most `fanin` are left, and mt_extsort_next() hands the records back
 * in order, merging those last runs as it goes. When every record fits in
 * one run, no file is made and the run is handed back from memory.
 *
 * The order is the comparison's: records that compare equal come back in
 * an unspecified order, so a caller that needs a stable order puts a
 * sequence number in its records (as the tools do).
 *
 * Memory is bounded by the options: `run` records while adding, and while
 * merging `fanin` buffers of MT_EXTSORT_BUF bytes (at least one record
 * each) plus one for the output of a merge pass; it does not grow with the
 * number of records. The file does: once, for every record.
 *
 * Ownership: the sorter owns its buffers, its file and the record
 * mt_extsort_next() points to (valid until the next call or
 * mt_extsort_release()). It never prints or exits; errors are negative
 * MT_E* codes (err.h), after which every call returns the same error.
 */
#ifndef MT_EXTSORT_H
#define MT_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

#define MT_EXTSORT_BUF (1u << 13) /* bytes buffered per run while merging */

typedef int (*mt_extsort_cmp)(const void *a, const void *b);

struct mt_extsort_run;
struct mt_extsort_cursor;

struct mt_extsort {
	uint64_t count; /* records added */

	/* private */
	size_t size, run;
	unsigned fanin;
	mt_extsort_cmp cmp;
	int err, sorted;
	unsigned char *buf; /* the run being filled (then: handed back) */
	size_t n, pos;
	int fd;             /* the runs, -1 until the first spill */
	uint64_t end;       /* records in the file */
	struct mt_extsort_run *runs;
	size_t nruns, runs_cap;
	struct mt_extsort_cursor *cur; /* fanin of them, while merging */
	unsigned char *cbuf;           /* their buffers */
	size_t cbuf_recs;              /* records per buffer */
	size_t last;                   /* the cursor handed back last */
};

/*
 * An empty sorter of records of size bytes, ordered by cmp, sorting runs
 * of run records at most and merging fanin runs at a time. Returns 0, or
 * MT_EINVAL when size or run is 0 or fanin is under 2 (the sorter then
 * fails every call). Allocates nothing until the first record.
 */
int mt_extsort_init(struct mt_extsort *s, size_t size, mt_extsort_cmp cmp,
		    size_t run, unsigned fanin);

/*
 * Add a copy of the size bytes at rec. Returns 0, or MT_ENOMEM, MT_EIO
 * (errno says why: making, writing the temporary file), or MT_EINVAL
 * after mt_extsort_sort().
 */
int mt_extsort_add(struct mt_extsort *s, const void *rec);

/*
 * No more records: sort the last run and merge runs until at most fanin
 * are left. Returns 0, or MT_ENOMEM, MT_EIO (errno says why).
 */
int mt_extsort_sort(struct mt_extsort *s);

/*
 * The next record in order, in *rec: returns 1, 0 past the last, or
 * MT_ENOMEM, MT_EIO (errno says why; a file shorter than expected reads
 * as EIO), MT_EINVAL before mt_extsort_sort().
 */
int mt_extsort_next(struct mt_extsort *s, const void **rec);

/* Free the buffers and close (so delete) the file; s can be initialised
 * again. */
void mt_extsort_release(struct mt_extsort *s);

#endif
