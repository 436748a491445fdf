/*
 * Unit tests for mt_perf_branch_flags (common/perfline.h): every name perf
 * prints for a combination of flag bits (docs/perf.md 2.3) parses to the
 * kind and flags that the bits themselves map to, as a dlfilter gets them
 * and as perf's raw letters spell them; and mt_perf_parse_synth gives the
 * values of perf's synthesized-event texts.
 */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "perfline.h"
#include "stream.h"
#include "unit.h"
#include "banned.h"

static uint32_t bits_of(const char *letters)
{
	uint32_t bits = 0;

	for (; *letters; letters++)
		bits |= 1u << (strchr(MT_PERF_FLAG_CHARS, *letters) - MT_PERF_FLAG_CHARS);
	return bits;
}

/* the kind and flags of a branch line whose flags column is col */
static void parse_col(const char *col, uint8_t *kind, uint16_t *flags)
{
	char line[256];
	struct mt_perf_line l;
	const char *why = NULL;

	snprintf(line, sizeof(line),
		 "  x  7/7  1.000000001:  1  branches:u:  %-21s  401000 f+0x0 (/bin/x) =>  401010 g+0x0 (/bin/x)",
		 col);
	*kind = 0xff;
	*flags = 0xffff;
	if (mt_perf_parse_line(line, strlen(line), &l, &why) || l.kind != MT_PL_BRANCH) {
		fprintf(stderr, "not a branch: %s (%s)\n", line, why ? why : "");
		return;
	}
	*kind = l.br_kind;
	*flags = l.br_flags;
}

static void test_names(void)
{
	static const struct {
		const char *name, *letters;
	} t[] = {
		{ "call", "bc" }, { "return", "br" }, { "jcc", "bo" },
		{ "jmp", "b" }, { "int", "bci" }, { "iret", "bri" },
		{ "syscall", "bcs" }, { "sysret", "brs" }, { "async", "by" },
		{ "hw int", "bcyi" }, { "tx abrt", "bA" }, { "tr strt", "bB" },
		{ "tr end", "bE" }, { "vmentry", "bcg" }, { "vmexit", "bch" },
		{ "tr strt call", "bcB" }, { "tr end  syscall", "bcsE" },
		{ "tr end  async", "byE" }, { "tr strt tr end", "bBE" },
		{ "tr strt jmp", "bB" }, { "tr end  jmp", "bE" },
		{ "call   (x)", "bcx" }, { "jcc   (xDt)", "boxDt" },
		{ "return (D)", "brD" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t k1, k2 = 0xee;
		uint16_t f1, f2 = 0;

		parse_col(t[i].name, &k1, &f1);
		mt_perf_branch_flags(bits_of(t[i].letters), &k2, &f2);
		if (k1 != k2 || f1 != f2)
			fprintf(stderr, "'%s' (%s): text kind %u flags %#x, bits kind %u flags %#x\n",
				t[i].name, t[i].letters, k1, f1, k2, f2);
		CHECK_EQ(k1, k2);
		CHECK_EQ(f1, f2);
		/* the raw letters, as perf prints a combination it has no
		 * name for (never "bc", "b": hex, and named) */
		if (strspn(t[i].letters, "0123456789abcdef") == strlen(t[i].letters))
			continue;
		parse_col(t[i].letters, &k1, &f1);
		CHECK_EQ(k1, k2);
		CHECK_EQ(f1, f2);
	}
}

static void test_synth(void)
{
	struct mt_perf_line l;
	const char cbr[] = "cbr: 45 freq: 4500 MHz (118%)";

	CHECK_EQ(mt_perf_parse_synth("cbr", 3, cbr, sizeof(cbr) - 1, &l), 0);
	CHECK_EQ(l.mark_kind, MT_MARK_CBR);
	CHECK_EQ(l.mark_value, 4500);
	CHECK_EQ(l.mark_text.len, sizeof(cbr) - 1);
	CHECK_EQ(mt_perf_parse_synth("psb", 3, "psb offs: 0x4be8", 16, &l), 0);
	CHECK_EQ(l.mark_kind, MT_MARK_PSB);
	CHECK_EQ(l.mark_value, 0x4be8);
	CHECK_EQ(mt_perf_parse_synth("ptwrite", 7, "IP: 1 payload: 0x2a", 19, &l), 0);
	CHECK_EQ(l.mark_kind, MT_MARK_PTWRITE);
	CHECK_EQ(l.mark_value, 0x2a);
	CHECK_EQ(mt_perf_parse_synth("pwrx", 4, "", 0, &l), 0);
	CHECK_EQ(l.mark_kind, MT_MARK_POWER);
	CHECK_EQ(l.mark_text.len, 0);
	CHECK_EQ(mt_perf_parse_synth("branches", 8, "", 0, &l), MT_ESYNTAX);
}

static void test_event_name(void)
{
	CHECK_EQ(mt_perf_event_name_len("branches:uH", 11), 8);
	CHECK_EQ(mt_perf_event_name_len("branches", 8), 8);
	CHECK_EQ(mt_perf_event_name_len("cache-misses/period=50/u", 24), 12);
	CHECK_EQ(mt_perf_event_name_len("probe_x:f:u", 11), 9);
	CHECK_EQ(mt_perf_event_name_len("probe_x:f", 9), 9);
	CHECK_EQ(mt_perf_event_name_len("psb", 3), 3);
}

int main(void)
{
	RUN(test_names);
	RUN(test_synth);
	RUN(test_event_name);
	return unit_done();
}
