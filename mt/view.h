/*
 * mt view: serve one trace file to the Perfetto UI over HTTP on 127.0.0.1
 * (mt/view.c).
 */
#ifndef MT_VIEW_H
#define MT_VIEW_H

/*
 * Run "mt view" with argc/argv starting at the word "view"; usage is mt's
 * whole usage text (for --help and usage errors). Returns the exit status;
 * dies (die.h) on usage and system errors.
 */
int mt_view(int argc, char **argv, const char *usage);

#endif
