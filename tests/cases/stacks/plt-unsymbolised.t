# Lazy binding from unsymbolised code, from real perf output (ptsynth on a program calling a stripped shared library, whose static function calls strlen through its PLT; _dl_fixup's inner branches left out): strlen@plt jumps to the PLT header, also [unknown] code of that library. A jump out of a PLT stub is a tail call, never an unwind to the [unknown] caller; the header jumps on to _dl_runtime_resolve_xsavec, which ends in strlen, whose return lands in the caller. The second call is bound: the stub jumps straight to strlen.
--- input
         pltmain  7480/7480   1000.001238550:          1           branches:u:   call                       7ffff7fbc130 lib_entry+0x9 (/tmp/plt/libpltx.so) =>     7ffff7fbc109 [unknown] (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001238550:          1           branches:u:   call                       7ffff7fbc10d [unknown] (/tmp/plt/libpltx.so) =>     7ffff7fbc030 strlen@plt+0x0 (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001238640:          1           branches:u:   jmp                        7ffff7fbc030 strlen@plt+0x0 (/tmp/plt/libpltx.so) =>     7ffff7fbc036 strlen@plt+0x6 (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001238640:          1           branches:u:   jmp                        7ffff7fbc03b strlen@plt+0xb (/tmp/plt/libpltx.so) =>     7ffff7fbc020 [unknown] (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001238680:          1           branches:u:   jmp                        7ffff7fbc026 [unknown] (/tmp/plt/libpltx.so) =>     7ffff7fdc290 _dl_runtime_resolve_xsavec+0x0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
         pltmain  7480/7480   1000.001238680:          1           branches:u:   call                       7ffff7fdc305 _dl_runtime_resolve_xsavec+0x75 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) =>     7ffff7fd9e10 _dl_fixup+0x0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
         pltmain  7480/7480   1000.001245160:          1           branches:u:   return                     7ffff7fd9f9e _dl_fixup+0x18e (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) =>     7ffff7fdc30a _dl_runtime_resolve_xsavec+0x7a (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
         pltmain  7480/7480   1000.001245310:          1           branches:u:   jmp                        7ffff7fdc346 _dl_runtime_resolve_xsavec+0xb6 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2) =>     7ffff7f35ac0 __strlen_evex+0x0 (/usr/lib/x86_64-linux-gnu/libc.so.6)
         pltmain  7480/7480   1000.001245420:          1           branches:u:   return                     7ffff7f35aeb __strlen_evex+0x2b (/usr/lib/x86_64-linux-gnu/libc.so.6) =>     7ffff7fbc112 [unknown] (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245510:          1           branches:u:   return                     7ffff7fbc126 [unknown] (/tmp/plt/libpltx.so) =>     7ffff7fbc135 lib_entry+0xe (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245510:          1           branches:u:   call                       7ffff7fbc13c lib_entry+0x15 (/tmp/plt/libpltx.so) =>     7ffff7fbc109 [unknown] (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245510:          1           branches:u:   call                       7ffff7fbc10d [unknown] (/tmp/plt/libpltx.so) =>     7ffff7fbc030 strlen@plt+0x0 (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245580:          1           branches:u:   jmp                        7ffff7fbc030 strlen@plt+0x0 (/tmp/plt/libpltx.so) =>     7ffff7f35ac0 __strlen_evex+0x0 (/usr/lib/x86_64-linux-gnu/libc.so.6)
         pltmain  7480/7480   1000.001245690:          1           branches:u:   return                     7ffff7f35aeb __strlen_evex+0x2b (/usr/lib/x86_64-linux-gnu/libc.so.6) =>     7ffff7fbc112 [unknown] (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245780:          1           branches:u:   return                     7ffff7fbc126 [unknown] (/tmp/plt/libpltx.so) =>     7ffff7fbc141 lib_entry+0x1a (/tmp/plt/libpltx.so)
         pltmain  7480/7480   1000.001245830:          1           branches:u:   return                     7ffff7fbc14a lib_entry+0x23 (/tmp/plt/libpltx.so) =>     555555555149 main+0x10 (/tmp/plt/pltmain)
         pltmain  7480/7480   1000.001245880:          1           branches:u:   return                     555555555155 main+0x1c (/tmp/plt/pltmain) =>     7ffff7df524a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
--- expect
SPAN start=1000.001238595 end=1000.001238640 tid=7480 depth=2 kind=function flags=- address=0x7ffff7fbc030 name="strlen@plt"
SPAN start=1000.001238640 end=1000.001238680 tid=7480 depth=2 kind=function flags=- address=0x7ffff7fbc020 name="[unknown]"
SPAN start=1000.001241920 end=1000.001245160 tid=7480 depth=3 kind=function flags=- address=0x7ffff7fd9e10 name="_dl_fixup"
SPAN start=1000.001238680 end=1000.001245310 tid=7480 depth=2 kind=function flags=- address=0x7ffff7fdc290 name="_dl_runtime_resolve_xsavec"
SPAN start=1000.001245310 end=1000.001245420 tid=7480 depth=2 kind=function flags=- address=0x7ffff7f35ac0 name="__strlen_evex"
SPAN start=1000.001245545 end=1000.001245580 tid=7480 depth=2 kind=function flags=- address=0x7ffff7fbc030 name="strlen@plt"
SPAN start=1000.001245580 end=1000.001245690 tid=7480 depth=2 kind=function flags=- address=0x7ffff7f35ac0 name="__strlen_evex"
SPAN start=1000.001245510 end=1000.001245780 tid=7480 depth=1 kind=function flags=- address=0x7ffff7fbc109 name="[unknown]"
SPAN start=1000.001238550 end=1000.001245880 tid=7480 depth=-2 kind=function flags=INFERRED|OPEN address=0x7ffff7df51d0 name="__libc_start_call_main"
SPAN start=1000.001238550 end=1000.001245880 tid=7480 depth=-1 kind=function flags=INFERRED address=0x555555555139 name="main"
SPAN start=1000.001238550 end=1000.001245830 tid=7480 depth=0 kind=function flags=INFERRED address=0x7ffff7fbc127 name="lib_entry"
SPAN start=1000.001238550 end=1000.001245510 tid=7480 depth=1 kind=function flags=- address=0x7ffff7fbc109 name="[unknown]"
