# The same events with --no-spread: perf's times untouched, so spans start together; parents still come first among equal starts.
--- input
   90/90    8.000000500:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 a+0x0 (/bin/app)
   90/90    8.000000500:          1   branches:uH:   call                            402010 a+0x10 (/bin/app) =>           403000 b+0x0 (/bin/app)
   90/90    8.000000500:          1   branches:uH:   return                          403010 b+0x10 (/bin/app) =>           402015 a+0x15 (/bin/app)
   90/90    8.000000500:          1   branches:uH:   call                            402020 a+0x20 (/bin/app) =>           404000 c+0x0 (/bin/app)
   90/90    8.000000504:          1   branches:uH:   return                          404010 c+0x10 (/bin/app) =>           402025 a+0x25 (/bin/app)
   90/90    8.000000504:          1   branches:uH:   return                          402030 a+0x30 (/bin/app) =>           401015 main+0x15 (/bin/app)
--- args
--no-spread
--- expect
SPAN start=8.000000500 end=8.000000504 tid=90 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=8.000000500 end=8.000000504 tid=90 depth=1 kind=function flags=- address=0x402000 name="a"
SPAN start=8.000000500 end=8.000000500 tid=90 depth=2 kind=function flags=- address=0x403000 name="b"
SPAN start=8.000000500 end=8.000000504 tid=90 depth=2 kind=function flags=- address=0x404000 name="c"
