# Sampled call stacks become a timeline, as magic-trace's sampling mode does: frames common to consecutive samples (compared by function from the outermost) continue, the others end and start at the sample's time; the last sample's frames stay open.
--- input
 1234/1234  10.000000100:     100000 cpu-clock:uH: 
	401050 leaf1+0x10 (/bin/app)
	402020 mid+0x20 (/bin/app)
	400520 main+0x20 (/bin/app)

 1234/1234  10.000000200:     100000 cpu-clock:uH: 
	403010 leaf2+0x10 (/bin/app)
	402030 mid+0x30 (/bin/app)
	400520 main+0x20 (/bin/app)

 1234/1234  10.000000300:     100000 cpu-clock:uH: 
	403018 leaf2+0x18 (/bin/app)
	402030 mid+0x30 (/bin/app)
	400520 main+0x20 (/bin/app)

 1234/1234  10.000000400:     100000 cpu-clock:uH: 
	404000 other+0x0 (/bin/app)
	400530 main+0x30 (/bin/app)

--- expect
SPAN start=10.000000200 end=10.000000400 tid=1234 depth=3 kind=function flags=- address=0x403000 name="leaf2"
SPAN start=10.000000400 end=10.000000401 tid=1234 depth=2 kind=function flags=OPEN address=0x404000 name="other"
SPAN start=10.000000100 end=10.000000401 tid=1234 depth=1 kind=function flags=OPEN address=0x400500 name="main"
SPAN start=10.000000100 end=10.000000400 tid=1234 depth=2 kind=function flags=- address=0x402000 name="mid"
SPAN start=10.000000100 end=10.000000200 tid=1234 depth=3 kind=function flags=- address=0x401040 name="leaf1"
