# Go, real perf lines: runtime.heapBits.initSpan needs a bigger stack: morestack_noctxt, morestack, and on g0 newstack, whose runtime.gogo resumes the same goroutine in initSpan, after the call to morestack. The frames from morestack up end there; initSpan's frame goes on (one span across the stack growth).
--- input
              go 21905/21908  1000.003255820:          1           branches:u:   call                             4126e6 runtime.(*mcentral).grow+0x106 (/work/main/build/tests/ptsynth-corpus/go) =>           40fea0 runtime.heapBits.initSpan+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003256390:          1           branches:u:   call                             40ffce runtime.heapBits.initSpan+0x12e (/work/main/build/tests/ptsynth-corpus/go) =>           4579e0 runtime.morestack_noctxt.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003256390:          1           branches:u:   jmp                              4579e5 runtime.morestack_noctxt.abi0+0x5 (/work/main/build/tests/ptsynth-corpus/go) =>           457940 runtime.morestack.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003256890:          1           branches:u:   call                             4579c6 runtime.morestack.abi0+0x86 (/work/main/build/tests/ptsynth-corpus/go) =>           45bf00 runtime.newstack.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003256890:          1           branches:u:   jmp                              45bf0d runtime.newstack.abi0+0xd (/work/main/build/tests/ptsynth-corpus/go) =>           446880 runtime.newstack+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003258890:          1           branches:u:   call                             4469af runtime.newstack+0x12f (/work/main/build/tests/ptsynth-corpus/go) =>           457800 runtime.gogo.abi0+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003258890:          1           branches:u:   jmp                              45780c runtime.gogo.abi0+0xc (/work/main/build/tests/ptsynth-corpus/go) =>           456a20 gogo+0x0 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003259580:          1           branches:u:   jmp                              456a5e gogo+0x3e (/work/main/build/tests/ptsynth-corpus/go) =>           40ffd3 runtime.heapBits.initSpan+0x133 (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003264040:          1           branches:u:   return                           40ff7b runtime.heapBits.initSpan+0xdb (/work/main/build/tests/ptsynth-corpus/go) =>           4126eb runtime.(*mcentral).grow+0x10b (/work/main/build/tests/ptsynth-corpus/go)
              go 21905/21908  1000.003264170:          1           branches:u:   return                           4126f9 runtime.(*mcentral).grow+0x119 (/work/main/build/tests/ptsynth-corpus/go) =>           412486 runtime.(*mcentral).cacheSpan+0x306 (/work/main/build/tests/ptsynth-corpus/go)
--- args
--no-spread
--- expect
SPAN start=1000.003256390 end=1000.003256390 tid=21908 depth=2 kind=function flags=- address=0x4579e0 name="runtime.morestack_noctxt.abi0"
SPAN start=1000.003256890 end=1000.003256890 tid=21908 depth=3 kind=function flags=- address=0x45bf00 name="runtime.newstack.abi0"
SPAN start=1000.003258890 end=1000.003258890 tid=21908 depth=4 kind=function flags=- address=0x457800 name="runtime.gogo.abi0"
SPAN start=1000.003258890 end=1000.003259580 tid=21908 depth=4 kind=function flags=- address=0x456a20 name="gogo"
SPAN start=1000.003256890 end=1000.003259580 tid=21908 depth=3 kind=function flags=- address=0x446880 name="runtime.newstack"
SPAN start=1000.003256390 end=1000.003259580 tid=21908 depth=2 kind=function flags=- address=0x457940 name="runtime.morestack.abi0"
SPAN start=1000.003255820 end=1000.003264170 tid=21908 depth=-1 kind=function flags=INFERRED|OPEN address=0x412180 name="runtime.(*mcentral).cacheSpan"
SPAN start=1000.003255820 end=1000.003264170 tid=21908 depth=0 kind=function flags=INFERRED address=0x4125e0 name="runtime.(*mcentral).grow"
SPAN start=1000.003255820 end=1000.003264040 tid=21908 depth=1 kind=function flags=- address=0x40fea0 name="runtime.heapBits.initSpan"
