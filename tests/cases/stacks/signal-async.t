# An asynchronous signal, from real perf output (ptsynth on tests/ptsynth/corpus/signal.c, a timer while main spins): 'tr end  async' in main, [untraced] until the trace starts again at the handler's entry, on_alarm; the handler nests on main, its return into __restore_rt ends it, and after the restorer's rt_sigreturn the trace resumes where main was interrupted, main intact.
--- input
          signal  6807/6807   1000.001135360:          1           branches:u:   jcc                        555555555264 main+0xd5 (/work/main/build/tests/ptsynth-corpus/signal) =>     555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135360:          1           branches:u:   call                       555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal) =>     55555555518e spin+0x0 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135380:          1           branches:u:   return                     55555555518e spin+0x0 (/work/main/build/tests/ptsynth-corpus/signal) =>     55555555525c main+0xcd (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135410:          1           branches:u:   jcc                        555555555264 main+0xd5 (/work/main/build/tests/ptsynth-corpus/signal) =>     555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135420:          1           branches:u:   tr end  async              555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal) =>                0 [unknown] ([unknown])
          signal  6807/6807   1000.001135430:          1           branches:u:   tr strt                               0 [unknown] ([unknown]) =>     55555555517e on_alarm+0x0 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135430:          1           branches:u:   call                       55555555517e on_alarm+0x0 (/work/main/build/tests/ptsynth-corpus/signal) =>     555555555169 note+0x0 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135470:          1           branches:u:   return                     555555555177 note+0xe (/work/main/build/tests/ptsynth-corpus/signal) =>     555555555183 on_alarm+0x5 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135490:          1           branches:u:   return                     55555555518d on_alarm+0xf (/work/main/build/tests/ptsynth-corpus/signal) =>     7ffff7e0f050 __restore_rt+0x0 (/usr/lib/x86_64-linux-gnu/libc.so.6)
          signal  6807/6807   1000.001135510:          1           branches:u:   tr end  syscall            7ffff7e0f057 __restore_rt+0x7 (/usr/lib/x86_64-linux-gnu/libc.so.6) =>                0 [unknown] ([unknown])
          signal  6807/6807   1000.001135520:          1           branches:u:   tr strt                               0 [unknown] ([unknown]) =>     555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135520:          1           branches:u:   call                       555555555257 main+0xc8 (/work/main/build/tests/ptsynth-corpus/signal) =>     55555555518e spin+0x0 (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135530:          1           branches:u:   return                     55555555518e spin+0x0 (/work/main/build/tests/ptsynth-corpus/signal) =>     55555555525c main+0xcd (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135560:          1           branches:u:   jmp                        555555555275 main+0xe6 (/work/main/build/tests/ptsynth-corpus/signal) =>     5555555551fb main+0x6c (/work/main/build/tests/ptsynth-corpus/signal)
          signal  6807/6807   1000.001135640:          1           branches:u:   return                     555555555203 main+0x74 (/work/main/build/tests/ptsynth-corpus/signal) =>     7ffff7dfa24a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
--- expect
SPAN start=1000.001135420 end=1000.001135430 tid=6807 depth=1 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=1000.001135430 end=1000.001135490 tid=6807 depth=1 kind=function flags=- address=0x55555555517e name="on_alarm"
SPAN start=1000.001135430 end=1000.001135470 tid=6807 depth=2 kind=function flags=- address=0x555555555169 name="note"
SPAN start=1000.001135510 end=1000.001135520 tid=6807 depth=1 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=1000.001135520 end=1000.001135530 tid=6807 depth=1 kind=function flags=- address=0x55555555518e name="spin"
SPAN start=1000.001135360 end=1000.001135640 tid=6807 depth=-1 kind=function flags=INFERRED|OPEN address=0x7ffff7dfa1d0 name="__libc_start_call_main"
SPAN start=1000.001135360 end=1000.001135640 tid=6807 depth=0 kind=function flags=INFERRED address=0x55555555518f name="main"
SPAN start=1000.001135360 end=1000.001135380 tid=6807 depth=1 kind=function flags=- address=0x55555555518e name="spin"
