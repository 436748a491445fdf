# Go, real perf lines (ptsynth's go corpus program, jcc and jumps within a function left out, and calls that returned): a goroutine parks in chansend (gopark, mcall, park_m on g0), the scheduler runs and runtime.execute's runtime.gogo jumps into a goroutine parked in gopark. Which goroutine, the branches do not tell: every frame of the thread ends at that jump, and a new segment begins in gopark (inferred, depth 0), whose returns reveal the goroutine's callers one level further out each, from the jump on.
--- input
              go 21905/21905  1000.006489710:          1           branches:u:   call                             404367 runtime.chansend+0x427 (/work/main/build/tests/ptsynth-corpus/go) =>           432380 runtime.gopark+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006490830:          1           branches:u:   call                             432451 runtime.gopark+0xd1 (/work/main/build/tests/ptsynth-corpus/go) =>           457820 runtime.mcall+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006491340:          1           branches:u:   call                             457860 runtime.mcall+0x40 (/work/main/build/tests/ptsynth-corpus/go) =>           438b20 runtime.park_m+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006493800:          1           branches:u:   call                             438c68 runtime.park_m+0x148 (/work/main/build/tests/ptsynth-corpus/go) =>           438680 runtime.schedule+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006494270:          1           branches:u:   call                             438739 runtime.schedule+0xb9 (/work/main/build/tests/ptsynth-corpus/go) =>           436f20 runtime.findRunnable+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006495770:          1           branches:u:   return                           4377a0 runtime.findRunnable+0x880 (/work/main/build/tests/ptsynth-corpus/go) =>           43873e runtime.schedule+0xbe (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006496080:          1           branches:u:   call                             43888e runtime.schedule+0x20e (/work/main/build/tests/ptsynth-corpus/go) =>           436da0 runtime.execute+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006497470:          1           branches:u:   call                             436ed7 runtime.execute+0x137 (/work/main/build/tests/ptsynth-corpus/go) =>           457800 runtime.gogo.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006497470:          1           branches:u:   jmp                              45780c runtime.gogo.abi0+0xc (/work/main/build/tests/ptsynth-corpus/go) =>           456a20 gogo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006497860:          1           branches:u:   jmp                              456a5e gogo+0x3e (/work/main/build/tests/ptsynth-corpus/go) =>           432456 runtime.gopark+0xd6 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006497930:          1           branches:u:   return                           432460 runtime.gopark+0xe0 (/work/main/build/tests/ptsynth-corpus/go) =>           40436c runtime.chansend+0x42c (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006499810:          1           branches:u:   return                           404447 runtime.chansend+0x507 (/work/main/build/tests/ptsynth-corpus/go) =>           403f1d runtime.chansend1+0x1d (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006499910:          1           branches:u:   return                           403f26 runtime.chansend1+0x26 (/work/main/build/tests/ptsynth-corpus/go) =>           4609c7 main.bounce+0x47 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006499910:          1           branches:u:   call                             4609d1 main.bounce+0x51 (/work/main/build/tests/ptsynth-corpus/go) =>           404ca0 runtime.chanrecv2+0x0 (/work/main/build/tests/ptsynth-corpus/go)
--- args
--no-spread
--- expect
SPAN start=1000.006494270 end=1000.006495770 tid=21905 depth=5 kind=function flags=- address=0x436f20 name="runtime.findRunnable"
SPAN start=1000.006497470 end=1000.006497470 tid=21905 depth=6 kind=function flags=- address=0x457800 name="runtime.gogo.abi0"
SPAN start=1000.006497470 end=1000.006497860 tid=21905 depth=6 kind=function flags=- address=0x456a20 name="gogo"
SPAN start=1000.006496080 end=1000.006497860 tid=21905 depth=5 kind=function flags=- address=0x436da0 name="runtime.execute"
SPAN start=1000.006493800 end=1000.006497860 tid=21905 depth=4 kind=function flags=- address=0x438680 name="runtime.schedule"
SPAN start=1000.006491340 end=1000.006497860 tid=21905 depth=3 kind=function flags=- address=0x438b20 name="runtime.park_m"
SPAN start=1000.006490830 end=1000.006497860 tid=21905 depth=2 kind=function flags=- address=0x457820 name="runtime.mcall"
SPAN start=1000.006489710 end=1000.006497860 tid=21905 depth=0 kind=function flags=INFERRED address=0x403f40 name="runtime.chansend"
SPAN start=1000.006489710 end=1000.006497860 tid=21905 depth=1 kind=function flags=- address=0x432380 name="runtime.gopark"
SPAN start=1000.006499910 end=1000.006499910 tid=21905 depth=-2 kind=function flags=OPEN address=0x404ca0 name="runtime.chanrecv2"
SPAN start=1000.006497860 end=1000.006499910 tid=21905 depth=-3 kind=function flags=INFERRED|OPEN address=0x460980 name="main.bounce"
SPAN start=1000.006497860 end=1000.006499910 tid=21905 depth=-2 kind=function flags=INFERRED address=0x403f00 name="runtime.chansend1"
SPAN start=1000.006497860 end=1000.006499810 tid=21905 depth=-1 kind=function flags=INFERRED address=0x403f40 name="runtime.chansend"
SPAN start=1000.006497860 end=1000.006497930 tid=21905 depth=0 kind=function flags=INFERRED address=0x432380 name="runtime.gopark"
