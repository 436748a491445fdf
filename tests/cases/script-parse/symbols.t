# Symbols and DSOs as perf prints them raw: C++ templates with spaces and commas, OCaml names with '=', made-up names holding ' => ' and '+' (magic-trace's tests), [unknown] with and without a DSO, DSO paths with spaces, a wrapped PLT offset, kernel addresses, no sym column, trailing ilen/insn columns, a C++ sample line without event column; and, laid out as perf 6.1 prints them, C++ names with parentheses, Rust trait impls and closures, a PLT name with spaces, a DSO path holding " (".
--- input
 25375/25375 4509191.343298468:   call                     7f6fce0b71f4 __clock_gettime+0x24 =>     7ffd193838e0 __vdso_clock_gettime+0x0
 25375/25375 4509191.343298468:   tr strt                             0 [unknown] =>     7f6fce0b71d0 __clock_gettime+0x0
 7166/7166  4512623.871133092:   call                           9bc6db a::B<a::C, a::D<a::E>, a::F, a::F, G::H, a::I>::run+0x1eb =>           9f68b0 J::K<int, std::string>+0x0
2017001/2017001 761439.053336670:   call                     56234f77576b Base.Comparable.=_2352+0xb =>     56234f4bc7a0 caml_apply2+0x0
2118573/2118573 770614.599007116:   tr strt tr end                      0 [unknown] =>           4591e1 [unknown]
2017001/2017001 761439.053336670:   call                     56234f77576b x => +0xb =>     56234f4bc7a0 caml_apply2+0x0
2017001/2017001 761439.053336670:   call                     56234f77576b x => +0xb =>     56234f4bc7a0 => +0x0
2017001/2017001 761439.053336670:   call                     56234f77576b + +0xb =>     56234f4bc7a0 caml_apply2+0x0
957410/957410 1154506.531823215:   jmp                           708540b [unknown] =>          7084ef0 tan@plt+0xfffffffffef9b000
3435768/3435768 1283684.240499276:   int                      556263730105 v8::base::OS::Abort+0x15 =>     556263608d40 v8::internal::Snapshot::DefaultSnapshotBlob+0x57e00
2017001/2017001 761439.053336670:                                branches:uH:   call                     56234f77576b [unknown] (this is a spaced dso.so) =>     56234f4bc7a0 caml_apply2+0x0 (foo.so)
 908741/908741  1743654.262808407:          1                                 branches:ku:   tr strt jmp                           0 [unknown] ([unknown]) => ffffffffc0273dae bpf_prog_53d3a4e7d75d896d_sys_exit+0xfe (bpf_prog_53d3a4e7d75d896d_sys_exit)
1518114/1518114 [062] 513961.572230317:  branches:u:   call                       7f5459d6c443 =>     7f5459d6d140
1518114/1518114 [062] 513961.572226468:  branches:u:   tr strt jmp                           0 =>     7f5459d6c440
 4242/4242   1234.567891660:                                    401076 main+0x26 (/opt/demo/bp) =>           4011c0 work+0x0 (/opt/demo/bp) ilen: 5 insn: e8 45 01 00 00
18807/18807   848.173921324:      557301f541e0 ns::W<int, std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > > >::run+0x4c (/opt/demo/cpp)
  7166/7166  4512623.871133092:          1                                branches:uH:   call                       55d0d6ecd7bc std::function<void (int)>::operator()(int) const+0x12 (/usr/lib/libfoo.so) =>     55d0d6ecd800 <alloc::vec::Vec<T> as core::ops::drop::Drop>::drop+0x0 (/opt/my app (v2)/bin/app)
  7166/7166  4512623.871133092:          1                                branches:uH:   call                       55d0d6ecd7bc tokio::runtime::task::{{closure}}+0x1f (/opt/app) =>     55d0d6ecd800 operator new(unsigned long)@plt+0x0 (/opt/app)
