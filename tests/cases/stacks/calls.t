# Calls push, returns pop, jumps inside a function change nothing; two threads interleave, each on its own. The frame that was running when the trace began (main, worker) is inferred from the first call's source and ends open at the thread's last event; thread 11's last event starts work, so its open frames end 1 ns later, and work nests in worker instead of touching its end.
--- input
   10/10    5.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 foo+0x0 (/bin/app)
   10/11    5.000000150:          1   branches:uH:   call                            405010 worker+0x10 (/bin/app) =>           406000 work+0x0 (/bin/app)
   10/10    5.000000200:          1   branches:uH:   call                            402010 foo+0x10 (/bin/app) =>           403000 bar+0x0 (/bin/app)
   10/11    5.000000250:          1   branches:uH:   return                          406020 work+0x20 (/bin/app) =>           405015 worker+0x15 (/bin/app)
   10/10    5.000000300:          1   branches:uH:   return                          403020 bar+0x20 (/bin/app) =>           402015 foo+0x15 (/bin/app)
   10/10    5.000000320:          1   branches:uH:   jcc                             402020 foo+0x20 (/bin/app) =>           402040 foo+0x40 (/bin/app)
   10/11    5.000000350:          1   branches:uH:   call                            405030 worker+0x30 (/bin/app) =>           406000 work+0x0 (/bin/app)
   10/10    5.000000400:          1   branches:uH:   return                          402050 foo+0x50 (/bin/app) =>           401015 main+0x15 (/bin/app)
   10/10    5.000000500:          1   branches:uH:   call                            401020 main+0x20 (/bin/app) =>           404000 baz+0x0 (/bin/app)
   10/10    5.000000600:          1   branches:uH:   return                          404020 baz+0x20 (/bin/app) =>           401025 main+0x25 (/bin/app)
--- expect
SPAN start=5.000000200 end=5.000000300 tid=10 depth=2 kind=function flags=- address=0x403000 name="bar"
SPAN start=5.000000500 end=5.000000600 tid=10 depth=1 kind=function flags=- address=0x404000 name="baz"
SPAN start=5.000000100 end=5.000000600 tid=10 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=5.000000100 end=5.000000400 tid=10 depth=1 kind=function flags=- address=0x402000 name="foo"
SPAN start=5.000000350 end=5.000000351 tid=11 depth=1 kind=function flags=OPEN address=0x406000 name="work"
SPAN start=5.000000150 end=5.000000351 tid=11 depth=0 kind=function flags=INFERRED|OPEN address=0x405000 name="worker"
SPAN start=5.000000150 end=5.000000250 tid=11 depth=1 kind=function flags=- address=0x406000 name="work"
