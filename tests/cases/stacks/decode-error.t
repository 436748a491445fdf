# A decode error closes the open frames at the error time (flagged OPEN: they may have gone on), shows the gap until the thread's events resume, and starts again: frames revealed afterwards by returning start at the error (INFERRED). The tr strt after the error is not disbelieved.
--- input
   60/60    11.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 foo+0x0 (/bin/app)
   60/60    11.000000110:          1   branches:uH:   call                            402010 foo+0x10 (/bin/app) =>           403000 bar+0x0 (/bin/app)
 instruction trace error type 1 time 11.000000120 cpu -1 pid 60 tid 60 ip 0x403010 code 7: Overflow packet
   60/60    11.000000150:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403030 bar+0x30 (/bin/app)
   60/60    11.000000160:          1   branches:uH:   return                          403040 bar+0x40 (/bin/app) =>           402015 foo+0x15 (/bin/app)
   60/60    11.000000170:          1   branches:uH:   return                          402020 foo+0x20 (/bin/app) =>           401015 main+0x15 (/bin/app)
--- expect
SPAN start=11.000000110 end=11.000000120 tid=60 depth=2 kind=function flags=OPEN address=0x403000 name="bar"
SPAN start=11.000000100 end=11.000000120 tid=60 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=11.000000100 end=11.000000120 tid=60 depth=1 kind=function flags=OPEN address=0x402000 name="foo"
SPAN start=11.000000120 end=11.000000170 tid=60 depth=-2 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=11.000000120 end=11.000000170 tid=60 depth=-1 kind=function flags=INFERRED address=0x402000 name="foo"
SPAN start=11.000000120 end=11.000000160 tid=60 depth=0 kind=function flags=INFERRED address=0x403000 name="bar"
SPAN start=11.000000120 end=11.000000150 tid=60 depth=1 kind=gap flags=- address=0x0 name="[decode error: Overflow packet]"
