# Signal handlers in kernel traces (uk): an iret (or sysret) from the kernel to the entry of another function than the one the user code left is a handler: its frame nests on the interrupted one, beside the kernel stack that delivered it; its return into __restore_rt ends it, the restorer's rt_sigreturn is a kernel stack of its own, and the iret back to where f was interrupted leaves f intact.
--- input
   60/60    7.000000100:          1   branches:uH:   call                            401010 main+0x10 (/bin/app) =>           402000 f+0x0 (/bin/app)
   60/60    7.000000110:          1   branches:uH:   hw int                          402020 f+0x20 (/bin/app) => ffffffff81006000 asm_sysvec_apic_timer_interrupt+0x0 ([kernel.kallsyms])
   60/60    7.000000120:          1   branches:uH:   call                  ffffffff81006010 asm_sysvec_apic_timer_interrupt+0x10 ([kernel.kallsyms]) => ffffffff81007000 arch_do_signal_or_restart+0x0 ([kernel.kallsyms])
   60/60    7.000000130:          1   branches:uH:   return                ffffffff81007040 arch_do_signal_or_restart+0x40 ([kernel.kallsyms]) => ffffffff81006015 asm_sysvec_apic_timer_interrupt+0x15 ([kernel.kallsyms])
   60/60    7.000000140:          1   branches:uH:   iret                  ffffffff81006040 asm_sysvec_apic_timer_interrupt+0x40 ([kernel.kallsyms]) =>           403000 handler+0x0 (/bin/app)
   60/60    7.000000150:          1   branches:uH:   call                            403004 handler+0x4 (/bin/app) =>           404000 note+0x0 (/bin/app)
   60/60    7.000000160:          1   branches:uH:   return                          404010 note+0x10 (/bin/app) =>           403009 handler+0x9 (/bin/app)
   60/60    7.000000170:          1   branches:uH:   return                          403010 handler+0x10 (/bin/app) =>     7f0000001000 __restore_rt+0x0 (/lib/libc.so.6)
   60/60    7.000000180:          1   branches:uH:   syscall                   7f0000001007 __restore_rt+0x7 (/lib/libc.so.6) => ffffffff81000100 entry_SYSCALL_64+0x0 ([kernel.kallsyms])
   60/60    7.000000190:          1   branches:uH:   call                  ffffffff81000120 entry_SYSCALL_64+0x20 ([kernel.kallsyms]) => ffffffff81002000 do_syscall_64+0x0 ([kernel.kallsyms])
   60/60    7.000000200:          1   branches:uH:   return                ffffffff81002050 do_syscall_64+0x50 ([kernel.kallsyms]) => ffffffff81000125 entry_SYSCALL_64+0x25 ([kernel.kallsyms])
   60/60    7.000000210:          1   branches:uH:   iret                  ffffffff81000190 entry_SYSCALL_64+0x90 ([kernel.kallsyms]) =>           402020 f+0x20 (/bin/app)
   60/60    7.000000220:          1   branches:uH:   return                          402030 f+0x30 (/bin/app) =>           401015 main+0x15 (/bin/app)
--- expect
SPAN start=7.000000120 end=7.000000130 tid=60 depth=3 kind=kernel flags=- address=0xffffffff81007000 name="arch_do_signal_or_restart"
SPAN start=7.000000110 end=7.000000140 tid=60 depth=2 kind=kernel flags=- address=0xffffffff81006000 name="asm_sysvec_apic_timer_interrupt"
SPAN start=7.000000150 end=7.000000160 tid=60 depth=3 kind=function flags=- address=0x404000 name="note"
SPAN start=7.000000140 end=7.000000170 tid=60 depth=2 kind=function flags=- address=0x403000 name="handler"
SPAN start=7.000000190 end=7.000000200 tid=60 depth=3 kind=kernel flags=- address=0xffffffff81002000 name="do_syscall_64"
SPAN start=7.000000180 end=7.000000210 tid=60 depth=2 kind=kernel flags=- address=0xffffffff81000100 name="entry_SYSCALL_64"
SPAN start=7.000000100 end=7.000000220 tid=60 depth=0 kind=function flags=INFERRED|OPEN address=0x401000 name="main"
SPAN start=7.000000100 end=7.000000220 tid=60 depth=1 kind=function flags=- address=0x402000 name="f"
