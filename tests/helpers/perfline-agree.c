/*
 * perfline-agree FILE...: parse every line of the files with the perf
 * script line parser three times, with its fast paths (mt_perf_parse_line),
 * with them and the hint of the last branch's target
 * (mt_perf_parse_line_hinted, as mt-script-parse does) and with the
 * general parser alone (mt_perf_parse_line_general), and report each line
 * where they disagree in result, reason or any field (the hinted flags
 * aside, which must be true: a hinted symbol and DSO equal to the hint's).
 * Prints "N lines, N agree, N sources and N targets hinted"; exits 1 on
 * any disagreement or unreadable file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfline.h"
#include "banned.h"

int main(int argc, char **argv)
{
	unsigned long lines = 0, agree = 0, nfrom = 0, nto = 0;
	char *buf = NULL, hbuf[2][8192];
	size_t cap = 0;
	struct mt_perf_hint hint = { { NULL, 0 }, { NULL, 0 } };
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		unsigned long no = 0;
		ssize_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		while ((n = getline(&buf, &cap, f)) >= 0) {
			struct mt_perf_line a, b, h;
			const char *wa = NULL, *wb = NULL, *wh = NULL;
			size_t len = (size_t)n;
			int ea, eb, eh, hinted_ok = 1;

			no++;
			if (len && buf[len - 1] == '\n')
				len--;
			ea = mt_perf_parse_line(buf, len, &a, &wa);
			eb = mt_perf_parse_line_general(buf, len, &b, &wb);
			eh = mt_perf_parse_line_hinted(buf, len, &h, &wh, &hint);
			if (!eh) {
				if (h.from_hinted)
					hinted_ok &= h.from.sym.len == hint.sym.len &&
						     !memcmp(h.from.sym.p, hint.sym.p, hint.sym.len) &&
						     h.from.dso.len == hint.dso.len &&
						     !memcmp(h.from.dso.p, hint.dso.p, hint.dso.len);
				if (h.to_hinted)
					hinted_ok &= h.to.sym.len == h.from.sym.len &&
						     !memcmp(h.to.sym.p, h.from.sym.p, h.from.sym.len) &&
						     h.to.dso.len == h.from.dso.len &&
						     !memcmp(h.to.dso.p, h.from.dso.p, h.from.dso.len);
				nfrom += h.from_hinted;
				nto += h.to_hinted;
				h.from_hinted = h.to_hinted = 0;
			}
			/* the next line's hint: this branch's target, copied
			 * (as mt-script-parse keeps its interned copy) */
			if (!eh && h.kind == MT_PL_BRANCH) {
				hint.sym.len = 0;
				if (h.to.sym.len && h.to.dso.len &&
				    h.to.sym.len <= sizeof(hbuf[0]) &&
				    h.to.dso.len <= sizeof(hbuf[1]) &&
				    !memchr(h.to.dso.p, '(', h.to.dso.len)) {
					memcpy(hbuf[0], h.to.sym.p, h.to.sym.len);
					memcpy(hbuf[1], h.to.dso.p, h.to.dso.len);
					hint.sym.p = hbuf[0];
					hint.sym.len = h.to.sym.len;
					hint.dso.p = hbuf[1];
					hint.dso.len = h.to.dso.len;
				}
			}
			lines++;
			if (ea == eb && (ea ? !strcmp(wa, wb) : !memcmp(&a, &b, sizeof(a))) &&
			    eh == ea && (eh ? !strcmp(wh, wa) : !memcmp(&h, &a, sizeof(a))) &&
			    hinted_ok) {
				agree++;
			} else if (bad++ < 20) {
				fprintf(stderr, "%s:%lu: fast %d (%s), general %d (%s), "
					"hinted %d (%s%s): %.*s\n",
					argv[i], no, ea, ea ? wa : "ok", eb, eb ? wb : "ok",
					eh, eh ? wh : "ok", hinted_ok ? "" : ", wrong hint",
					(int)len, buf);
			}
		}
		fclose(f);
	}
	free(buf);
	printf("%lu lines, %lu agree, %lu sources and %lu targets hinted\n",
	       lines, agree, nfrom, nto);
	return lines == agree ? 0 : 1;
}
