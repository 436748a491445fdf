/*
 * common/mtline: mt-record's "# mt:" lines as MARKs.
 */
#include <string.h>

#include "err.h"
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

/* A stop indicator's region: its start (or "-") and signed value before
 * the thread, as magic-trace's arguments give them. */
static void test_region(void)
{
	struct mt_mt_line ml;

	CHECK_EQ(parse("# mt: region 12.5 12.25 -7 5/6 0x1280 magic_trace_stop_indicator", &ml),
		 MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_REGION);
	CHECK_EQ(ml.mark.time, 12500000000ull);
	CHECK_EQ(ml.mark.start, 12250000000ull);
	CHECK_EQ((int64_t)ml.mark.value, -7);
	CHECK_EQ(ml.mark.pid, 5);
	CHECK_EQ(ml.mark.tid, 6);
	CHECK_EQ(ml.mark.ip, 0x1280);
	CHECK_STR(ml.name, "region");
	CHECK(text_is(&ml, "magic_trace_stop_indicator"));
	CHECK_EQ(parse("# mt: region 1.0 - 9223372036854775807 1/1 0x10 f", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.start, MT_NONE64);
	CHECK_EQ(ml.mark.value, 9223372036854775807ull);
	CHECK_EQ(parse("# mt: region 1.0 - -9223372036854775808 1/1 0x10 f", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.value, 9223372036854775808ull);
	/* every other kind's start: none */
	CHECK_EQ(parse("# mt: trigger 1.5 1/1 0x10", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.start, MT_NONE64);
}

/* A function mt-record stopped recording (--max-overhead): its calls a
 * second before the thread; formatted back, the same line. */
static void test_off(void)
{
	struct mt_mt_line ml, m2;
	struct mt_buf b = { 0 };

	CHECK_EQ(parse("# mt: off 12.000000500 3113659 5/6 0x1280 leaf", &ml), MT_MTLINE_MARK);
	CHECK_EQ(ml.mark.kind, MT_MARK_OFF);
	CHECK_EQ(ml.mark.time, 12000000500ull);
	CHECK_EQ(ml.mark.value, 3113659);
	CHECK_EQ(ml.mark.pid, 5);
	CHECK_EQ(ml.mark.tid, 6);
	CHECK_EQ(ml.mark.ip, 0x1280);
	CHECK_STR(ml.name, "off");
	CHECK(text_is(&ml, "leaf"));
	m2 = mt_mt_off(12000000500ull, 5, 6, 3113659, 0x1280, "leaf");
	CHECK_EQ(mt_format_mt_line(&b, &m2), 0);
	CHECK(b.len == 47 && !memcmp(b.p, "# mt: off 12.000000500 3113659 5/6 0x1280 leaf\n", 47));
	mt_buf_release(&b);
	CHECK_EQ(parse("# mt: off 12.5 x 5/6 0x1280 leaf", &ml), MT_MTLINE_BAD);
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
		"# mt: region 1.0 5/6 0x10 f",       /* no start, no value */
		"# mt: region 1.0 x 1 5/6 0x10 f",
		"# mt: region 1.0 - 9223372036854775808 5/6 0x10 f",
		"# mt: region 1.0 - -9223372036854775809 5/6 0x10 f",
		"# mt: region 1.0 - 1 0x10 f",
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

/* ml formatted, its line (newline dropped) read back: the same MARK. */
static void round_trip(const struct mt_mt_line *ml, const char *want)
{
	struct mt_buf b = MT_BUF_INIT;
	struct mt_mt_line back;

	CHECK_EQ(mt_format_mt_line(&b, ml), 0);
	CHECK(b.len > 0 && b.p[b.len - 1] == '\n');
	CHECK_EQ(b.len - 1, strlen(want));
	CHECK(!memcmp(b.p, want, b.len - 1));
	poison(&back);
	CHECK_EQ(mt_parse_mt_line(b.p, b.len - 1, &back), MT_MTLINE_MARK);
	CHECK(!memcmp(&back.mark, &ml->mark, sizeof(back.mark)));
	CHECK_STR(back.name, ml->name);
	CHECK(back.text.len == ml->text.len &&
	      (!ml->text.len || !memcmp(back.text.p, ml->text.p, ml->text.len)));
	mt_buf_release(&b);
}

static void test_format(void)
{
	struct mt_mt_line ml;
	struct mt_buf b = MT_BUF_INIT;

	ml = mt_mt_trigger(12000000034ull, 5, 6, 0x1280, "app::run(int) const");
	round_trip(&ml, "# mt: trigger 12.000000034 5/6 0x1280 app::run(int) const");
	ml = mt_mt_trigger(7, 1, 1, 0, "");
	round_trip(&ml, "# mt: trigger 0.000000007 1/1 0x0");
	ml = mt_mt_region(12500000000ull, 5, 6, 12250000000ull, -7, 0x1280, "stop");
	round_trip(&ml, "# mt: region 12.500000000 12.250000000 -7 5/6 0x1280 stop");
	ml = mt_mt_region(7, 1, 1, MT_NONE64, INT64_MIN, 0, "");
	round_trip(&ml, "# mt: region 0.000000007 - -9223372036854775808 1/1 0x0");
	ml = mt_mt_snapshot(3, 7000000001ull);
	round_trip(&ml, "# mt: snapshot 3 7.000000001");
	ml = mt_mt_wallclock(380500000000ull, 1796222561979787233ull);
	round_trip(&ml, "# mt: wallclock 380.500000000 1796222561979787233");
	ml = mt_mt_entry_only("main.outer", 10);
	round_trip(&ml, "# mt: entry-only main.outer");
	ml = mt_mt_event("page-faults", 11);
	round_trip(&ml, "# mt: event page-faults");
	/* a MARK no line stands for */
	ml = mt_mt_event("x", 1);
	ml.name = "other";
	CHECK_EQ(mt_format_mt_line(&b, &ml), MT_EINVAL);
	ml.mark.kind = 200;
	CHECK_EQ(mt_format_mt_line(&b, &ml), MT_EINVAL);
	CHECK_EQ(b.len, 0);
	mt_buf_release(&b);
}

int main(void)
{
	RUN(test_format);
	RUN(test_trigger);
	RUN(test_region);
	RUN(test_off);
	RUN(test_others);
	RUN(test_bad);
	return unit_done();
}
