#include <stdio.h>

#include "err.h"
#include "banned.h"

static const char *const msgs[] = {
	[0] = "success",
	[-MT_ENOMEM] = "out of memory",
	[-MT_EIO] = "I/O error",
	[-MT_ETRUNCATED] = "truncated stream: input ended before the END record",
	[-MT_EMAGIC] = "not an mt stream (bad magic)",
	[-MT_EVERSION] = "unsupported stream version",
	[-MT_ECORRUPT] = "corrupt record",
	[-MT_EUNDEFSTR] = "string id used before its definition",
	[-MT_ECRITICAL] = "unknown critical record type",
	[-MT_ECOUNT] = "END record counts do not match the stream",
	[-MT_ETRAILING] = "data after the END record",
	[-MT_ESYNTAX] = "syntax error",
	[-MT_ERANGE] = "value out of range",
	[-MT_ETOOBIG] = "record too large",
	[-MT_EINVAL] = "invalid argument",
	[-MT_EPIPE] = "broken pipe",
	[-MT_ENOENT] = "not found",
	[-MT_EMISMATCH] = "file of another build",
	[-MT_ENOTREG] = "not a regular file",
	[-MT_EFBIG] = "file too large",
};

const char *mt_strerror(int err)
{
	static char unknown[32];

	if (err <= 0 && err >= MT_ERR_MIN && msgs[-err])
		return msgs[-err];
	snprintf(unknown, sizeof(unknown), "unknown error %d", err);
	return unknown;
}
