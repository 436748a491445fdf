# mt-record's own "# mt:" lines among perf's: wallclock anchor, snapshot boundary, trigger hit (symbol with spaces kept whole); an unknown kind is counted and skipped.
--- input
# mt: wallclock 100.000000001 1795985308549304000
# mt: snapshot 0 100.000000002
# mt: trigger 100.500000000 12/13 0x401136 magic_trace_stop_indicator
# mt: trigger 101.000000000 12/14 0x7f0000001040 Lambda$1 of Foo
# mt: from-the-future 1 2 3
--- expect
MARK time=100.000000001 pid=- tid=- cpu=- kind=wallclock flags=- value=1795985308549304000 ip=0x0 name="wallclock" text=-
MARK time=100.000000002 pid=- tid=- cpu=- kind=snapshot flags=- value=0 ip=0x0 name="snapshot" text=-
MARK time=100.500000000 pid=12 tid=13 cpu=- kind=trigger flags=- value=0 ip=0x401136 name="trigger" text="magic_trace_stop_indicator"
MARK time=101.000000000 pid=12 tid=14 cpu=- kind=trigger flags=- value=0 ip=0x7f0000001040 name="trigger" text="Lambda$1 of Foo"
--- stderr
1 unknown '# mt:' kind lines
