/*
 * perfline-agree FILE...: parse every line of the files with the perf
 * script line parser twice, with its fast paths (mt_perf_parse_line) and
 * with the general parser alone (mt_perf_parse_line_general), and report
 * each line where the two disagree in result, reason or any field.
 * Prints "N lines, N agree"; exits 1 on any disagreement or unreadable
 * file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfline.h"
#include "banned.h"

int main(int argc, char **argv)
{
	unsigned long lines = 0, agree = 0;
	char *buf = NULL;
	size_t cap = 0;
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
			struct mt_perf_line a, b;
			const char *wa = NULL, *wb = NULL;
			size_t len = (size_t)n;
			int ea, eb;

			no++;
			if (len && buf[len - 1] == '\n')
				len--;
			ea = mt_perf_parse_line(buf, len, &a, &wa);
			eb = mt_perf_parse_line_general(buf, len, &b, &wb);
			lines++;
			if (ea == eb && (ea ? !strcmp(wa, wb) : !memcmp(&a, &b, sizeof(a)))) {
				agree++;
			} else if (bad++ < 20) {
				fprintf(stderr, "%s:%lu: fast %d (%s), general %d (%s): %.*s\n",
					argv[i], no, ea, ea ? wa : "ok", eb, eb ? wb : "ok",
					(int)len, buf);
			}
		}
		fclose(f);
	}
	free(buf);
	printf("%lu lines, %lu agree\n", lines, agree);
	return lines == agree ? 0 : 1;
}
