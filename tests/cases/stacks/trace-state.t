# Trace state per thread: tr end opens [untraced] until the next tr strt, tr end syscall opens [syscall]; a tr strt as the thread's first event is believed, a second tr strt while tracing and a tr end while not tracing are disbelieved and counted; tr strt tr end is ignored. (Here the syscall is made by a function whose call was not traced, read: the [syscall] span nests in bar, where the trace stood.)
--- input
   40/40    3.000000100:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           402010 foo+0x10 (/bin/app)
   40/40    3.000000110:          1   branches:uH:   call                            402020 foo+0x20 (/bin/app) =>           403000 bar+0x0 (/bin/app)
   40/40    3.000000120:          1   branches:uH:   tr end  syscall           7f0000001005 read+0x5 (/lib/libc.so.6) =>                0 [unknown] ([unknown])
   40/40    3.000000130:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>     7f0000001007 read+0x7 (/lib/libc.so.6)
   40/40    3.000000140:          1   branches:uH:   tr end  async                   403010 bar+0x10 (/bin/app) =>                0 [unknown] ([unknown])
   40/40    3.000000150:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403010 bar+0x10 (/bin/app)
   40/40    3.000000150:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403010 bar+0x10 (/bin/app)
   40/40    3.000000160:          1   branches:uH:   tr end                          403014 bar+0x14 (/bin/app) =>                0 [unknown] ([unknown])
   40/40    3.000000165:          1   branches:uH:   tr end                          403014 bar+0x14 (/bin/app) =>                0 [unknown] ([unknown])
   40/40    3.000000170:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403014 bar+0x14 (/bin/app)
   40/40    3.000000175:          1   branches:uH:   tr strt tr end                       0 [unknown] ([unknown]) =>           403018 bar+0x18 (/bin/app)
   40/40    3.000000180:          1   branches:uH:   return                          403020 bar+0x20 (/bin/app) =>           402025 foo+0x25 (/bin/app)
   40/40    3.000000190:          1   branches:uH:   return                          402030 foo+0x30 (/bin/app) =>           401015 main+0x15 (/bin/app)
--- expect
SPAN start=3.000000120 end=3.000000130 tid=40 depth=2 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=3.000000140 end=3.000000150 tid=40 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=3.000000160 end=3.000000170 tid=40 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=3.000000110 end=3.000000180 tid=40 depth=1 kind=function flags=- address=0x403000 name="bar"
SPAN start=3.000000100 end=3.000000190 tid=40 depth=-1 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=3.000000100 end=3.000000190 tid=40 depth=0 kind=function flags=INFERRED address=0x402000 name="foo"
--- stderr
1 'tr end' while not tracing, ignored
1 'tr strt' while tracing, ignored
