/*
 * libFuzzer harness for the perf script line parser: any bytes, split into
 * lines, must parse or fail with MT_ESYNTAX and a reason, never crash, and
 * every slice of the result must lie inside its line; the parser with its
 * fast paths and the general one alone must agree on every field, and so
 * must the parse with the hint of the last branch's target (its hinted
 * symbols and DSOs equal to the hint's). Each line is also read as
 * mt-record's "# mt:" line (common/mtline.h): a MARK's text lies inside
 * it, and the line mt_format_mt_line() writes of that MARK reads back as
 * the same MARK.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mtline.h"
#include "perfline.h"
#include "banned.h"

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

static int same_slice(const struct mt_slice *a, const struct mt_slice *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

/* line as a "# mt:" line: see the top */
static void mt_line(const char *line, size_t len)
{
	struct mt_mt_line ml, back;
	struct mt_buf b = MT_BUF_INIT;
	int r = mt_parse_mt_line(line, len, &ml);

	if (r == MT_MTLINE_NOT || r == MT_MTLINE_UNKNOWN || r == MT_MTLINE_BAD)
		return;
	if (r != MT_MTLINE_MARK || !ml.name)
		abort();
	inside(&ml.text, line, len);
	if (mt_format_mt_line(&b, &ml))
		abort(); /* every MARK a line gives, a line writes */
	if (!b.len || b.p[b.len - 1] != '\n' ||
	    mt_parse_mt_line(b.p, b.len - 1, &back) != MT_MTLINE_MARK ||
	    memcmp(&back.mark, &ml.mark, sizeof(ml.mark)) || strcmp(back.name, ml.name) ||
	    !same_slice(&back.text, &ml.text))
		abort();
	mt_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct mt_perf_hint hint = { { NULL, 0 }, { NULL, 0 } };
	char *hcopy = NULL;

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
		mt_line(line, len);
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
		{
			struct mt_perf_line h;
			const char *hwhy = NULL;
			int herr = mt_perf_parse_line_hinted(line, len, &h, &hwhy, &hint);

			if (herr != err || (err && strcmp(why, hwhy)))
				abort();
			if (!herr) {
				if (h.from_hinted && (!same_slice(&h.from.sym, &hint.sym) ||
						      !same_slice(&h.from.dso, &hint.dso)))
					abort();
				if (h.to_hinted && (!same_slice(&h.to.sym, &h.from.sym) ||
						    !same_slice(&h.to.dso, &h.from.dso)))
					abort();
				h.from_hinted = h.to_hinted = 0;
				if (memcmp(&h, &l, sizeof(l)))
					abort();
			}
			/* the next line's hint: this branch's target, copied */
			if (!herr && h.kind == MT_PL_BRANCH) {
				char *c = h.to.sym.len && h.to.dso.len &&
					  !memchr(h.to.dso.p, '(', h.to.dso.len) ?
					  malloc(h.to.sym.len + h.to.dso.len) : NULL;

				free(hcopy);
				hcopy = c;
				hint.sym.len = hint.dso.len = 0;
				if (c) {
					memcpy(c, h.to.sym.p, h.to.sym.len);
					memcpy(c + h.to.sym.len, h.to.dso.p, h.to.dso.len);
					hint.sym.p = c;
					hint.sym.len = h.to.sym.len;
					hint.dso.p = c + h.to.sym.len;
					hint.dso.len = h.to.dso.len;
				}
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
	free(hcopy);
	return 0;
}
