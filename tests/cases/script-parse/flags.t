# 
--- input
364691/364691 62709.735347729:                            1   branches:uH:   call                           40bc5a itch_bbo::book::Book::delete_order+0x3ca (foo.so) =>           40a550 remove_leaf_kv+0x0 (foo.so)
364691/364691 62709.735347733:                            1   branches:uH:   return                   7ffff73277b6 __memmove_avx_unaligned_erms+0x86 (foo.so) =>           40a5b5 remove_leaf_kv+0x65 (foo.so)
364691/364691 62709.735347729:                            1   branches:uH:   jcc                            40baef itch_bbo::book::Book::delete_order+0x25f (foo.so) =>           40bb1b itch_bbo::book::Book::delete_order+0x28b (foo.so)
364691/364691 62709.735347701:                            1   branches:uH:   jmp                            40bb19 itch_bbo::book::Book::delete_order+0x289 (foo.so) =>           40bab9 itch_bbo::book::Book::delete_order+0x229 (foo.so)
1907478/1909463 457407.880965552:          1                                branches:uH:   int                      564aa58813d4 Builtins_RunMicrotasks+0x554 (/usr/local/bin/workload) =>     564aa584fa00 Builtins_Call_ReceiverIsNotNullOrUndefined+0x0 (/usr/local/bin/workload)
1439745/1439745 2472089.651286160:                            1   branches:uH:   iret                 ffffffffae2010a7 native_irq_return_iret+0x0 (foo.so) =>     7f5948676e18 _fini+0x0 (foo.so)
3871580/3871580 431345.585701781:          1                                branches:uH:   tr end  syscall          7fca9992cdd9 munmap+0x9 (/usr/lib64/ld-2.28.so) =>                0 [unknown] ([unknown])
4589/4589  108652.292047140:                            1   branches:uH:   call                             d447a5 caml_thread_yield+0x25 (foo.exe) =>           d4dd10 caml_raise_async_if_exception+0x0 (foo.exe)
364691/364691 62709.735347806:                            1   branches:uH:   tr strt                             0 [unknown] (foo.so) =>     7ffff7327786 __memmove_avx_unaligned_erms+0x56 (foo.so)
 25375/25375 4509191.343298468:                            1   branches:uH:   tr strt jmp                         0 [unknown] (foo.so) =>     7f6fce0b71d0 __clock_gettime+0x0 (foo.so)
 25375/25375 4509191.343298468:                            1   branches:uH:   tr end  async                     7f6fce0b71f4 [unknown] (foo.so) =>     0 [unknown] ([unknown])
3871580/3871580 431345.585701781:          1                                branches:uH:   tr end  syscall          7fca9992cdd9 munmap+0x9 (/usr/lib64/ld-2.28.so) =>                0 [unknown] ([unknown])
1540946/1540946 253318.380313216:          1 branches:uH:   tr end  jcc                ffff81fd9cb4 __GI___tunables_init+0xe4 (/usr/lib/ld-linux-aarch64.so.1) =>                0 [unknown] ([unknown])
2118573/2118573 770614.599007116:                                branches:uH:   tr strt tr end                      0 [unknown] (foo.so) =>           4591e1 [unknown] (foo.so)
3871580/3871580 431345.585713273:          1                                branches:uH:   tr end                   7fca99947438 _dl_load_cache_lookup+0x168 (/usr/lib64/ld-2.28.so) =>                0 [unknown] ([unknown])
681400/681400 2065408.180095842:   hw int                   7faea66c0a6e _dl_map_object_from_fd+0xc4e => ffffffffae200ab0 asm_exc_page_fault+0x0
681400/681400 2065408.180097250:   syscall                  7faea66dbbf9 __GI___close_nocancel+0x9 => ffffffffae200000 __entry_text_start+0x0
   tsc_msrs_test 18436 [007] 10897.962087836:      branches:   vmentry                ffffffffc13b2f82 vmx_vmenter+0x2 (vmlinux) =>                0 [unknown] ([unknown])
   [guest/18436] 18436 [007] 10897.962088248:      branches:   vmexit                           40dba0 ucall+0x0 (/home/user/git/work/tools/testing/selftests/kselftest_install/kvm/tsc_msrs_test) =>                0 [unknown] ([unknown])
