/* What a file's first bytes say it is; the contract is in kind.h. */
#include <string.h>

#include "fxtread.h"
#include "kind.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

enum mt_kind mt_kind_of(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	size_t i;

	if (!n)
		return MT_KIND_UNKNOWN;
	if (n >= MT_MAGIC_LEN && !memcmp(p, MT_MAGIC, MT_MAGIC_LEN))
		return MT_KIND_STREAM;
	if (n >= 8 && mt_get64(p) == MT_FXT_MAGIC)
		return MT_KIND_FXT;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return MT_KIND_GZIP;
	if (n >= 8 && !memcmp(p, "PERFILE2", 8))
		return MT_KIND_PERFDATA;
	if (n >= 4 && !memcmp(p, "\x7f" "ELF", 4))
		return MT_KIND_ELF;
	for (i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\n' && p[i] != '\t' &&
		     p[i] != '\r') || p[i] >= 0x7f)
			return MT_KIND_UNKNOWN;
	return MT_KIND_TEXT;
}

const char *mt_kind_phrase(enum mt_kind k)
{
	switch (k) {
	case MT_KIND_STREAM:
		return "an mt stream";
	case MT_KIND_FXT:
		return "an FXT trace";
	case MT_KIND_GZIP:
		return "gzip-compressed data";
	case MT_KIND_PERFDATA:
		return "a perf.data file";
	case MT_KIND_ELF:
		return "an ELF file";
	case MT_KIND_TEXT:
		return "text";
	case MT_KIND_UNKNOWN:
		break;
	}
	return NULL;
}
