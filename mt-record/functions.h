/*
 * The functions that the uprobe and patch backends trace (--functions
 * REGEX): the selection over a file's symbols, shared by mt-record and the
 * uprobe engine's test driver (tests/helpers-uprobe/uprobe-rec.c), so that
 * the t09xx tests probe what mt-record would. How a file's symbols are read
 * and which path opens it are the caller's (struct fn_files); the
 * selection only reads them. The caller owns every struct here; the
 * names kept (struct fn_names) are malloced and freed by
 * fn_names_release(). Failures die through die.h with mt-record's
 * messages and exit codes.
 */
#ifndef MT_RECORD_FUNCTIONS_H
#define MT_RECORD_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "procsyms.h"
#include "uprobe.h"

/* Without a regex, at most this many functions of the executable (the
 * uprobe backend's: each probe costs microseconds a call). */
#define FN_DEFAULT_MAX 64
/* At most this many functions of shared libraries in all. */
#define FN_LIBRARY_MAX 256

/* How the selection reaches the files: the caller's. */
struct fn_files {
	/*
	 * Lends *f the symbols of path (its table (*f)->t is what the
	 * selection reads, never changes nor releases); must (the
	 * executable): dies when it cannot; else 0, or a negative MT_E*
	 * code (the file is then not probed).
	 */
	int (*read_symbols)(void *ctx, const struct mt_symfile **f, const char *path, int must);
	/* A path that opens the file named path, for mt_uprobe_add():
	 * malloced (the selection frees it); dies when out of memory. */
	char *(*open_path)(void *ctx, const char *path);
	void *ctx;
};

/* The names of the functions probed, in the order probed. { 0 } is
 * empty. */
struct fn_names {
	char **v;
	size_t n, cap;
};

/* Frees the names; n is empty again. */
void fn_names_release(struct fn_names *n);

/* Where the selection's functions go: add() is called for each, in
 * order; it dies when it cannot take one. */
struct fn_sink {
	/* function s (its name as in the file, file address, size: 0 when
	 * unknown) of the file path; alias is the symbol at its address
	 * that perf names it by (s itself, or another of its names); open
	 * is what opens the file (fn_files.open_path()), which add() may
	 * keep only by copying */
	void (*add)(void *ctx, const char *path, const char *open,
		    const struct mt_sym *s, const struct mt_sym *alias);
	void *ctx;
	/* a function the selection chose but that is a part of another
	 * (fn_part()): given here instead of to add(), with the reason; NULL:
	 * left out without a word */
	void (*part)(void *ctx, const char *path, const struct mt_sym *s, const char *why);
	/* the warnings about shared libraries speak of uprobes: every
	 * process that maps a library probed takes its traps */
	int uprobes;
};

struct fn_query {
	const char *regex;         /* --functions (PCRE2), or NULL: see below */
	const char *exe;           /* the executable: read with must; NULL:
				    * the libraries only */
	char *const *libs;         /* with a regex, shared libraries searched too
				    * (NULL-terminated), or NULL: none */
	const char *skip_path;     /* a function left out (the trigger, which
				    * its own engine probes): its file, or NULL */
	uint64_t skip_addr;        /* and its file address */
	const struct fn_files *files;
	struct fn_names *names;    /* the names chosen are appended, or NULL */
	size_t exe_max;            /* without a regex, at most this many of
				    * the executable (0: FN_DEFAULT_MAX) */
	size_t lib_max;            /* at most this many of libraries in all
				    * (0: FN_LIBRARY_MAX) */
};

/*
 * Why s, the symbol at index i of t (sorted by address), is no function of
 * its own but a part of another, entered by a jump: a name GCC gives such
 * parts (f.cold, mt_sym_name_is_part()), code its FDE says is not entered
 * by a call (MT_SYM_FDE_PART: a part, or an entry point), or an address
 * strictly inside the bytes of a function before it (reach: the greatest
 * end, address plus size, of the symbols at lower addresses). NULL when it is a
 * function. The word at the stack pointer where a part starts is the
 * enclosing frame's, no return address: a return probe or a patch there
 * would overwrite it.
 */
const char *fn_part(const struct mt_sym *s, uint64_t reach);

/*
 * Gives to sink the functions that q selects: of the executable and the
 * libraries, those one of whose names (as in the file, demangled, or as
 * perf prints it: demangle.h) the regex matches; without one, the
 * executable's own functions (not those whose demangled names start with
 * '_', frame_dummy nor [de]register_tm_clones; every one only an FDE
 * shows, MT_SYM_FDE), the first q->exe_max.
 * PLT entries (NAME@plt, as mt_symtab_read() names them) only when the
 * regex's text holds "@plt" (a call through one would otherwise count
 * twice: its entry, then the function); never a part of another function
 * (fn_part(): to sink->part instead); never a JIT symbol or an address
 * twice in a row (aliases); never a function only an FDE shows in a file
 * that holds libgcc's unwinder (_Unwind_RaiseException: its unnamed
 * uw_init_context_1 reads its own return address); never more than
 * q->lib_max of libraries. Warns about what was left out (and, for
 * uprobes, about every library probed). Returns how many were given: 0 when none (the caller says so,
 * in its words). Dies (usage) on a regex that does not compile, as
 * sink->add() does, and as files->read_symbols() does on the executable.
 */
size_t fn_select(const struct fn_sink *sink, const struct fn_query *q);

/* fn_select() into u (mt_uprobe_add(), entry and return probes): dies
 * through die_up() when u refuses one. */
size_t fn_add_functions(struct mt_uprobe *u, const struct fn_query *q);

/* Dies (system) with the failure err of u, naming u->what: a missing
 * privilege said as such. */
void die_up(const struct mt_uprobe *u, int err) __attribute__((noreturn));

#endif
