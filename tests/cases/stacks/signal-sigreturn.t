# Signal handlers (user-only trace): a 'tr strt' at the entry of another function than where the trace ended starts a handler's frame on the interrupted one (h1, on f interrupted at its first instruction). A handler's return ends it and starts nothing (the restorer); a signal taken at the restorer's rt_sigreturn starts the next handler on the same frames (h2, which tail-calls h3, still the handler's frame); the trace resuming where the first signal interrupted, even at a function's entry (f+0x0), is no handler. Tid 21: code without a symbol was interrupted, and the handler is in another file: a handler. Tid 22: the code at the 'tr strt' is in the same file as the unsymbolised code that was interrupted, so which function that was is not known: no handler.
--- input
   20/20    6.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 f+0x0 (/bin/app)
   20/20    6.000000110:          1   branches:uH:   tr end  async                   402000 f+0x0 (/bin/app) =>                0 [unknown] ([unknown])
   20/20    6.000000120:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403000 h1+0x0 (/bin/app)
   20/20    6.000000130:          1   branches:uH:   return                          403010 h1+0x10 (/bin/app) =>     7f0000001000 __restore_rt+0x0 (/lib/libc.so.6)
   20/20    6.000000140:          1   branches:uH:   tr end  syscall           7f0000001007 __restore_rt+0x7 (/lib/libc.so.6) =>                0 [unknown] ([unknown])
   20/20    6.000000150:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           404000 h2+0x0 (/bin/app)
   20/20    6.000000160:          1   branches:uH:   jmp                             404010 h2+0x10 (/bin/app) =>           405000 h3+0x0 (/bin/app)
   20/20    6.000000170:          1   branches:uH:   return                          405010 h3+0x10 (/bin/app) =>     7f0000001000 __restore_rt+0x0 (/lib/libc.so.6)
   20/20    6.000000180:          1   branches:uH:   tr end  syscall           7f0000001007 __restore_rt+0x7 (/lib/libc.so.6) =>                0 [unknown] ([unknown])
   20/20    6.000000190:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           402000 f+0x0 (/bin/app)
   20/20    6.000000200:          1   branches:uH:   return                          402010 f+0x10 (/bin/app) =>           401015 main+0x15 (/bin/app)
   21/21    6.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>     7f0000002000 [unknown] (/lib/libx.so)
   21/21    6.000000110:          1   branches:uH:   tr end  async             7f0000002010 [unknown] (/lib/libx.so) =>                0 [unknown] ([unknown])
   21/21    6.000000120:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>           403000 h1+0x0 (/bin/app)
   21/21    6.000000130:          1   branches:uH:   return                          403010 h1+0x10 (/bin/app) =>     7f0000001000 __restore_rt+0x0 (/lib/libc.so.6)
   21/21    6.000000140:          1   branches:uH:   tr end  syscall           7f0000001007 __restore_rt+0x7 (/lib/libc.so.6) =>                0 [unknown] ([unknown])
   21/21    6.000000150:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>     7f0000002010 [unknown] (/lib/libx.so)
   21/21    6.000000160:          1   branches:uH:   return                    7f0000002020 [unknown] (/lib/libx.so) =>           401015 main+0x15 (/bin/app)
   22/22    6.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>     7f0000002000 [unknown] (/lib/libx.so)
   22/22    6.000000110:          1   branches:uH:   tr end  async             7f0000002010 [unknown] (/lib/libx.so) =>                0 [unknown] ([unknown])
   22/22    6.000000120:          1   branches:uH:   tr strt                              0 [unknown] ([unknown]) =>     7f0000003000 g+0x0 (/lib/libx.so)
   22/22    6.000000130:          1   branches:uH:   return                    7f0000003010 g+0x10 (/lib/libx.so) =>     7f0000002020 [unknown] (/lib/libx.so)
   22/22    6.000000140:          1   branches:uH:   return                    7f0000002030 [unknown] (/lib/libx.so) =>           401015 main+0x15 (/bin/app)
--- expect
SPAN start=6.000000110 end=6.000000120 tid=20 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=6.000000120 end=6.000000130 tid=20 depth=2 kind=function flags=- address=0x403000 name="h1"
SPAN start=6.000000140 end=6.000000150 tid=20 depth=2 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=6.000000150 end=6.000000160 tid=20 depth=2 kind=function flags=- address=0x404000 name="h2"
SPAN start=6.000000160 end=6.000000170 tid=20 depth=2 kind=function flags=- address=0x405000 name="h3"
SPAN start=6.000000180 end=6.000000190 tid=20 depth=2 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=6.000000110 end=6.000000120 tid=21 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=6.000000120 end=6.000000130 tid=21 depth=2 kind=function flags=- address=0x403000 name="h1"
SPAN start=6.000000140 end=6.000000150 tid=21 depth=2 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=6.000000110 end=6.000000120 tid=22 depth=2 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=6.000000100 end=6.000000200 tid=20 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=6.000000100 end=6.000000200 tid=20 depth=1 kind=function flags=- address=0x402000 name="f"
SPAN start=6.000000100 end=6.000000160 tid=21 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=6.000000100 end=6.000000160 tid=21 depth=1 kind=function flags=- address=0x7f0000002000 name="[unknown]"
SPAN start=6.000000100 end=6.000000140 tid=22 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=6.000000100 end=6.000000140 tid=22 depth=1 kind=function flags=- address=0x7f0000002000 name="[unknown]"
