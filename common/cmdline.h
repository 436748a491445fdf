/*
 * Programs and command lines, for the tools (tool tier: libmttool.a, like
 * die.h): finding a program as execvp(3) would, and printing a command
 * line so that a shell reads back the same words.
 */
#ifndef MT_CMDLINE_H
#define MT_CMDLINE_H

#include <stdio.h>

/*
 * The path of the executable regular file that execvp(3) would run for
 * name: name itself when it holds a '/', else the first PATH directory
 * that has it (an empty entry is the current directory; no PATH:
 * /usr/local/bin:/usr/bin:/bin). Malloced; NULL when there is none (or
 * memory ran out).
 */
char *mt_which(const char *name);

/* Print s to f as a shell reads it back as one word: as it is when it
 * holds only characters no shell treats specially, else single-quoted. */
void mt_shell_quote(FILE *f, const char *s);

#endif
