/*
 * The libraries mt-record loads or has loaded (mt-dlfilter.so into perf,
 * libmt-patch.so into the traced process): found beside this program.
 */
#ifndef MT_RECORD_LIBPATH_H
#define MT_RECORD_LIBPATH_H

/* The library name next to this program, in ../lib/mt/ from it (make
 * install) or in ../lib/ (the build tree): a malloc'ed absolute path, or
 * NULL when there is none. Dies (system) when out of memory. */
char *mt_lib_path(const char *name);

#endif
