# Decoder errors (with and without time, ip 0, code 8 is lost data, cpu numbers) and synthesized events (cbr with a flags word and double spaces, psb, ptwrite; old perf without an event column).
--- input
 instruction trace error type 1 cpu -1 pid 293415 tid 293415 ip 0x7ffff7327730 code 7: Overflow packet
 instruction trace error type 1 time 2651115.104731379 cpu -1 pid 1801680 tid 1801680 ip 0 code 8: Lost trace data
 instruction trace error type 1 time 406036.830210719 cpu -1 pid 114362 tid 114362 ip 0xffffffffb0999ed5 code 10: Never-ending loop (refer perf config intel-pt.max-loops)
 instruction trace error type 1 time 47170.086912826 cpu -1 pid 293415 tid 293415 ip 0x7ffff7327730 code 7: Overflow packet
 instruction trace error type 1 time 519322.048962186 cpu 54 pid 1620630 tid 1620631 ip 0x7f82230080c0 code 5: Failed to get instruction
3871580/3871580 431345.585701064:          1                                        psb:                        psb offs: 0                                     0     7fca993cdd22 __GI___printf_fp_l+0x1be2 (/usr/lib64/libc-2.28.so)
3871580/3871580 431345.585701064:          1                                        cbr:                        cbr: 47 freq: 4706 MHz (162%)                   0     7fca993cdd22 __GI___printf_fp_l+0x1be2 (/usr/lib64/libc-2.28.so)
3871580/3871580 431345.585783568:          1                                        psb:                        psb offs: 0x7700                                0                0 [unknown] ([unknown])
3871580/3871580 434242.821855667:          1                                        psb:                        psb offs: 0                                     0     7fca9993cb31 _dl_relocate_object+0x581 (/usr/lib64/ld-2.28.so)
3871580/3871580 434242.821855667:          1                                        cbr:                        cbr: 47 freq: 4706 MHz (162%)                   0     7fca9993cb31 _dl_relocate_object+0x581 (/usr/lib64/ld-2.28.so)
3871580/3871580 434242.821947975:          1                                        psb:                        psb offs: 0x6378                                0     7fca999394e5 _dl_map_object+0x15 (/usr/lib64/ld-2.28.so)
 2769074/2769293 2592496.569782106:          1                                        ptwrite:   call                   IP: 0 payload: 0x1b5                            0     55c7952ad2d0 [unknown] (foo.bin)
21302/21302 82318.700445693:         1           cbr:  tr end               cbr: 45 freq: 4500 MHz (118%)                   0          5368e58 __symbol+0x168 (/dev/foo.exe)
           eg_ptw 19875 [007]  8061.235912:     ptwrite:  IP: 0 payload: 0x1234567890abcdef      55701249a196 perf_emulate_ptwrite+0x16 (/home/user/eg_ptw)
--- expect
ERROR time=- pid=293415 tid=293415 cpu=- class=decode ip=0x7ffff7327730 code=7 type=1 count=0 msg="Overflow packet"
ERROR time=2651115.104731379 pid=1801680 tid=1801680 cpu=- class=lost ip=0x0 code=8 type=1 count=0 msg="Lost trace data"
ERROR time=406036.830210719 pid=114362 tid=114362 cpu=- class=decode ip=0xffffffffb0999ed5 code=10 type=1 count=0 msg="Never-ending loop (refer perf config intel-pt.max-loops)"
ERROR time=47170.086912826 pid=293415 tid=293415 cpu=- class=decode ip=0x7ffff7327730 code=7 type=1 count=0 msg="Overflow packet"
ERROR time=519322.048962186 pid=1620630 tid=1620631 cpu=54 class=decode ip=0x7f82230080c0 code=5 type=1 count=0 msg="Failed to get instruction"
THREAD pid=3871580 tid=3871580 comm=- time=431345.585701064
MARK time=431345.585701064 pid=3871580 tid=3871580 cpu=- kind=psb flags=- value=0x0 ip=0x7fca993cdd22 name="psb" text="psb offs: 0"
MARK time=431345.585701064 pid=3871580 tid=3871580 cpu=- kind=cbr flags=- value=4706 ip=0x7fca993cdd22 name="cbr" text="cbr: 47 freq: 4706 MHz (162%)"
MARK time=431345.585783568 pid=3871580 tid=3871580 cpu=- kind=psb flags=- value=0x7700 ip=0x0 name="psb" text="psb offs: 0x7700"
MARK time=434242.821855667 pid=3871580 tid=3871580 cpu=- kind=psb flags=- value=0x0 ip=0x7fca9993cb31 name="psb" text="psb offs: 0"
MARK time=434242.821855667 pid=3871580 tid=3871580 cpu=- kind=cbr flags=- value=4706 ip=0x7fca9993cb31 name="cbr" text="cbr: 47 freq: 4706 MHz (162%)"
MARK time=434242.821947975 pid=3871580 tid=3871580 cpu=- kind=psb flags=- value=0x6378 ip=0x7fca999394e5 name="psb" text="psb offs: 0x6378"
THREAD pid=2769074 tid=2769293 comm=- time=2592496.569782106
MARK time=2592496.569782106 pid=2769074 tid=2769293 cpu=- kind=ptwrite flags=- value=0x1b5 ip=0x55c7952ad2d0 name="ptwrite" text="IP: 0 payload: 0x1b5"
THREAD pid=21302 tid=21302 comm=- time=82318.700445693
MARK time=82318.700445693 pid=21302 tid=21302 cpu=- kind=cbr flags=- value=4500 ip=0x5368e58 name="cbr" text="cbr: 45 freq: 4500 MHz (118%)"
THREAD pid=- tid=19875 comm="eg_ptw" time=8061.235912000
MARK time=8061.235912000 pid=- tid=19875 cpu=7 kind=ptwrite flags=- value=0x1234567890abcdef ip=0x55701249a196 name="ptwrite" text="IP: 0 payload: 0x1234567890abcdef"
