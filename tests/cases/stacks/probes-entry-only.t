# Entry probes only (build/tests/progs/outer-go, a Go program to uprobe-rec, which probes no returns; path shortened), with the '# mt: entry-only' lines mt-record writes: each call is an instant (start = end) at the depth a call takes, and opens no frame, so calls do not nest.
--- input
# mt: entry-only outer
# mt: entry-only work
        outer-go 15637/15637 [001] 11934.037640289: probe_outer:outer: (556525c323f0)     556525c323f0 outer+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037644919:  probe_outer:work: (556525c32269)     556525c32269 work+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037681438:  probe_outer:work: (556525c32269)     556525c32269 work+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037691367: probe_outer:outer: (556525c323f0)     556525c323f0 outer+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037692700:  probe_outer:work: (556525c32269)     556525c32269 work+0x0 (/opt/demo/outer-go)
        outer-go 15637/15637 [001] 11934.037700415:  probe_outer:work: (556525c32269)     556525c32269 work+0x0 (/opt/demo/outer-go)
--- expect
SPAN start=11934.037644919 end=11934.037644919 tid=15637 depth=1 kind=function flags=- address=0x556525c32269 name="work"
SPAN start=11934.037681438 end=11934.037681438 tid=15637 depth=1 kind=function flags=- address=0x556525c32269 name="work"
SPAN start=11934.037691367 end=11934.037691367 tid=15637 depth=1 kind=function flags=- address=0x556525c323f0 name="outer"
SPAN start=11934.037692700 end=11934.037692700 tid=15637 depth=1 kind=function flags=- address=0x556525c32269 name="work"
SPAN start=11934.037700415 end=11934.037700415 tid=15637 depth=1 kind=function flags=- address=0x556525c32269 name="work"
SPAN start=11934.037640289 end=11934.037640289 tid=15637 depth=1 kind=function flags=- address=0x556525c323f0 name="outer"
