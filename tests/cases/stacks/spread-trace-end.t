# Spreading equal timestamps, a trace end takes a share, as a call does: it starts the [syscall] or [untraced] frame. write's group (1000, spread over 4 ns) ends with tr end syscall: the call takes 1000-1002, the [syscall] 1002-1004, and write returns after the tr strt at 1004, its frame holding the [syscall] (without a share it started at 1004, zero-length at write's end, and viewers nested it beside write). The same for an asynchronous tr end in f (6 ns: 1004-1007, 1007-1010). The thread's trace ends in a system call (read's tr end syscall is its last event): the frames it leaves open end 1 ns after it, so that the [syscall] nests in read.
--- input
   70/70    8.000001000:          1   branches:uH:   call                          401010 main+0x10 (/bin/app) =>           402000 write+0x0 (/bin/app)
   70/70    8.000001000:          1   branches:uH:   jcc                           402005 write+0x5 (/bin/app) =>           402010 write+0x10 (/bin/app)
   70/70    8.000001000:          1   branches:uH:   tr end  syscall               402014 write+0x14 (/bin/app) =>                0 [unknown] ([unknown])
   70/70    8.000001004:          1   branches:uH:   tr strt                            0 [unknown] ([unknown]) =>           402016 write+0x16 (/bin/app)
   70/70    8.000001004:          1   branches:uH:   return                        402020 write+0x20 (/bin/app) =>           401015 main+0x15 (/bin/app)
   70/70    8.000001004:          1   branches:uH:   call                          401020 main+0x20 (/bin/app) =>           403000 f+0x0 (/bin/app)
   70/70    8.000001004:          1   branches:uH:   tr end                        403008 f+0x8 (/bin/app) =>                0 [unknown] ([unknown])
   70/70    8.000001010:          1   branches:uH:   tr strt                            0 [unknown] ([unknown]) =>           403008 f+0x8 (/bin/app)
   70/70    8.000001010:          1   branches:uH:   return                        403010 f+0x10 (/bin/app) =>           401025 main+0x25 (/bin/app)
   70/70    8.000001010:          1   branches:uH:   call                          401030 main+0x30 (/bin/app) =>           404000 read+0x0 (/bin/app)
   70/70    8.000001012:          1   branches:uH:   tr end  syscall               404004 read+0x4 (/bin/app) =>                0 [unknown] ([unknown])
--- expect
SPAN start=8.000001002 end=8.000001004 tid=70 depth=2 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=8.000001007 end=8.000001010 tid=70 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=8.000001004 end=8.000001010 tid=70 depth=1 kind=function flags=- address=0x403000 name="f"
SPAN start=8.000001012 end=8.000001013 tid=70 depth=2 kind=syscall flags=OPEN address=0x0 name="[syscall]"
SPAN start=8.000001010 end=8.000001013 tid=70 depth=1 kind=function flags=OPEN address=0x404000 name="read"
SPAN start=8.000001000 end=8.000001013 tid=70 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=8.000001000 end=8.000001004 tid=70 depth=1 kind=function flags=- address=0x402000 name="write"
