/*
 * Error codes of the mt library (common/).
 *
 * Every function of the library that can fail returns 0 or a positive count on
 * success and a negative MT_E* value on failure. The library never prints and
 * never exits: the tools turn these codes into messages (see die.h), adding the
 * file, line or byte offset that the failing call reported.
 */
#ifndef MT_ERR_H
#define MT_ERR_H

enum mt_err {
	MT_OK = 0,
	MT_ENOMEM = -1,       /* out of memory */
	MT_EIO = -2,          /* read or write failed; errno holds the reason */
	MT_ETRUNCATED = -3,   /* the input ended inside the stream (no END record) */
	MT_EMAGIC = -4,       /* not an mt stream: bad magic */
	MT_EVERSION = -5,     /* stream major version not supported */
	MT_ECORRUPT = -6,     /* a record is malformed (short body, bad field) */
	MT_EUNDEFSTR = -7,    /* a record uses a string id never defined */
	MT_ECRITICAL = -8,    /* a critical record type this reader does not know */
	MT_ECOUNT = -9,       /* END's counts disagree with what was read */
	MT_ETRAILING = -10,   /* bytes after the END record */
	MT_ESYNTAX = -11,     /* text that does not parse (duration, perf line) */
	MT_ERANGE = -12,      /* a value is out of range */
	MT_ETOOBIG = -13,     /* a record would exceed the format's size limit */
	MT_EINVAL = -14,      /* invalid argument (a caller bug) */
	MT_EPIPE = -15,       /* writing to a pipe whose reader went away */
	MT_ENOENT = -16,      /* not found (a debug file, a process, a symbol) */
	MT_EMISMATCH = -17,   /* a file of another build (build-id or CRC) */
	MT_ENOTREG = -18,     /* not a regular file (a FIFO, a device, ...) */
	MT_EFBIG = -19,       /* a file larger than mt reads (MT_REGULAR_MAX) */
	MT_ERR_MIN = -19
};

/* A static, never-NULL description of err ("unknown error -42" style texts
 * for codes outside the table use a static buffer: not thread-safe). */
const char *mt_strerror(int err);

#endif
