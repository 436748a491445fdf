# The same stream with --keep-after-trigger: nothing is cut.
--- stream
BRANCH time=1.000000100 pid=1 tid=1 kind=call from=0x401010 "main"+0x10 "/bin/a" to=0x402000 "work"+0x0 "/bin/a"
BRANCH time=1.000000110 pid=1 tid=1 kind=return from=0x402010 "work"+0x10 "/bin/a" to=0x401015 "main"+0x15 "/bin/a"
BRANCH time=1.000000120 pid=1 tid=1 kind=call from=0x401020 "main"+0x20 "/bin/a" to=0x403000 "magic_trace_stop_indicator"+0x0 "/bin/a"
MARK time=1.000000120 pid=1 tid=1 kind=trigger name="trigger" text="magic_trace_stop_indicator"
BRANCH time=1.000000125 pid=1 tid=2 kind=call from=0x405010 "x"+0x10 "/bin/a" to=0x406000 "y"+0x0 "/bin/a"
BRANCH time=1.000000130 pid=1 tid=1 kind=return from=0x403004 "magic_trace_stop_indicator"+0x4 "/bin/a" to=0x401025 "main"+0x25 "/bin/a"
BRANCH time=1.000000135 pid=1 tid=2 kind=return from=0x406010 "y"+0x10 "/bin/a" to=0x405015 "x"+0x15 "/bin/a"
BRANCH time=1.000000140 pid=1 tid=1 kind=call from=0x401030 "main"+0x30 "/bin/a" to=0x404000 "after"+0x0 "/bin/a"
--- args
--keep-after-trigger
--- expect
SPAN start=1.000000120 end=1.000000130 tid=1 depth=1 kind=function flags=- address=0x403000 name="magic_trace_stop_indicator"
SPAN start=1.000000140 end=1.000000141 tid=1 depth=1 kind=function flags=OPEN address=0x404000 name="after"
SPAN start=1.000000100 end=1.000000141 tid=1 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=1.000000100 end=1.000000110 tid=1 depth=1 kind=function flags=- address=0x402000 name="work"
SPAN start=1.000000125 end=1.000000135 tid=2 depth=0 kind=function flags=INFERRED|OPEN address=0x405000 name="x"
SPAN start=1.000000125 end=1.000000135 tid=2 depth=1 kind=function flags=- address=0x406000 name="y"
