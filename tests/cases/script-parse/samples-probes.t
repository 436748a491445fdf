# Sampling and task lines recorded on this project's machine (perf 6.1): cpu-clock samples with and without event column, callchain samples (header, tab-indented frames, blank line), uprobe entry/return samples with and without ip/sym columns, PERF_RECORD_COMM (thread names; time 0 means unknown), skipped MMAP/EXIT records, a tod column (one wallclock mark).
--- input
          target 10468   481.494056:     100000 cpu-clock:  ffffffff8160a945 do_mmap+0x1a5 ([kernel.kallsyms])
          target 10468   481.494164:     100000 cpu-clock:  ffffffff8133cb5c native_set_p4d+0x2c ([kernel.kallsyms])
          target 10468   481.493921: PERF_RECORD_COMM exec: target:10468/10468
          target 10468   481.716039: PERF_RECORD_EXIT(10468:10468):(10454:10454)
          target 10978 [001]   487.666290:         probe_target:work: (55a8696c0260)
          target 10978 [001]   487.666290:         probe_target:work: (55a8696c0260)
          target 10978 [001]   487.666382: probe_target:work__return: (55a8696c0260 <- 55a8696c0275)
          target 10978 [001]   487.666388:         probe_target:work: (55a8696c0260)
          target 10978 [001]   487.666404: probe_target:work__return: (55a8696c0260 <- 55a8696c0275)
          target 10978/10978 [001]   487.666290387:         probe_target:work: (55a8696c0260)     55a8696c0260 work+0x0 (/opt/demo/target)
          target 10978/10978 [001]   487.666382261: probe_target:work__return: (55a8696c0260 <- 55a8696c0275)     55a8696c0275 outer+0x5 (/opt/demo/target)
10978/10978   487.666290387:         probe_target:work:                              55a8696c0260 work+0x0 (/opt/demo/target)
10978/10978   487.666382261: probe_target:work__return:                              55a8696c0275 outer+0x5 (/opt/demo/target)
2026-11-29 20:54:01.629842857   903.126408882: probe_target:work:      5568c70bb260 work
1518114/1518114 [062] 513961.572140369: PERF_RECORD_MMAP2 1518114/1518114: [0x55d5329f8000(0x43000) @ 0x16000 <818137d5a9e8f63162a02db27e7cfd9855cd726d>]: r-xp /tmp/pt_fixture
      0/0           0.000000: PERF_RECORD_MMAP2 1628569/1628569: [0x55df1ee10000(0x9a53000) @ 0x3006000 <ce01977e9f17c5e8323104ea77396ae310b404ad>]: r-xp /usr/share/cursor/cursor
         swapper     0/0     [000]     0.000000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276f48) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
          target 13308/13308 2026-11-29 20:48:28.592622740   570.089188111:  ffffffff82256576 copy_mc_enhanced_fast_string
          target 13308/13308 2026-11-29 20:48:28.593617495   570.090182866:      560fb1b55275 outer
2060126/2060126 178090.391624068:     555555 cycles:u:
	ffffffff97201100 [unknown] ([unknown])
	7f9bd48c1d80 _dl_setup_hash+0x0 (/usr/lib64/ld-2.28.so)
	7f9bd48bd18f _dl_map_object_from_fd+0xb8f (/usr/lib64/ld-2.28.so)
	4008de main+0x87 (/home/demo)
647317/647317 529215.810279538:     100000 cpu-clock:uH: 
	         687bd57 check_action_pending+0x7 (redacted)
	         684ddfd caml_thread_restore_runtime_state+0x151 (redacted)
	         684de81 caml_thread_leave_blocking_section+0xd (redacted)

