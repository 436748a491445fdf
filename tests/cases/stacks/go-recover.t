# Go, real perf lines: the scheduler resumes a goroutine in the middle of a panic (runOpenDeferFrame, a new segment), whose deferred function recovers; gopanic goes through mcall to runtime.recovery, whose runtime.gogo resumes the goroutine in main.recovered, a frame further out than every frame this segment showed (main.fail, which panicked, lies between and is never shown: no branch of the segment comes from or goes to it). The frames known end, and main.recovered is revealed one level out of the last, from the segment's start; its returns reveal main.main and runtime.main.
--- input
              go 21905/21905  1000.006733870:          1           branches:u:   return                           43778d runtime.findRunnable+0x86d (/work/main/build/tests/ptsynth-corpus/go) =>           43873e runtime.schedule+0xbe (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006734040:          1           branches:u:   call                             43888e runtime.schedule+0x20e (/work/main/build/tests/ptsynth-corpus/go) =>           436da0 runtime.execute+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006736330:          1           branches:u:   call                             436ed7 runtime.execute+0x137 (/work/main/build/tests/ptsynth-corpus/go) =>           457800 runtime.gogo.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006736330:          1           branches:u:   jmp                              45780c runtime.gogo.abi0+0xc (/work/main/build/tests/ptsynth-corpus/go) =>           456a20 gogo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006736520:          1           branches:u:   jmp                              456a5e gogo+0x3e (/work/main/build/tests/ptsynth-corpus/go) =>           42ef3a runtime.runOpenDeferFrame+0x2da (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006737380:          1           branches:u:   call                             42ee00 runtime.runOpenDeferFrame+0x1a0 (/work/main/build/tests/ptsynth-corpus/go) =>           42ef60 runtime.deferCallSave+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006737790:          1           branches:u:   call                             42efe6 runtime.deferCallSave+0x86 (/work/main/build/tests/ptsynth-corpus/go) =>           460b40 main.recovered.func1+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006738090:          1           branches:u:   return                           460b81 main.recovered.func1+0x41 (/work/main/build/tests/ptsynth-corpus/go) =>           42efe8 runtime.deferCallSave+0x88 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006738200:          1           branches:u:   return                           42f020 runtime.deferCallSave+0xc0 (/work/main/build/tests/ptsynth-corpus/go) =>           42ee05 runtime.runOpenDeferFrame+0x1a5 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006738420:          1           branches:u:   return                           42ee7b runtime.runOpenDeferFrame+0x21b (/work/main/build/tests/ptsynth-corpus/go) =>           42f252 runtime.gopanic+0x212 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006740830:          1           branches:u:   call                             42f52c runtime.gopanic+0x4ec (/work/main/build/tests/ptsynth-corpus/go) =>           457820 runtime.mcall+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006741260:          1           branches:u:   call                             457860 runtime.mcall+0x40 (/work/main/build/tests/ptsynth-corpus/go) =>           42f9e0 runtime.recovery+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006741600:          1           branches:u:   call                             42fa46 runtime.recovery+0x66 (/work/main/build/tests/ptsynth-corpus/go) =>           457800 runtime.gogo.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006741600:          1           branches:u:   jmp                              45780c runtime.gogo.abi0+0xc (/work/main/build/tests/ptsynth-corpus/go) =>           456a20 gogo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006742040:          1           branches:u:   jmp                              456a5e gogo+0x3e (/work/main/build/tests/ptsynth-corpus/go) =>           460b08 main.recovered+0x88 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006742440:          1           branches:u:   return                           460b1b main.recovered+0x9b (/work/main/build/tests/ptsynth-corpus/go) =>           460d5a main.main+0x1ba (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006742620:          1           branches:u:   return                           460d80 main.main+0x1e0 (/work/main/build/tests/ptsynth-corpus/go) =>           432092 runtime.main+0x212 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006742740:          1           branches:u:   call                             4320e4 runtime.main+0x264 (/work/main/build/tests/ptsynth-corpus/go) =>           45b0a0 runtime.exit.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.006742840:          1           branches:u:   tr end  syscall                  45b0a9 runtime.exit.abi0+0x9 (/work/main/build/tests/ptsynth-corpus/go) =>                0 [unknown] ([unknown])
--- args
--no-spread
--- expect
SPAN start=1000.006736330 end=1000.006736330 tid=21905 depth=1 kind=function flags=- address=0x457800 name="runtime.gogo.abi0"
SPAN start=1000.006736330 end=1000.006736520 tid=21905 depth=1 kind=function flags=- address=0x456a20 name="gogo"
SPAN start=1000.006734040 end=1000.006736520 tid=21905 depth=0 kind=function flags=- address=0x436da0 name="runtime.execute"
SPAN start=1000.006733870 end=1000.006736520 tid=21905 depth=-1 kind=function flags=INFERRED address=0x438680 name="runtime.schedule"
SPAN start=1000.006733870 end=1000.006733870 tid=21905 depth=0 kind=function flags=INFERRED address=0x436f20 name="runtime.findRunnable"
SPAN start=1000.006737790 end=1000.006738090 tid=21905 depth=2 kind=function flags=- address=0x460b40 name="main.recovered.func1"
SPAN start=1000.006737380 end=1000.006738200 tid=21905 depth=1 kind=function flags=- address=0x42ef60 name="runtime.deferCallSave"
SPAN start=1000.006741600 end=1000.006741600 tid=21905 depth=2 kind=function flags=- address=0x457800 name="runtime.gogo.abi0"
SPAN start=1000.006741600 end=1000.006742040 tid=21905 depth=2 kind=function flags=- address=0x456a20 name="gogo"
SPAN start=1000.006741260 end=1000.006742040 tid=21905 depth=1 kind=function flags=- address=0x42f9e0 name="runtime.recovery"
SPAN start=1000.006740830 end=1000.006742040 tid=21905 depth=0 kind=function flags=- address=0x457820 name="runtime.mcall"
SPAN start=1000.006742840 end=1000.006742840 tid=21905 depth=-2 kind=syscall flags=OPEN address=0x0 name="[syscall]"
SPAN start=1000.006742740 end=1000.006742840 tid=21905 depth=-3 kind=function flags=OPEN address=0x45b0a0 name="runtime.exit.abi0"
SPAN start=1000.006736520 end=1000.006742840 tid=21905 depth=-4 kind=function flags=INFERRED|OPEN address=0x431e80 name="runtime.main"
SPAN start=1000.006736520 end=1000.006742620 tid=21905 depth=-3 kind=function flags=INFERRED address=0x460ba0 name="main.main"
SPAN start=1000.006736520 end=1000.006742440 tid=21905 depth=-2 kind=function flags=INFERRED address=0x460a80 name="main.recovered"
SPAN start=1000.006736520 end=1000.006742040 tid=21905 depth=-1 kind=function flags=INFERRED address=0x42f040 name="runtime.gopanic"
SPAN start=1000.006736520 end=1000.006738420 tid=21905 depth=0 kind=function flags=INFERRED address=0x42ec60 name="runtime.runOpenDeferFrame"
