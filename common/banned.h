/*
 * Functions mt does not use, as git's banned.h: string copies that do not
 * know the size of their destination. Included last by every .c file, so a
 * use fails to compile. Use memcpy with a known length, snprintf, or
 * struct mt_buf instead.
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
