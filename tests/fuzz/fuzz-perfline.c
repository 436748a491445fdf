/*
 * libFuzzer harness for the perf script line parser: any bytes, split into
 * lines, must parse or fail with MT_ESYNTAX and a reason, never crash;
 * every slice of the result must lie inside its line; and parsing with the
 * address cache must give exactly what parsing without it gives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "perfline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mt_perf_cache cache;

static int same_slice(const struct mt_slice *a, const struct mt_slice *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static void same_loc(const struct mt_perf_loc *a, const struct mt_perf_loc *b)
{
	if (a->ip != b->ip || a->off != b->off || !same_slice(&a->sym, &b->sym) ||
	    !same_slice(&a->dso, &b->dso))
		abort();
}

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
		if (!cache.ents && mt_perf_cache_init(&cache))
			abort();
		{
			/* the cached parse first: the entries it puts must not
			 * change the uncached result either */
			struct mt_perf_line c;
			const char *cwhy = NULL;
			int cerr = mt_perf_parse_line(line, len, &c, &cwhy, &cache);

			err = mt_perf_parse_line(line, len, &l, &why, NULL);
			if (cerr != err)
				abort();
			if (!err && l.kind == MT_PL_BRANCH) {
				if (c.br_kind != l.br_kind || c.br_flags != l.br_flags)
					abort();
				same_loc(&c.from, &l.from);
				same_loc(&c.to, &l.to);
			}
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
