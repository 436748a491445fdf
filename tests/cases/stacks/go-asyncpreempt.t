# Go, real perf lines: asynchronous preemption. A SIGURG handler (runtime.sigtramp) interrupts time.init; its rt_sigreturn resumes at runtime.asyncPreempt, which the handler made the goroutine call: a frame under time.init. It parks through mcall (gopreempt_m, schedule); the scheduler resumes a goroutine in asyncPreempt2 (the same one, which the branches cannot tell): a new segment, whose returns reveal asyncPreempt and time.init again.
--- input
              go 21905/21905  1000.003934560:          1           branches:u:   return                           40b5d0 runtime.newobject+0x30 (/work/main/build/tests/ptsynth-corpus/go) =>           45ee15 time.init+0x275 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003934590:          1           branches:u:   tr end  async                    45ee1d time.init+0x27d (/work/main/build/tests/ptsynth-corpus/go) =>                0 [unknown] ([unknown])
              go 21905/21905  1000.003934620:          1           branches:u:   tr strt                               0 [unknown] ([unknown]) =>           45b4e0 runtime.sigtramp.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003934620:          1           branches:u:   call                             45b521 runtime.sigtramp.abi0+0x41 (/work/main/build/tests/ptsynth-corpus/go) =>           4426e0 runtime.sigtrampgo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003936690:          1           branches:u:   call                             44288f runtime.sigtrampgo+0x1af (/work/main/build/tests/ptsynth-corpus/go) =>           442ce0 runtime.sighandler+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003970520:          1           branches:u:   return                           443294 runtime.sighandler+0x5b4 (/work/main/build/tests/ptsynth-corpus/go) =>           442894 runtime.sigtrampgo+0x1b4 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003970820:          1           branches:u:   return                           4428fc runtime.sigtrampgo+0x21c (/work/main/build/tests/ptsynth-corpus/go) =>           45b526 runtime.sigtramp.abi0+0x46 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003970990:          1           branches:u:   return                           45b54b runtime.sigtramp.abi0+0x6b (/work/main/build/tests/ptsynth-corpus/go) =>           45b620 runtime.sigreturn.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003971030:          1           branches:u:   tr end  syscall                  45b627 runtime.sigreturn.abi0+0x7 (/work/main/build/tests/ptsynth-corpus/go) =>                0 [unknown] ([unknown])
              go 21905/21905  1000.003971050:          1           branches:u:   tr strt                               0 [unknown] ([unknown]) =>           45ae40 runtime.asyncPreempt.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003971050:          1           branches:u:   call                             45af16 runtime.asyncPreempt.abi0+0xd6 (/work/main/build/tests/ptsynth-corpus/go) =>           45bd00 runtime.asyncPreempt2.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003971050:          1           branches:u:   jmp                              45bd0d runtime.asyncPreempt2.abi0+0xd (/work/main/build/tests/ptsynth-corpus/go) =>           430b40 runtime.asyncPreempt2+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003971900:          1           branches:u:   call                             430b7a runtime.asyncPreempt2+0x3a (/work/main/build/tests/ptsynth-corpus/go) =>           457820 runtime.mcall+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003972260:          1           branches:u:   call                             457860 runtime.mcall+0x40 (/work/main/build/tests/ptsynth-corpus/go) =>           439000 runtime.gopreempt_m+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003972400:          1           branches:u:   call                             439050 runtime.gopreempt_m+0x50 (/work/main/build/tests/ptsynth-corpus/go) =>           438ca0 runtime.goschedImpl+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003980180:          1           branches:u:   call                             438d60 runtime.goschedImpl+0xc0 (/work/main/build/tests/ptsynth-corpus/go) =>           438680 runtime.schedule+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003980310:          1           branches:u:   call                             4386b8 runtime.schedule+0x38 (/work/main/build/tests/ptsynth-corpus/go) =>           436980 runtime.stoplockedm+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003992180:          1           branches:u:   return                           436a33 runtime.stoplockedm+0xb3 (/work/main/build/tests/ptsynth-corpus/go) =>           4386bd runtime.schedule+0x3d (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003992180:          1           branches:u:   call                             4386d2 runtime.schedule+0x52 (/work/main/build/tests/ptsynth-corpus/go) =>           436da0 runtime.execute+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003994250:          1           branches:u:   call                             436ed7 runtime.execute+0x137 (/work/main/build/tests/ptsynth-corpus/go) =>           457800 runtime.gogo.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003994250:          1           branches:u:   jmp                              45780c runtime.gogo.abi0+0xc (/work/main/build/tests/ptsynth-corpus/go) =>           456a20 gogo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003994760:          1           branches:u:   jmp                              456a5e gogo+0x3e (/work/main/build/tests/ptsynth-corpus/go) =>           430b7f runtime.asyncPreempt2+0x3f (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003994830:          1           branches:u:   return                           430b94 runtime.asyncPreempt2+0x54 (/work/main/build/tests/ptsynth-corpus/go) =>           45af1b runtime.asyncPreempt.abi0+0xdb (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003995580:          1           branches:u:   return                           45afee runtime.asyncPreempt.abi0+0x1ae (/work/main/build/tests/ptsynth-corpus/go) =>           45ee1d time.init+0x27d (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21905  1000.003995700:          1           branches:u:   call                             45ee5a time.init+0x2ba (/work/main/build/tests/ptsynth-corpus/go) =>           40b5a0 runtime.newobject+0x0 (/work/main/build/tests/ptsynth-corpus/go)
--- args
--no-spread
--- expect
SPAN start=1000.003934590 end=1000.003934620 tid=21905 depth=0 kind=untraced flags=- address=0x0 name="[untraced]"
SPAN start=1000.003936690 end=1000.003970520 tid=21905 depth=2 kind=function flags=- address=0x442ce0 name="runtime.sighandler"
SPAN start=1000.003934620 end=1000.003970990 tid=21905 depth=0 kind=function flags=- address=0x45b4e0 name="runtime.sigtramp.abi0"
SPAN start=1000.003934620 end=1000.003970820 tid=21905 depth=1 kind=function flags=- address=0x4426e0 name="runtime.sigtrampgo"
SPAN start=1000.003971030 end=1000.003971050 tid=21905 depth=0 kind=syscall flags=- address=0x0 name="[syscall]"
SPAN start=1000.003980310 end=1000.003992180 tid=21905 depth=6 kind=function flags=- address=0x436980 name="runtime.stoplockedm"
SPAN start=1000.003994250 end=1000.003994250 tid=21905 depth=7 kind=function flags=- address=0x457800 name="runtime.gogo.abi0"
SPAN start=1000.003994250 end=1000.003994760 tid=21905 depth=7 kind=function flags=- address=0x456a20 name="gogo"
SPAN start=1000.003992180 end=1000.003994760 tid=21905 depth=6 kind=function flags=- address=0x436da0 name="runtime.execute"
SPAN start=1000.003980180 end=1000.003994760 tid=21905 depth=5 kind=function flags=- address=0x438680 name="runtime.schedule"
SPAN start=1000.003972400 end=1000.003994760 tid=21905 depth=4 kind=function flags=- address=0x438ca0 name="runtime.goschedImpl"
SPAN start=1000.003972260 end=1000.003994760 tid=21905 depth=3 kind=function flags=- address=0x439000 name="runtime.gopreempt_m"
SPAN start=1000.003971900 end=1000.003994760 tid=21905 depth=2 kind=function flags=- address=0x457820 name="runtime.mcall"
SPAN start=1000.003971050 end=1000.003994760 tid=21905 depth=0 kind=function flags=- address=0x45ae40 name="runtime.asyncPreempt.abi0"
SPAN start=1000.003971050 end=1000.003971050 tid=21905 depth=1 kind=function flags=- address=0x45bd00 name="runtime.asyncPreempt2.abi0"
SPAN start=1000.003971050 end=1000.003994760 tid=21905 depth=1 kind=function flags=- address=0x430b40 name="runtime.asyncPreempt2"
SPAN start=1000.003934560 end=1000.003994760 tid=21905 depth=-1 kind=function flags=INFERRED address=0x45eba0 name="time.init"
SPAN start=1000.003934560 end=1000.003934560 tid=21905 depth=0 kind=function flags=INFERRED address=0x40b5a0 name="runtime.newobject"
SPAN start=1000.003995700 end=1000.003995700 tid=21905 depth=-1 kind=function flags=OPEN address=0x40b5a0 name="runtime.newobject"
SPAN start=1000.003994760 end=1000.003995700 tid=21905 depth=-2 kind=function flags=INFERRED|OPEN address=0x45eba0 name="time.init"
SPAN start=1000.003994760 end=1000.003995580 tid=21905 depth=-1 kind=function flags=INFERRED address=0x45ae40 name="runtime.asyncPreempt.abi0"
SPAN start=1000.003994760 end=1000.003994830 tid=21905 depth=0 kind=function flags=INFERRED address=0x430b40 name="runtime.asyncPreempt2"
