/*
 * libFuzzer harness for mt-script-parse's line reader
 * (mt-script-parse/lines.h): any bytes, read from a file by sp_run() with
 * one parsing thread and with three, give in order exactly the lines and
 * refusals a plain split of the same bytes gives (a newline or CR LF ends
 * a line, a CR as the last byte too; any other CR refuses its line, at its
 * byte offset, up to the newline), each line parsed as the general parser
 * parses it (common/perfline.h; the hint flags aside), lines starting with
 * '#' left unparsed.
 *
 * fuzz-link: -Imt-script-parse -pthread mt-script-parse/lines.c common/die.c common/output.c common/xalloc.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "lines.h"
#include "perfline.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct want {
	enum sp_what what;
	size_t start, len; /* the line's (or the refusal's shown) bytes */
	uint64_t off;      /* a refusal's */
};

static struct want *want;
static size_t nwant, next;
static const char *input;

/* The reference split of data[0..size). */
static void split_plainly(const char *d, size_t size)
{
	size_t p = 0;

	nwant = 0;
	while (p < size) {
		size_t q = p;
		struct want *w = &want[nwant++];

		while (q < size && d[q] != '\n' && d[q] != '\r')
			q++;
		w->what = SP_LINE;
		w->start = p;
		w->len = q - p;
		w->off = 0;
		if (q == size || (d[q] == '\r' && q + 1 == size))
			break; /* the last line, without a newline */
		if (d[q] == '\n') {
			p = q + 1;
		} else if (d[q + 1] == '\n') {
			p = q + 2;
		} else {
			const char *nl = memchr(d + p, '\n', size - p);

			w->what = SP_BARE_CR;
			w->off = q;
			w->len = (nl ? (size_t)(nl - d) : size) - p;
			p = nl ? (size_t)(nl - d) + 1 : size;
		}
	}
}

static void check(const struct sp_line *s)
{
	const struct want *w;

	if (next == nwant)
		abort();
	w = &want[next++];
	if (s->what != w->what || s->len != w->len ||
	    memcmp(s->p, input + w->start, w->len))
		abort();
	if (s->what != SP_LINE) {
		if (s->off != w->off)
			abort();
		return;
	}
	if (s->len && s->p[0] == '#') {
		if (s->parsed)
			abort();
		return;
	}
	if (!s->parsed)
		abort();
	{
		struct mt_perf_line g, h = s->l;
		const char *why = NULL;
		int ret = mt_perf_parse_line_general(s->p, s->len, &g, &why);

		if (ret != s->ret || (ret && strcmp(why, s->why)))
			abort();
		if (!ret) {
			h.from_hinted = h.to_hinted = 0;
			if (memcmp(&g, &h, sizeof(g)))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nhead = size < 8 ? size : 8;
	int threads, fd;

	if (size > SP_MAX_LINE / 2)
		return 0;
	input = (const char *)data;
	want = malloc((size + 1) * sizeof(*want));
	if (!want)
		return 0;
	split_plainly(input, size);
	for (threads = 1; threads <= 3; threads += 2) {
		fd = memfd_create("fuzz-lines", 0);
		if (fd < 0)
			abort();
		if (write(fd, data + nhead, size - nhead) != (ssize_t)(size - nhead) ||
		    lseek(fd, 0, SEEK_SET) != 0)
			abort();
		next = 0;
		sp_run(fd, "fuzz", input, nhead, threads, check);
		if (next != nwant)
			abort();
		close(fd);
	}
	free(want);
	return 0;
}
