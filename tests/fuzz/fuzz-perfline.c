/*
 * libFuzzer harness for the perf script line parser: any bytes, split into
 * lines, must parse or fail with MT_ESYNTAX and a reason, never crash, and
 * every slice of the result must lie inside its line; the parser with its
 * fast paths and the general one alone must agree on every field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "perfline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const struct mt_slice *s, const char *line, size_t len)
{
	if (s->len && (s->p < line || s->p + s->len > line + len))
		abort();
}

static void loc_inside(const struct mt_perf_loc *l, const char *line,
		       size_t len)
{
	inside(&l->sym, line, len);
	inside(&l->dso, line, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		/* a copy of exactly len bytes, so ASan sees any overread */
		char *line = malloc(len ? len : 1);
		struct mt_perf_line l;
		const char *why = NULL;
		int err;

		if (!line)
			return 0;
		memcpy(line, p, len);
		err = mt_perf_parse_line(line, len, &l, &why);
		{
			struct mt_perf_line g;
			const char *gwhy = NULL;
			int gerr = mt_perf_parse_line_general(line, len, &g, &gwhy);

			/* both clear the whole struct first: padding compares */
			if (gerr != err || (err && strcmp(why, gwhy)) ||
			    (!err && memcmp(&g, &l, sizeof(l))))
				abort();
		}
		if (err) {
			if (err != MT_ESYNTAX || !why || !*why)
				abort();
		} else {
			inside(&l.comm, line, len);
			inside(&l.tod, line, len);
			inside(&l.event, line, len);
			inside(&l.err_msg, line, len);
			inside(&l.mark_text, line, len);
			inside(&l.probe_func, line, len);
			loc_inside(&l.from, line, len);
			loc_inside(&l.to, line, len);
			loc_inside(&l.loc, line, len);
			if (l.kind < MT_PL_BLANK || l.kind > MT_PL_SKIP)
				abort();
		}
		free(line);
		p += len + 1;
	}
	return 0;
}
