# Tail calls: a jump to the entry of another function ends the top frame and starts the target at the same depth (a PLT stub jumping to free, free to _int_free; Rust's __rust_dealloc -> __rdl_dealloc -> cfree -> _int_free). A jump into the middle of another function that is on no stack and does not come from longjmp (GCC's foo.cold) is also taken as a tail call. Jumps inside a function change nothing.
--- input
   20/20    7.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           400800 free@plt+0x0 (/bin/app)
   20/20    7.000000110:          1   branches:uH:   jmp                             400806 free@plt+0x6 (/bin/app) =>     7f0000010000 free+0x0 (/lib/libc.so.6)
   20/20    7.000000120:          1   branches:uH:   jmp                       7f0000010020 free+0x20 (/lib/libc.so.6) =>     7f0000020000 _int_free+0x0 (/lib/libc.so.6)
   20/20    7.000000130:          1   branches:uH:   jcc                       7f0000020010 _int_free+0x10 (/lib/libc.so.6) =>     7f0000020040 _int_free+0x40 (/lib/libc.so.6)
   20/20    7.000000140:          1   branches:uH:   return                    7f0000020050 _int_free+0x50 (/lib/libc.so.6) =>           401015 main+0x15 (/bin/app)
   20/20    7.000000200:          1   branches:uH:   call                            401020 main+0x20 (/bin/app) =>           408000 __rust_dealloc+0x0 (/bin/app)
   20/20    7.000000210:          1   branches:uH:   jmp                             408004 __rust_dealloc+0x4 (/bin/app) =>           408100 __rdl_dealloc+0x0 (/bin/app)
   20/20    7.000000220:          1   branches:uH:   jmp                             408110 __rdl_dealloc+0x10 (/bin/app) =>     7f0000030000 cfree+0x0 (/lib/libc.so.6)
   20/20    7.000000230:          1   branches:uH:   jmp                       7f0000030010 cfree+0x10 (/lib/libc.so.6) =>     7f0000020000 _int_free+0x0 (/lib/libc.so.6)
   20/20    7.000000240:          1   branches:uH:   return                    7f0000020050 _int_free+0x50 (/lib/libc.so.6) =>           401025 main+0x25 (/bin/app)
   20/20    7.000000290:          1   branches:uH:   call                            401030 main+0x30 (/bin/app) =>           409000 foo+0x0 (/bin/app)
   20/20    7.000000300:          1   branches:uH:   jmp                             409010 foo+0x10 (/bin/app) =>           409812 foo.cold+0x12 (/bin/app)
   20/20    7.000000310:          1   branches:uH:   return                          409820 foo.cold+0x20 (/bin/app) =>           401035 main+0x35 (/bin/app)
   20/20    7.000000320:          1   branches:uH:   jcc                             401040 main+0x40 (/bin/app) =>           401060 main+0x60 (/bin/app)
--- expect
SPAN start=7.000000110 end=7.000000120 tid=20 depth=1 kind=function flags=- address=0x7f0000010000 name="free"
SPAN start=7.000000120 end=7.000000140 tid=20 depth=1 kind=function flags=- address=0x7f0000020000 name="_int_free"
SPAN start=7.000000200 end=7.000000210 tid=20 depth=1 kind=function flags=- address=0x408000 name="__rust_dealloc"
SPAN start=7.000000210 end=7.000000220 tid=20 depth=1 kind=function flags=- address=0x408100 name="__rdl_dealloc"
SPAN start=7.000000220 end=7.000000230 tid=20 depth=1 kind=function flags=- address=0x7f0000030000 name="cfree"
SPAN start=7.000000230 end=7.000000240 tid=20 depth=1 kind=function flags=- address=0x7f0000020000 name="_int_free"
SPAN start=7.000000290 end=7.000000300 tid=20 depth=1 kind=function flags=- address=0x409000 name="foo"
SPAN start=7.000000300 end=7.000000310 tid=20 depth=1 kind=function flags=- address=0x409800 name="foo.cold"
SPAN start=7.000000100 end=7.000000320 tid=20 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=7.000000100 end=7.000000110 tid=20 depth=1 kind=function flags=- address=0x400800 name="free@plt"
