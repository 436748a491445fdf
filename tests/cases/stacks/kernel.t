# Kernel traces (uk): syscall and hw int push the user stack aside and start a kernel stack nested under the interrupted frame; sysret and iret end the kernel frames and return to the user stack (a stack of stacks).
--- input
   50/50    4.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>     7f0000002000 getpid+0x0 (/lib/libc.so.6)
   50/50    4.000000110:          1   branches:uH:   syscall                   7f0000002005 getpid+0x5 (/lib/libc.so.6) => ffffffff81000100 entry_SYSCALL_64+0x0 ([kernel.kallsyms])
   50/50    4.000000120:          1   branches:uH:   call                  ffffffff81000120 entry_SYSCALL_64+0x20 ([kernel.kallsyms]) => ffffffff81002000 do_syscall_64+0x0 ([kernel.kallsyms])
   50/50    4.000000130:          1   branches:uH:   call                  ffffffff81002040 do_syscall_64+0x40 ([kernel.kallsyms]) => ffffffff81003000 __x64_sys_getpid+0x0 ([kernel.kallsyms])
   50/50    4.000000140:          1   branches:uH:   return                ffffffff81003010 __x64_sys_getpid+0x10 ([kernel.kallsyms]) => ffffffff81002045 do_syscall_64+0x45 ([kernel.kallsyms])
   50/50    4.000000150:          1   branches:uH:   return                ffffffff81002050 do_syscall_64+0x50 ([kernel.kallsyms]) => ffffffff81000125 entry_SYSCALL_64+0x25 ([kernel.kallsyms])
   50/50    4.000000160:          1   branches:uH:   sysret                ffffffff81000190 entry_SYSCALL_64+0x90 ([kernel.kallsyms]) =>     7f0000002007 getpid+0x7 (/lib/libc.so.6)
   50/50    4.000000170:          1   branches:uH:   return                    7f0000002010 getpid+0x10 (/lib/libc.so.6) =>           401015 main+0x15 (/bin/app)
   50/50    4.000000180:          1   branches:uH:   hw int                          401030 main+0x30 (/bin/app) => ffffffff81004000 asm_exc_page_fault+0x0 ([kernel.kallsyms])
   50/50    4.000000190:          1   branches:uH:   call                  ffffffff81004010 asm_exc_page_fault+0x10 ([kernel.kallsyms]) => ffffffff81005000 exc_page_fault+0x0 ([kernel.kallsyms])
   50/50    4.000000200:          1   branches:uH:   return                ffffffff81005020 exc_page_fault+0x20 ([kernel.kallsyms]) => ffffffff81004015 asm_exc_page_fault+0x15 ([kernel.kallsyms])
   50/50    4.000000210:          1   branches:uH:   iret                  ffffffff81004040 asm_exc_page_fault+0x40 ([kernel.kallsyms]) =>           401030 main+0x30 (/bin/app)
--- expect
SPAN start=4.000000130 end=4.000000140 tid=50 depth=4 kind=kernel flags=- address=0xffffffff81003000 name="__x64_sys_getpid"
SPAN start=4.000000120 end=4.000000150 tid=50 depth=3 kind=kernel flags=- address=0xffffffff81002000 name="do_syscall_64"
SPAN start=4.000000110 end=4.000000160 tid=50 depth=2 kind=kernel flags=- address=0xffffffff81000100 name="entry_SYSCALL_64"
SPAN start=4.000000190 end=4.000000200 tid=50 depth=2 kind=kernel flags=- address=0xffffffff81005000 name="exc_page_fault"
SPAN start=4.000000180 end=4.000000210 tid=50 depth=1 kind=kernel flags=- address=0xffffffff81004000 name="asm_exc_page_fault"
SPAN start=4.000000100 end=4.000000210 tid=50 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=4.000000100 end=4.000000170 tid=50 depth=1 kind=function flags=- address=0x7f0000002000 name="getpid"
