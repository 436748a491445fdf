#!/bin/sh
# mt-stacks on uprobes of some functions only: a program built here whose
# outer() calls helper(), not probed, which calls work() twice, recorded by
# uprobe-rec probing '^(work|outer)$'. work's returns land in helper, which
# the probes do not see: they must end work and nothing else. So exactly
# 200 outer spans, each holding its 2 work spans one level deeper, and no
# helper, main or inferred span.
. "$MT_TOP/tests/lib.sh"
[ -r /sys/bus/event_source/devices/uprobe/type ] ||
	{ echo "skip: no uprobe PMU in this kernel" >&2; exit 0; }
[ "$(id -u)" -eq 0 ] || { echo "skip: uprobes need root (CAP_SYS_ADMIN)" >&2; exit 0; }

cat >prog.c <<'C'
static volatile unsigned long sink;

__attribute__((noinline)) void work(int i)
{
	sink += (unsigned long)i * 7;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void helper(int i)
{
	work(i);
	work(i + 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void outer(int i)
{
	helper(i);
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	int i;

	for (i = 0; i < 200; i++)
		outer(i);
	return 0;
}
C
gcc -O1 -fno-inline -o prog prog.c || fail "gcc"

uprobe-rec --functions '^(work|outer)$' -- ./prog >lines 2>err ||
	{ cat err >&2; fail "uprobe-rec failed"; }
contains err "recording 2 functions"
[ "$(wc -l <lines)" -eq 1200 ] || fail "$(wc -l <lines) lines, expected 1200"
grep -q ' probe_prog:work__return: .* helper+0x' lines ||
	fail "work's returns do not land in helper"

mt-script-parse lines | mt-stacks >spans.mt 2>stacks.err ||
	{ cat stacks.err >&2; fail "mt-script-parse | mt-stacks failed"; }
[ ! -s stacks.err ] || { cat stacks.err >&2; fail "mt-stacks complained"; }
spans-check spans.mt >check || { cat check >&2; fail "spans do not nest"; }
mt-dump spans.mt | grep ' SPAN ' >dump
[ "$(grep -c 'name="outer"' dump)" -eq 200 ] || fail "not 200 outer spans"
[ "$(grep -c 'name="work"' dump)" -eq 400 ] || fail "not 400 work spans"
[ "$(wc -l <dump)" -eq 600 ] || { grep -v -e '"outer"' -e '"work"' dump | head -3 >&2; fail "spans of other functions"; }
! grep -q -e INFERRED -e OPEN dump || { grep -e INFERRED -e OPEN dump | head -3 >&2; fail "inferred or open spans"; }
# each work span in an outer span one level out; each outer holds 2
nested dump outer work 2 || fail "work spans do not nest in outer spans"
