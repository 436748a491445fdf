/*
 * Functions mt does not use, as git's banned.h: string copies that do not
 * know the size of their destination. Use memcpy with a known length,
 * snprintf, or struct mt_buf instead.
 *
 * Included last by every .c file of the tools, common/ and the plug-ins
 * (the patch runtime's as "../../common/banned.h": its hooks are built
 * without -Icommon), and of the tests' unit tests, helpers, fuzzers and
 * benchmarks, so a use fails to compile. Not by the programs the tests
 * trace that are built as any program is, with none of mt's headers: the
 * sources of tests/ptsynth/corpus/, tests/progs/plugin.c and throwy-c.c
 * (the other programs of tests/progs/ include it).
 * To check: git grep -L banned.h -- '*.c'
 */
#ifndef MT_BANNED_H
#define MT_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_mt

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#endif