--- expect
THREAD pid=25375 tid=25375 comm=- time=4509191.343298468
BRANCH time=4509191.343298468 pid=25375 tid=25375 cpu=- kind=call flags=- from=0x7f6fce0b71f4 "__clock_gettime"+0x24 - to=0x7ffd193838e0 "__vdso_clock_gettime"+0x0 -
BRANCH time=4509191.343298468 pid=25375 tid=25375 cpu=- kind=none flags=BEGIN from=0x0 - - to=0x7f6fce0b71d0 "__clock_gettime"+0x0 -
THREAD pid=7166 tid=7166 comm=- time=4512623.871133092
BRANCH time=4512623.871133092 pid=7166 tid=7166 cpu=- kind=call flags=- from=0x9bc6db "a::B<a::C, a::D<a::E>, a::F, a::F, G::H, a::I>::run"+0x1eb - to=0x9f68b0 "J::K<int, std::string>"+0x0 -
THREAD pid=2017001 tid=2017001 comm=- time=761439.053336670
BRANCH time=761439.053336670 pid=2017001 tid=2017001 cpu=- kind=call flags=- from=0x56234f77576b "Base.Comparable.=_2352"+0xb - to=0x56234f4bc7a0 "caml_apply2"+0x0 -
THREAD pid=2118573 tid=2118573 comm=- time=770614.599007116
BRANCH time=770614.599007116 pid=2118573 tid=2118573 cpu=- kind=none flags=BEGIN|END from=0x0 - - to=0x4591e1 - -
BRANCH time=761439.053336670 pid=2017001 tid=2017001 cpu=- kind=call flags=- from=0x56234f77576b "x => "+0xb - to=0x56234f4bc7a0 "caml_apply2"+0x0 -
BRANCH time=761439.053336670 pid=2017001 tid=2017001 cpu=- kind=call flags=- from=0x56234f77576b "x => "+0xb - to=0x56234f4bc7a0 "=> "+0x0 -
BRANCH time=761439.053336670 pid=2017001 tid=2017001 cpu=- kind=call flags=- from=0x56234f77576b "+ "+0xb - to=0x56234f4bc7a0 "caml_apply2"+0x0 -
THREAD pid=957410 tid=957410 comm=- time=1154506.531823215
BRANCH time=1154506.531823215 pid=957410 tid=957410 cpu=- kind=jmp flags=- from=0x708540b - - to=0x7084ef0 "tan@plt"+0xfffffffffef9b000 -
THREAD pid=3435768 tid=3435768 comm=- time=1283684.240499276
BRANCH time=1283684.240499276 pid=3435768 tid=3435768 cpu=- kind=int flags=- from=0x556263730105 "v8::base::OS::Abort"+0x15 - to=0x556263608d40 "v8::internal::Snapshot::DefaultSnapshotBlob"+0x57e00 -
BRANCH time=761439.053336670 pid=2017001 tid=2017001 cpu=- kind=call flags=- from=0x56234f77576b - "this is a spaced dso.so" to=0x56234f4bc7a0 "caml_apply2"+0x0 "foo.so"
THREAD pid=908741 tid=908741 comm=- time=1743654.262808407
BRANCH time=1743654.262808407 pid=908741 tid=908741 cpu=- kind=none flags=BEGIN from=0x0 - - to=0xffffffffc0273dae "bpf_prog_53d3a4e7d75d896d_sys_exit"+0xfe "bpf_prog_53d3a4e7d75d896d_sys_exit"
THREAD pid=1518114 tid=1518114 comm=- time=513961.572230317
BRANCH time=513961.572230317 pid=1518114 tid=1518114 cpu=62 kind=call flags=- from=0x7f5459d6c443 - - to=0x7f5459d6d140 - -
BRANCH time=513961.572226468 pid=1518114 tid=1518114 cpu=62 kind=none flags=BEGIN from=0x0 - - to=0x7f5459d6c440 - -
THREAD pid=4242 tid=4242 comm=- time=1234.567891660
BRANCH time=1234.567891660 pid=4242 tid=4242 cpu=- kind=none flags=NOFLAGS from=0x401076 "main"+0x26 "/opt/demo/bp" to=0x4011c0 "work"+0x0 "/opt/demo/bp"
THREAD pid=18807 tid=18807 comm=- time=848.173921324
SAMPLE time=848.173921324 pid=18807 tid=18807 cpu=- flags=- period=0 event=- nframes=1 frames=[0x557301f541e0 "ns::W<int, std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > > >::run"+0x4c "/opt/demo/cpp"]
BRANCH time=4512623.871133092 pid=7166 tid=7166 cpu=- kind=call flags=- from=0x55d0d6ecd7bc "std::function<void (int)>::operator()(int) const"+0x12 "/usr/lib/libfoo.so" to=0x55d0d6ecd800 "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop"+0x0 "/opt/my app (v2)/bin/app"
BRANCH time=4512623.871133092 pid=7166 tid=7166 cpu=- kind=call flags=- from=0x55d0d6ecd7bc "tokio::runtime::task::{{closure}}"+0x1f "/opt/app" to=0x55d0d6ecd800 "operator new(unsigned long)@plt"+0x0 "/opt/app"
