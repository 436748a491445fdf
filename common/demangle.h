/*
 * Demangled names of symbols, the one naming of every tool: C++ (Itanium
 * ABI) and Rust (legacy and v0) names through libiberty's cplus_demangle
 * (link -liberty -lpcre2-8: mt_demangle_match() takes a regex.h pattern),
 * OCaml names as perf demangles them. Nothing is printed; the strings
 * returned are malloced and the caller's to free.
 *
 * Two styles of the same demangling:
 *   MT_DEMANGLE_FULL  with parameter types and clone suffixes, as
 *                     mt-symbols prints them (and c++filt, but for the
 *                     standard abbreviations: std::string, not
 *                     std::basic_string<char, ...>):
 *                       app::Server::lookup(unsigned long)
 *                       app::Box<long>::get() const [clone .isra.0]
 *   MT_DEMANGLE_PERF  the name perf 6.1 prints for the symbol (perf script's
 *                     sym field, perf probe -F): cplus_demangle without
 *                     options, so no parameter list, no qualifiers and no
 *                     clone suffix of the function itself (a local entity
 *                     keeps its enclosing function's: spin(int)::{lambda(int)#1}::operator()),
 *                     Rust hashes dropped:
 *                       app::Server::lookup
 *                       app::Box<long>::get
 *                       r::app::Server::lookup        (_ZN1r3app6Server6lookup17h...E)
 *                       <r::app::Server>::lookup      (v0: _RNvMNtCs..._1r3appNtB2_6Server6lookup)
 *                     Traces name functions this way, whichever backend
 *                     recorded them.
 * In both styles a PLT entry's "NAME@plt" is NAME demangled, then "@plt"
 * (as perf names them); an OCaml name, "caml" and an upper-case letter,
 * loses "caml", "__" becomes '.' and "$XX" the byte of hex XX
 * (camlStdlib__bytes__$2b$2b_2205 is Stdlib.bytes.++_2205), when libiberty
 * does not demangle it. Other names (C, Go, ...) are not mangled. perf's
 * demangling of Java names (those holding ')') is not done.
 */
#ifndef MT_DEMANGLE_H
#define MT_DEMANGLE_H

#include "regex.h"

enum mt_demangle_style {
	MT_DEMANGLE_FULL,
	MT_DEMANGLE_PERF,
};

/*
 * The demangled name in style, malloced; NULL when name is not mangled,
 * does not demangle, or memory ran out (libiberty does not tell these
 * apart): the name is then shown as it is.
 */
char *mt_demangle(const char *name, enum mt_demangle_style style);

/*
 * Whether the symbol mangled is known by name: its name as in the file,
 * its MT_DEMANGLE_FULL name or its MT_DEMANGLE_PERF name, compared as
 * plain text. full is its MT_DEMANGLE_FULL name when the caller has it,
 * or NULL (it is then demangled here). 1 or 0.
 */
int mt_demangle_is(const char *mangled, const char *full, const char *name);

/*
 * Whether r (which must hold a pattern) matches anywhere in one of the
 * three names of the symbol mangled (as mt_demangle_is()). 1 or 0.
 */
int mt_demangle_match(const struct mt_regex *r, const char *mangled,
		      const char *full);

#endif
