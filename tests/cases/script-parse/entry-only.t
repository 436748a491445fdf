# mt-record's "# mt: entry-only SYMBOL" lines (functions probed without a return probe, as in Go programs) become timeless, threadless generic MARKs named entry-only with the symbol, the rest of the line (blanks kept), as text; then uprobe-rec's entry probe lines of build/tests/progs/outer-go (path shortened).
--- input
# mt: entry-only work
# mt: entry-only  Lambda$1 of Foo
        outer-go 15637/15637 [001] 11934.037640289: probe_outer:outer: (556525c323f0)     556525c323f0 outer+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037644919:  probe_outer:work: (556525c32269)     556525c32269 work+0x0 (/opt/demo/outer-go)
--- expect
MARK time=- pid=- tid=- cpu=- kind=generic flags=- value=0 ip=0x0 name="entry-only" text="work"
MARK time=- pid=- tid=- cpu=- kind=generic flags=- value=0 ip=0x0 name="entry-only" text="Lambda$1 of Foo"
THREAD pid=15637 tid=15637 comm="outer-go" time=11934.037640289
BRANCH time=11934.037640289 pid=15637 tid=15637 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x556525c323f0 "outer"+0x0 "/opt/demo/outer-go"
BRANCH time=11934.037644919 pid=15637 tid=15637 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x556525c32269 "work"+0x0 "/opt/demo/outer-go"
