# An entry-only line without a symbol is malformed: an error naming the line.
--- input
        outer-go 15637/15637 [001] 11934.037640289: probe_outer:outer: (556525c323f0)     556525c323f0 outer+0x0 (/opt/demo/outer-go)
# mt: entry-only
--- exit
1
--- stderr
input:2: malformed '# mt:' line
