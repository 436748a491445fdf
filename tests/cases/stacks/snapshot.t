# A snapshot boundary resets every stack: what was open ends at the thread's last event of the first snapshot (OPEN); in the next snapshot, the return from a reveals a and main again, started at that snapshot's first event.
--- stream
BRANCH time=1.000000100 pid=1 tid=1 kind=call from=0x401010 "main"+0x10 "/bin/a" to=0x402000 "a"+0x0 "/bin/a"
MARK time=1.000000150 kind=snapshot value=1 name="snapshot"
BRANCH time=1.000000200 pid=1 tid=1 kind=return from=0x402010 "a"+0x10 "/bin/a" to=0x401015 "main"+0x15 "/bin/a"
--- expect
SPAN start=1.000000100 end=1.000000101 tid=1 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=1.000000100 end=1.000000101 tid=1 depth=1 kind=function flags=OPEN address=0x402000 name="a"
SPAN start=1.000000200 end=1.000000200 tid=1 depth=-1 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=1.000000200 end=1.000000200 tid=1 depth=0 kind=function flags=INFERRED address=0x402000 name="a"
