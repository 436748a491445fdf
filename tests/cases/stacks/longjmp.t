# 
--- input
   70/70    2.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 run+0x0 (/bin/app)
   70/70    2.000000110:          1   branches:uH:   call                            402010 run+0x10 (/bin/app) =>     7f0000004000 _setjmp+0x0 (/lib/libc.so.6)
   70/70    2.000000115:          1   branches:uH:   jmp                       7f0000004004 _setjmp+0x4 (/lib/libc.so.6) =>     7f0000004100 __sigsetjmp+0x0 (/lib/libc.so.6)
   70/70    2.000000120:          1   branches:uH:   return                    7f0000004150 __sigsetjmp+0x50 (/lib/libc.so.6) =>           402015 run+0x15 (/bin/app)
   70/70    2.000000130:          1   branches:uH:   call                            402020 run+0x20 (/bin/app) =>           403000 a+0x0 (/bin/app)
   70/70    2.000000140:          1   branches:uH:   call                            403010 a+0x10 (/bin/app) =>           404000 b+0x0 (/bin/app)
   70/70    2.000000150:          1   branches:uH:   call                            404010 b+0x10 (/bin/app) =>     7f0000005000 siglongjmp+0x0 (/lib/libc.so.6)
   70/70    2.000000155:          1   branches:uH:   jmp                       7f0000005030 siglongjmp+0x30 (/lib/libc.so.6) =>     7f0000005100 __longjmp+0x0 (/lib/libc.so.6)
   70/70    2.000000160:          1   branches:uH:   jmp                       7f0000005140 __longjmp+0x40 (/lib/libc.so.6) =>           402015 run+0x15 (/bin/app)
   70/70    2.000000170:          1   branches:uH:   return                          402050 run+0x50 (/bin/app) =>           401015 main+0x15 (/bin/app)
   70/70    2.000000300:          1   branches:uH:   call                            401030 main+0x30 (/bin/app) =>           406000 f+0x0 (/bin/app)
   70/70    2.000000310:          1   branches:uH:   call                            406010 f+0x10 (/bin/app) =>           407000 g+0x0 (/bin/app)
   70/70    2.000000320:          1   branches:uH:   call                            407010 g+0x10 (/bin/app) =>     7f0000006000 __cxa_throw+0x0 (/lib/libstdc++.so.6)
   70/70    2.000000330:          1   branches:uH:   call                      7f0000006010 __cxa_throw+0x10 (/lib/libstdc++.so.6) =>     7f0000007000 _Unwind_RaiseException+0x0 (/lib/libgcc_s.so.1)
   70/70    2.000000340:          1   branches:uH:   return                    7f0000007100 _Unwind_RaiseException+0x100 (/lib/libgcc_s.so.1) =>           406060 f+0x60 (/bin/app)
   70/70    2.000000350:          1   branches:uH:   return                          406070 f+0x70 (/bin/app) =>           401035 main+0x35 (/bin/app)
   70/70    2.000000400:          1   branches:uH:   call                            401040 main+0x40 (/bin/app) =>           408000 c+0x0 (/bin/app)
   70/70    2.000000410:          1   branches:uH:   call                            408010 c+0x10 (/bin/app) =>     7f0000005100 __longjmp+0x0 (/lib/libc.so.6)
   70/70    2.000000420:          1   branches:uH:   jmp                       7f0000005140 __longjmp+0x40 (/lib/libc.so.6) =>           409040 zed+0x40 (/bin/app)
   70/70    2.000000430:          1   branches:uH:   return                          409050 zed+0x50 (/bin/app) =>           400555 start+0x55 (/bin/app)
--- expect
SPAN start=2.000000110 end=2.000000115 tid=70 depth=2 kind=function flags=- address=0x7f0000004000 name="_setjmp"
SPAN start=2.000000115 end=2.000000120 tid=70 depth=2 kind=function flags=- address=0x7f0000004100 name="__sigsetjmp"
SPAN start=2.000000150 end=2.000000155 tid=70 depth=4 kind=function flags=- address=0x7f0000005000 name="siglongjmp"
SPAN start=2.000000155 end=2.000000160 tid=70 depth=4 kind=function flags=- address=0x7f0000005100 name="__longjmp"
SPAN start=2.000000140 end=2.000000160 tid=70 depth=3 kind=function flags=- address=0x404000 name="b"
SPAN start=2.000000130 end=2.000000160 tid=70 depth=2 kind=function flags=- address=0x403000 name="a"
SPAN start=2.000000330 end=2.000000340 tid=70 depth=4 kind=function flags=- address=0x7f0000007000 name="_Unwind_RaiseException"
SPAN start=2.000000320 end=2.000000340 tid=70 depth=3 kind=function flags=- address=0x7f0000006000 name="__cxa_throw"
SPAN start=2.000000310 end=2.000000340 tid=70 depth=2 kind=function flags=- address=0x407000 name="g"
SPAN start=2.000000300 end=2.000000350 tid=70 depth=1 kind=function flags=- address=0x406000 name="f"
SPAN start=2.000000410 end=2.000000420 tid=70 depth=2 kind=function flags=- address=0x7f0000005100 name="__longjmp"
SPAN start=2.000000400 end=2.000000420 tid=70 depth=1 kind=function flags=- address=0x408000 name="c"
SPAN start=2.000000100 end=2.000000420 tid=70 depth=0 kind=function flags=INFERRED address=0x401000 name="main"
SPAN start=2.000000100 end=2.000000170 tid=70 depth=1 kind=function flags=- address=0x402000 name="run"
SPAN start=2.000000420 end=2.000000430 tid=70 depth=-1 kind=function flags=INFERRED|OPEN address=0x400500 name="start"
SPAN start=2.000000420 end=2.000000430 tid=70 depth=0 kind=function flags=INFERRED address=0x409000 name="zed"