1439745/1439745 2472089.651286160:                            1   branches:uH:  sysret                ffffffffae2010a7 entry_SYSRETQ_unsafe_stack+0x3 (foo.so) =>     7f5948676e18 __GI___getpid+0x8 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  tx abrt           (x)     564aa58813d4 lock_elision+0x14 (foo.so) =>     564aa58813a0 lock_elision+0x0 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  call              (x)     564aa58813d4 lock_elision+0x14 (foo.so) =>     564aa5881500 work+0x0 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  return           (xD)     564aa5881510 work+0x10 (foo.so) =>     564aa58813d9 lock_elision+0x19 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  hw int            (t)     564aa5881510 work+0x10 (foo.so) => ffffffffae200ab0 asm_exc_page_fault+0x0 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  tr end  jmp               564aa5881510 work+0x10 (foo.so) =>                0 [unknown] ([unknown])
1439745/1439745 2472089.651286160:                            1   branches:uH:  jcc /miss/                564aa5881510 work+0x10 (foo.so) =>     564aa5881520 work+0x20 (foo.so)
1439745/1439745 2472089.651286160:                            1   branches:uH:  bcrA                      564aa5881510 work+0x10 (foo.so) =>     564aa5881520 work+0x20 (foo.so)
--- expect
THREAD pid=364691 tid=364691 comm=- time=62709.735347729
BRANCH time=62709.735347729 pid=364691 tid=364691 cpu=- kind=call flags=- from=0x40bc5a "itch_bbo::book::Book::delete_order"+0x3ca "foo.so" to=0x40a550 "remove_leaf_kv"+0x0 "foo.so"
BRANCH time=62709.735347733 pid=364691 tid=364691 cpu=- kind=return flags=- from=0x7ffff73277b6 "__memmove_avx_unaligned_erms"+0x86 "foo.so" to=0x40a5b5 "remove_leaf_kv"+0x65 "foo.so"
BRANCH time=62709.735347729 pid=364691 tid=364691 cpu=- kind=jcc flags=- from=0x40baef "itch_bbo::book::Book::delete_order"+0x25f "foo.so" to=0x40bb1b "itch_bbo::book::Book::delete_order"+0x28b "foo.so"
BRANCH time=62709.735347701 pid=364691 tid=364691 cpu=- kind=jmp flags=- from=0x40bb19 "itch_bbo::book::Book::delete_order"+0x289 "foo.so" to=0x40bab9 "itch_bbo::book::Book::delete_order"+0x229 "foo.so"
THREAD pid=1907478 tid=1909463 comm=- time=457407.880965552
BRANCH time=457407.880965552 pid=1907478 tid=1909463 cpu=- kind=int flags=- from=0x564aa58813d4 "Builtins_RunMicrotasks"+0x554 "/usr/local/bin/workload" to=0x564aa584fa00 "Builtins_Call_ReceiverIsNotNullOrUndefined"+0x0 "/usr/local/bin/workload"
THREAD pid=1439745 tid=1439745 comm=- time=2472089.651286160
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=iret flags=- from=0xffffffffae2010a7 "native_irq_return_iret"+0x0 "foo.so" to=0x7f5948676e18 "_fini"+0x0 "foo.so"
THREAD pid=3871580 tid=3871580 comm=- time=431345.585701781
BRANCH time=431345.585701781 pid=3871580 tid=3871580 cpu=- kind=syscall flags=END from=0x7fca9992cdd9 "munmap"+0x9 "/usr/lib64/ld-2.28.so" to=0x0 - -
THREAD pid=4589 tid=4589 comm=- time=108652.292047140
BRANCH time=108652.292047140 pid=4589 tid=4589 cpu=- kind=call flags=- from=0xd447a5 "caml_thread_yield"+0x25 "foo.exe" to=0xd4dd10 "caml_raise_async_if_exception"+0x0 "foo.exe"
BRANCH time=62709.735347806 pid=364691 tid=364691 cpu=- kind=none flags=BEGIN from=0x0 - "foo.so" to=0x7ffff7327786 "__memmove_avx_unaligned_erms"+0x56 "foo.so"
THREAD pid=25375 tid=25375 comm=- time=4509191.343298468
BRANCH time=4509191.343298468 pid=25375 tid=25375 cpu=- kind=none flags=BEGIN from=0x0 - "foo.so" to=0x7f6fce0b71d0 "__clock_gettime"+0x0 "foo.so"
BRANCH time=4509191.343298468 pid=25375 tid=25375 cpu=- kind=async flags=END from=0x7f6fce0b71f4 - "foo.so" to=0x0 - -
BRANCH time=431345.585701781 pid=3871580 tid=3871580 cpu=- kind=syscall flags=END from=0x7fca9992cdd9 "munmap"+0x9 "/usr/lib64/ld-2.28.so" to=0x0 - -
THREAD pid=1540946 tid=1540946 comm=- time=253318.380313216
BRANCH time=253318.380313216 pid=1540946 tid=1540946 cpu=- kind=jcc flags=END from=0xffff81fd9cb4 "__GI___tunables_init"+0xe4 "/usr/lib/ld-linux-aarch64.so.1" to=0x0 - -
THREAD pid=2118573 tid=2118573 comm=- time=770614.599007116
BRANCH time=770614.599007116 pid=2118573 tid=2118573 cpu=- kind=none flags=BEGIN|END from=0x0 - "foo.so" to=0x4591e1 - "foo.so"
BRANCH time=431345.585713273 pid=3871580 tid=3871580 cpu=- kind=none flags=END from=0x7fca99947438 "_dl_load_cache_lookup"+0x168 "/usr/lib64/ld-2.28.so" to=0x0 - -
THREAD pid=681400 tid=681400 comm=- time=2065408.180095842
BRANCH time=2065408.180095842 pid=681400 tid=681400 cpu=- kind=hwint flags=- from=0x7faea66c0a6e "_dl_map_object_from_fd"+0xc4e - to=0xffffffffae200ab0 "asm_exc_page_fault"+0x0 -
BRANCH time=2065408.180097250 pid=681400 tid=681400 cpu=- kind=syscall flags=- from=0x7faea66dbbf9 "__GI___close_nocancel"+0x9 - to=0xffffffffae200000 "__entry_text_start"+0x0 -
THREAD pid=- tid=18436 comm="tsc_msrs_test" time=10897.962087836
BRANCH time=10897.962087836 pid=- tid=18436 cpu=7 kind=vmentry flags=- from=0xffffffffc13b2f82 "vmx_vmenter"+0x2 "vmlinux" to=0x0 - -
THREAD pid=- tid=18436 comm="[guest/18436]" time=10897.962088248
BRANCH time=10897.962088248 pid=- tid=18436 cpu=7 kind=vmexit flags=- from=0x40dba0 "ucall"+0x0 "/home/user/git/work/tools/testing/selftests/kselftest_install/kvm/tsc_msrs_test" to=0x0 - -
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=sysret flags=- from=0xffffffffae2010a7 "entry_SYSRETQ_unsafe_stack"+0x3 "foo.so" to=0x7f5948676e18 "__GI___getpid"+0x8 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=txabort flags=INTX from=0x564aa58813d4 "lock_elision"+0x14 "foo.so" to=0x564aa58813a0 "lock_elision"+0x0 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=call flags=INTX from=0x564aa58813d4 "lock_elision"+0x14 "foo.so" to=0x564aa5881500 "work"+0x0 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=return flags=INTX|INTRDIS from=0x564aa5881510 "work"+0x10 "foo.so" to=0x564aa58813d9 "lock_elision"+0x19 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=hwint flags=INTRTOG from=0x564aa5881510 "work"+0x10 "foo.so" to=0xffffffffae200ab0 "asm_exc_page_fault"+0x0 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=none flags=END from=0x564aa5881510 "work"+0x10 "foo.so" to=0x0 - -
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=jcc flags=MISS from=0x564aa5881510 "work"+0x10 "foo.so" to=0x564aa5881520 "work"+0x20 "foo.so"
BRANCH time=2472089.651286160 pid=1439745 tid=1439745 cpu=- kind=txabort flags=- from=0x564aa5881510 "work"+0x10 "foo.so" to=0x564aa5881520 "work"+0x20 "foo.so"
