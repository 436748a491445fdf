/*
 * common/mtline: mt-record's "# mt:" lines as MARKs.
 */
#include <string.h>

#include "mtline.h"
#include "unit.h"
#include "banned.h"

static int parse(const char *s, struct mt_mt_line *ml)
{
	poison(ml);
	return mt_parse_mt_line(s, strlen(s), ml);
}

static int text_is(const struct mt_mt_line *ml, const char *s)
{
	return ml->text.len == strlen(s) && !memcmp(ml->text.p, s, ml->text.len);
}

static void test_trigger(void)
{
	struct mt_mt_line ml;

	CHECK_EQ(parse("# mt: trigger 12.000000034 5/6 0x1280 app::run(int) const", &ml),
		 MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_TRIGGER);
	CHECK_EQ(ml.mark.time, 12000000034ull);
	CHECK_EQ(ml.mark.pid, 5);
	CHECK_EQ(ml.mark.tid, 6);
	CHECK_EQ(ml.mark.cpu, MT_NONE32);
	CHECK_EQ(ml.mark.ip, 0x1280);
	CHECK_EQ(ml.mark.name, 0);
	CHECK_STR(ml.name, "trigger");
	CHECK(text_is(&ml, "app::run(int) const"));
	/* no symbol: no text */
	CHECK_EQ(parse("# mt: trigger 1.5 1/1 0x10", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.text.len, 0);
	CHECK_EQ(ml.mark.time, 1500000000ull);
}

static void test_others(void)
{
	struct mt_mt_line ml;

	CHECK_EQ(parse("# mt: snapshot 3 7.000000001", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_SNAPSHOT);
	CHECK_EQ(ml.mark.value, 3);
	CHECK_EQ(ml.mark.time, 7000000001ull);
	CHECK_EQ(ml.mark.pid, MT_NONE32);
	CHECK_EQ(ml.text.len, 0);
	CHECK_STR(ml.name, "snapshot");
	CHECK_EQ(parse("# mt: wallclock 380.5 1796222561979787233", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_WALLCLOCK);
	CHECK_EQ(ml.mark.value, 1796222561979787233ull);
	CHECK_EQ(ml.mark.time, 380500000000ull);
	CHECK_EQ(parse("# mt: entry-only main.outer", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_GENERIC);
	CHECK_EQ(ml.mark.time, MT_NONE64);
	CHECK_STR(ml.name, "entry-only");
	CHECK(text_is(&ml, "main.outer"));
	CHECK_EQ(parse("# mt: event page-faults", &ml), MT_MTLINE_MARK);
	CHECK_STR(ml.name, "event");
	CHECK(text_is(&ml, "page-faults"));
}

static void test_bad(void)
{
	struct mt_mt_line ml;
	static const char *const bad[] = {
		"# mt: trigger 1.0 5 0x10 f",        /* no tid */
		"# mt: trigger 1.0 5/x 0x10 f",
		"# mt: trigger 1.0 5/6 zz f",
		"# mt: trigger 1.0 5/4294967296 0x1 f",
		"# mt: trigger x 5/6 0x10 f",
		"# mt: snapshot -1 1.0",
		"# mt: snapshot +1 1.0",
		"# mt: snapshot 1",
		"# mt: wallclock 1.0",
		"# mt: entry-only",
		"# mt: event   ",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &ml) != MT_MTLINE_BAD) {
			fprintf(stderr, "not refused: %s\n", bad[i]);
			CHECK(0);
		}
	CHECK_EQ(parse("# mt: later-kind 1 2 3", &ml), MT_MTLINE_UNKNOWN);
	CHECK_EQ(parse("# mtx: trigger", &ml), MT_MTLINE_NOT);
	CHECK_EQ(parse("# mt:", &ml), MT_MTLINE_NOT);
	CHECK_EQ(parse("perf 1/1 1.0: branches", &ml), MT_MTLINE_NOT);
}

int main(void)
{
	RUN(test_trigger);
	RUN(test_others);
	RUN(test_bad);
	return unit_done();
}
