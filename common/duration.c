#include <string.h>

#include "duration.h"
#include "err.h"
#include "banned.h"

int mt_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *name; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "\xc2\xb5s", 1000 },
		{ "ms", 1000000 }, { "s", 1000000000 },
	};
	uint64_t whole = 0, frac = 0, fscale = 1, mul = 0, v;
	int digits = 0, zero;
	size_t i;

	if (!s)
		return MT_EINVAL;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (whole > (UINT64_MAX - d) / 10)
			return MT_ERANGE;
		whole = whole * 10 + d;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			/* beyond 1e-18 s the digits cannot matter */
			if (fscale < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				fscale *= 10;
			}
		}
	}
	if (!digits)
		return MT_ESYNTAX;
	zero = whole == 0 && frac == 0;
	if (!*s)
		return zero ? (*ns = 0, 0) : MT_ESYNTAX;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s, units[i].name))
			mul = units[i].mul;
	if (!mul)
		return MT_ESYNTAX;
	if (whole > UINT64_MAX / mul)
		return MT_ERANGE;
	v = whole * mul;
	/* frac / fscale * mul, rounded; fscale <= 1e18 and mul <= 1e9, so
	 * split to avoid overflow */
	{
		unsigned __int128 f = (unsigned __int128)frac * mul;
		uint64_t add = (uint64_t)((f + fscale / 2) / fscale);

		if (v > UINT64_MAX - add)
			return MT_ERANGE;
		v += add;
	}
	*ns = v;
	return 0;
}
