# The parser's hint (the last branch's target symbol and DSO, common/perfline.h mt_perf_parse_line_hinted) taken only where the text is exactly SYM+0xHEX (DSO) with both equal: the same symbol in a DSO of the same length but other name, 17 offset digits, a symbol the hint's is a prefix of, two blanks before '=>', an empty offset, a DSO that is the hint's plus a byte, DSO paths holding ' (' (never a hint), trailing ilen/insn columns, [unknown] symbols and DSOs. Records as the parser without hints makes them.
--- input
 4242/4242   1234.567891000:          1                                branches:uH:   call                           401076 main+0x26 (/lib/a.so) =>           4011c0 work+0x0 (/lib/x.so)
 4242/4242   1234.567891001:          1                                branches:uH:   jcc                            4011c4 work+0x4 (/lib/y.so) =>           4011d0 work+0x10 (/lib/z.so)
 4242/4242   1234.567891002:          1                                branches:uH:   jmp                            4011d4 work+0x11111111111111111 (/lib/z.so) =>           4011e0 work+0x20 (/lib/z.so)
 4242/4242   1234.567891003:          1                                branches:uH:   jmp                            4011e4 workk+0x24 (/lib/z.so) =>           4011f0 work+0x30 (/lib/z.so)
 4242/4242   1234.567891004:          1                                branches:uH:   jmp                            4011f4 work+0x34 (/lib/z.so)  =>           401200 work+0x40 (/lib/z.so)
 4242/4242   1234.567891005:          1                                branches:uH:   jmp                            401204 work+0x44 (/lib/z.so) =>           401210 work+0x (/lib/z.so)
 4242/4242   1234.567891006:          1                                branches:uH:   jmp                            401214 work+0x54 (/lib/z.sox) =>           401220 work+0x60 (/lib/z.sox)
 4242/4242   1234.567891007:          1                                branches:uH:   return                         401224 work+0x64 (/lib/z.sox) =>           401080 main+0x30 (/opt/my (v2)/app)
 4242/4242   1234.567891008:          1                                branches:uH:   call                           401084 main+0x34 (/opt/my (v2)/app) =>           4011c0 work+0x0 (/opt/my (v2)/app)
 4242/4242   1234.567891009:          1                                branches:uH:   return                         4011c4 work+0x4 (/opt/my (v2)/app) =>           401088 main+0x38 (/opt/my (v2)/app) ilen: 1 insn: c3
 4242/4242   1234.567891010:          1                                branches:uH:   call                           40108c main+0x3c (/opt/my (v2)/app) =>           4011c0 [unknown] (/lib/x.so)
 4242/4242   1234.567891011:          1                                branches:uH:   jmp                            4011c4 [unknown] (/lib/x.so) =>           4011d0 [unknown] ([unknown])
--- expect
THREAD pid=4242 tid=4242 comm=- time=1234.567891000
BRANCH time=1234.567891000 pid=4242 tid=4242 cpu=- kind=call flags=- from=0x401076 "main"+0x26 "/lib/a.so" to=0x4011c0 "work"+0x0 "/lib/x.so"
BRANCH time=1234.567891001 pid=4242 tid=4242 cpu=- kind=jcc flags=- from=0x4011c4 "work"+0x4 "/lib/y.so" to=0x4011d0 "work"+0x10 "/lib/z.so"
BRANCH time=1234.567891002 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x4011d4 "work+0x11111111111111111" "/lib/z.so" to=0x4011e0 "work"+0x20 "/lib/z.so"
BRANCH time=1234.567891003 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x4011e4 "workk"+0x24 "/lib/z.so" to=0x4011f0 "work"+0x30 "/lib/z.so"
BRANCH time=1234.567891004 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x4011f4 "work"+0x34 "/lib/z.so" to=0x401200 "work"+0x40 "/lib/z.so"
BRANCH time=1234.567891005 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x401204 "work"+0x44 "/lib/z.so" to=0x401210 "work+0x" "/lib/z.so"
BRANCH time=1234.567891006 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x401214 "work"+0x54 "/lib/z.sox" to=0x401220 "work"+0x60 "/lib/z.sox"
BRANCH time=1234.567891007 pid=4242 tid=4242 cpu=- kind=return flags=- from=0x401224 "work"+0x64 "/lib/z.sox" to=0x401080 "main"+0x30 "/opt/my (v2)/app"
BRANCH time=1234.567891008 pid=4242 tid=4242 cpu=- kind=call flags=- from=0x401084 "main"+0x34 "/opt/my (v2)/app" to=0x4011c0 "work"+0x0 "/opt/my (v2)/app"
BRANCH time=1234.567891009 pid=4242 tid=4242 cpu=- kind=return flags=- from=0x4011c4 "work"+0x4 "/opt/my (v2)/app" to=0x401088 "main"+0x38 "/opt/my (v2)/app"
BRANCH time=1234.567891010 pid=4242 tid=4242 cpu=- kind=call flags=- from=0x40108c "main"+0x3c "/opt/my (v2)/app" to=0x4011c0 - "/lib/x.so"
BRANCH time=1234.567891011 pid=4242 tid=4242 cpu=- kind=jmp flags=- from=0x4011c4 - "/lib/x.so" to=0x4011d0 - -