3871580/3871580 430720.265503976:         50                   cache-misses/period=50/u:                                      0     7fca9945c595 __sleep+0x55 (/usr/lib64/libc-2.28.so)
--- expect
THREAD pid=- tid=10468 comm="target" time=481.494056000
SAMPLE time=481.494056000 pid=- tid=10468 cpu=- flags=- period=100000 event="cpu-clock" nframes=1 frames=[0xffffffff8160a945 "do_mmap"+0x1a5 "[kernel.kallsyms]"]
SAMPLE time=481.494164000 pid=- tid=10468 cpu=- flags=- period=100000 event="cpu-clock" nframes=1 frames=[0xffffffff8133cb5c "native_set_p4d"+0x2c "[kernel.kallsyms]"]
THREAD pid=10468 tid=10468 comm="target" time=481.493921000
THREAD pid=- tid=10978 comm="target" time=487.666290000
BRANCH time=487.666290000 pid=- tid=10978 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x55a8696c0260 "work"+0x0 -
BRANCH time=487.666290000 pid=- tid=10978 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x55a8696c0260 "work"+0x0 -
BRANCH time=487.666382000 pid=- tid=10978 cpu=1 kind=return flags=PROBE from=0x55a8696c0260 "work"+0x0 - to=0x55a8696c0275 - -
BRANCH time=487.666388000 pid=- tid=10978 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x55a8696c0260 "work"+0x0 -
BRANCH time=487.666404000 pid=- tid=10978 cpu=1 kind=return flags=PROBE from=0x55a8696c0260 "work"+0x0 - to=0x55a8696c0275 - -
THREAD pid=10978 tid=10978 comm="target" time=487.666290387
BRANCH time=487.666290387 pid=10978 tid=10978 cpu=1 kind=call flags=PROBE from=0x0 - - to=0x55a8696c0260 "work"+0x0 "/opt/demo/target"
BRANCH time=487.666382261 pid=10978 tid=10978 cpu=1 kind=return flags=PROBE from=0x55a8696c0260 "work"+0x0 "/opt/demo/target" to=0x55a8696c0275 "outer"+0x5 "/opt/demo/target"
BRANCH time=487.666290387 pid=10978 tid=10978 cpu=- kind=call flags=PROBE from=0x0 - - to=0x55a8696c0260 "work"+0x0 "/opt/demo/target"
BRANCH time=487.666382261 pid=10978 tid=10978 cpu=- kind=return flags=PROBE from=0x0 "work" "/opt/demo/target" to=0x55a8696c0275 "outer"+0x5 "/opt/demo/target"
MARK time=903.126408882 pid=- tid=- cpu=- kind=wallclock flags=- value=1795985641629842857 ip=0x0 name="tod" text="2026-11-29 20:54:01.629842857"
BRANCH time=903.126408882 pid=- tid=- cpu=- kind=call flags=PROBE from=0x0 - - to=0x5568c70bb260 "work" -
THREAD pid=13308 tid=13308 comm="target" time=570.089188111
SAMPLE time=570.089188111 pid=13308 tid=13308 cpu=- flags=- period=0 event=- nframes=1 frames=[0xffffffff82256576 "copy_mc_enhanced_fast_string" -]
SAMPLE time=570.090182866 pid=13308 tid=13308 cpu=- flags=- period=0 event=- nframes=1 frames=[0x560fb1b55275 "outer" -]
THREAD pid=2060126 tid=2060126 comm=- time=178090.391624068
SAMPLE time=178090.391624068 pid=2060126 tid=2060126 cpu=- flags=- period=555555 event="cycles" nframes=4 frames=[0xffffffff97201100 - -, 0x7f9bd48c1d80 "_dl_setup_hash"+0x0 "/usr/lib64/ld-2.28.so", 0x7f9bd48bd18f "_dl_map_object_from_fd"+0xb8f "/usr/lib64/ld-2.28.so", 0x4008de "main"+0x87 "/home/demo"]
THREAD pid=647317 tid=647317 comm=- time=529215.810279538
SAMPLE time=529215.810279538 pid=647317 tid=647317 cpu=- flags=- period=100000 event="cpu-clock" nframes=3 frames=[0x687bd57 "check_action_pending"+0x7 "redacted", 0x684ddfd "caml_thread_restore_runtime_state"+0x151 "redacted", 0x684de81 "caml_thread_leave_blocking_section"+0xd "redacted"]
THREAD pid=3871580 tid=3871580 comm=- time=430720.265503976
SAMPLE time=430720.265503976 pid=3871580 tid=3871580 cpu=- flags=- period=50 event="cache-misses" nframes=1 frames=[0x7fca9945c595 "__sleep"+0x55 "/usr/lib64/libc-2.28.so"]
--- stderr
4 lines skipped:
1 PERF_RECORD_EXIT lines
2 PERF_RECORD_MMAP2 lines
1 PERF_RECORD_MMAP lines
