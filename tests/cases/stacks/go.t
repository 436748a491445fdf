# Go: runtime.gogo jumps into a goroutine. Reached from the scheduler (runtime.schedule, runtime.execute; here execute tail-jumps to gogo), it starts a goroutine's run, and which goroutine the branches do not tell: every frame of the thread ends at the jump, and a new segment begins where it lands (main.worker, inferred, depth 0), whose returns would reveal its callers. A gogo with neither the scheduler nor runtime.mcall or runtime.morestack under it (main.worker tail-jumps to it) starts a new segment as well. (This case used to keep magic-trace's rule: unwind past mcall and its caller and let the new goroutine's code replace the frame below; ptsynth's Go-aware truth shows that wrong.)
--- input
   80/80    6.000000100:          1   branches:uH:   call                            440010 main.main+0x10 (/bin/goapp) =>           450000 runtime.chanrecv1+0x0 (/bin/goapp)
   80/80    6.000000110:          1   branches:uH:   call                            450010 runtime.chanrecv1+0x10 (/bin/goapp) =>           451000 runtime.gopark+0x0 (/bin/goapp)
   80/80    6.000000120:          1   branches:uH:   call                            451010 runtime.gopark+0x10 (/bin/goapp) =>           452000 runtime.mcall+0x0 (/bin/goapp)
   80/80    6.000000130:          1   branches:uH:   call                            452010 runtime.mcall+0x10 (/bin/goapp) =>           453000 runtime.park_m+0x0 (/bin/goapp)
   80/80    6.000000140:          1   branches:uH:   call                            453010 runtime.park_m+0x10 (/bin/goapp) =>           454000 runtime.schedule+0x0 (/bin/goapp)
   80/80    6.000000150:          1   branches:uH:   call                            454010 runtime.schedule+0x10 (/bin/goapp) =>           455000 runtime.execute+0x0 (/bin/goapp)
   80/80    6.000000160:          1   branches:uH:   jmp                             455010 runtime.execute+0x10 (/bin/goapp) =>           456000 runtime.gogo.abi0+0x0 (/bin/goapp)
   80/80    6.000000170:          1   branches:uH:   jmp                             456020 runtime.gogo.abi0+0x20 (/bin/goapp) =>           441040 main.worker+0x40 (/bin/goapp)
   80/80    6.000000180:          1   branches:uH:   call                            441050 main.worker+0x50 (/bin/goapp) =>           457000 main.step+0x0 (/bin/goapp)
   80/80    6.000000190:          1   branches:uH:   return                          457010 main.step+0x10 (/bin/goapp) =>           441055 main.worker+0x55 (/bin/goapp)
   80/80    6.000000200:          1   branches:uH:   jmp                             441060 main.worker+0x60 (/bin/goapp) =>           456000 runtime.gogo.abi0+0x0 (/bin/goapp)
   80/80    6.000000210:          1   branches:uH:   jmp                             456020 runtime.gogo.abi0+0x20 (/bin/goapp) =>           441040 main.other+0x40 (/bin/goapp)
--- expect
SPAN start=6.000000150 end=6.000000160 tid=80 depth=6 kind=function flags=- address=0x455000 name="runtime.execute"
SPAN start=6.000000160 end=6.000000170 tid=80 depth=6 kind=function flags=- address=0x456000 name="runtime.gogo.abi0"
SPAN start=6.000000140 end=6.000000170 tid=80 depth=5 kind=function flags=- address=0x454000 name="runtime.schedule"
SPAN start=6.000000130 end=6.000000170 tid=80 depth=4 kind=function flags=- address=0x453000 name="runtime.park_m"
SPAN start=6.000000120 end=6.000000170 tid=80 depth=3 kind=function flags=- address=0x452000 name="runtime.mcall"
SPAN start=6.000000110 end=6.000000170 tid=80 depth=2 kind=function flags=- address=0x451000 name="runtime.gopark"
SPAN start=6.000000100 end=6.000000170 tid=80 depth=0 kind=function flags=INFERRED address=0x440000 name="main.main"
SPAN start=6.000000100 end=6.000000170 tid=80 depth=1 kind=function flags=- address=0x450000 name="runtime.chanrecv1"
SPAN start=6.000000180 end=6.000000190 tid=80 depth=1 kind=function flags=- address=0x457000 name="main.step"
SPAN start=6.000000200 end=6.000000210 tid=80 depth=0 kind=function flags=- address=0x456000 name="runtime.gogo.abi0"
SPAN start=6.000000170 end=6.000000200 tid=80 depth=0 kind=function flags=INFERRED address=0x441000 name="main.worker"
SPAN start=6.000000210 end=6.000000210 tid=80 depth=0 kind=function flags=INFERRED|OPEN address=0x441000 name="main.other"
