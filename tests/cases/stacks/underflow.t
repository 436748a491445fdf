# Returns past the bottom of the known stack: the trace began inside c, called by b, a and main. Each return reveals the caller, which becomes a frame started at the thread's first event (flagged INFERRED) one level further out, so the outermost function ends up outermost; their depths go negative so that no span's depth changes after it was written.
--- input
   30/30    9.000000100:          1   branches:uH:   return                          403020 c+0x20 (/bin/app) =>           402015 b+0x15 (/bin/app)
   30/30    9.000000110:          1   branches:uH:   call                            402020 b+0x20 (/bin/app) =>           404000 d+0x0 (/bin/app)
   30/30    9.000000120:          1   branches:uH:   return                          404010 d+0x10 (/bin/app) =>           402025 b+0x25 (/bin/app)
   30/30    9.000000130:          1   branches:uH:   return                          402030 b+0x30 (/bin/app) =>           401015 a+0x15 (/bin/app)
   30/30    9.000000140:          1   branches:uH:   return                          401020 a+0x20 (/bin/app) =>           400515 main+0x15 (/bin/app)
   30/30    9.000000150:          1   branches:uH:   call                            400520 main+0x20 (/bin/app) =>           405000 exit+0x0 (/lib/libc.so.6)
--- expect
SPAN start=9.000000110 end=9.000000120 tid=30 depth=0 kind=function flags=- address=0x404000 name="d"
SPAN start=9.000000150 end=9.000000151 tid=30 depth=-2 kind=function flags=OPEN address=0x405000 name="exit"
SPAN start=9.000000100 end=9.000000151 tid=30 depth=-3 kind=function flags=INFERRED|OPEN address=0x400500 name="main"
SPAN start=9.000000100 end=9.000000140 tid=30 depth=-2 kind=function flags=INFERRED address=0x401000 name="a"
SPAN start=9.000000100 end=9.000000130 tid=30 depth=-1 kind=function flags=INFERRED address=0x402000 name="b"
SPAN start=9.000000100 end=9.000000100 tid=30 depth=0 kind=function flags=INFERRED address=0x403000 name="c"
