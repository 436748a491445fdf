/*
 * The symbols of mapped files: struct mt_symfile, one ELF file's symbol
 * table (common/symtab) with those of its separate debug file merged in;
 * struct mt_procsyms, a running process's mappings from /proc/PID/maps and
 * the files it maps executable, each with its symbols and load bias.
 * Links -lelf -lz (through symtab.c). Nothing is printed; errors are MT_E*
 * codes (err.h), with errno kept where the code says so.
 *
 * Ownership: a struct mt_symfile owns its table, its debug path and dwfd;
 * mt_symfile_release() frees and closes them. A struct mt_procsyms owns
 * its arrays, every path in them and each file's mt_symfile;
 * mt_procsyms_release() frees them all. Zeroed structs are not valid:
 * use the _INIT macros or _init functions (dwfd is -1).
 */
#ifndef MT_PROCSYMS_H
#define MT_PROCSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symtab.h"

/* One ELF file's symbols, with its separate debug file's, and names for
 * the functions only its FDEs show (mt_symtab_add_fdes()). */
struct mt_symfile {
	struct mt_symtab t;
	char *debug;    /* the separate debug file found (merged or not),
			 * malloced, or NULL */
	int debug_err;  /* 0, or why debug was not merged: an error of
			 * mt_symtab_merge (MT_EMISMATCH: of another build) */
	int dwfd;       /* with MT_SYMFILE_DWARF: a descriptor of the file
			 * whose DWARF to read (the debug file when it was
			 * merged, else a dup of the file's when the file has
			 * .debug_info; close-on-exec), or -1 */
};

#define MT_SYMFILE_INIT { MT_SYMTAB_INIT, NULL, 0, -1 }

/* mt_symfile_read() flags */
enum {
	/* Look for the debug file also when the file has a .symtab but no
	 * .debug_info, and set dwfd (DWARF wanted: source lines). */
	MT_SYMFILE_DWARF = 1
};

void mt_symfile_init(struct mt_symfile *f);
/* Frees the table and debug, closes dwfd; f is empty and reusable. */
void mt_symfile_release(struct mt_symfile *f);

/*
 * Read the ELF file open on fd, which the caller names path (the debug
 * file is searched for beside it, see mt_symtab_find_debug), into f, which
 * must be empty. When the file has no .symtab (or, with MT_SYMFILE_DWARF,
 * no .debug_info), its separate debug file is looked for in dirs (ndirs of
 * them, may be NULL when ndirs is 0) and the standard places, and its
 * symbols merged (mt_symtab_merge); a debug file that does not fit sets
 * debug and debug_err and is not used, one that is not found is no error.
 * Then the functions that only .eh_frame shows are named
 * (mt_symtab_add_fdes(): PATH_BASE+0xADDR, PATH_BASE the base name of
 * path without a deleted file's " (deleted)").
 * fd is read with pread and not closed.
 *
 * Returns the number of symbols of f->t afterwards, or an error of
 * mt_symtab_read (MT_EMAGIC, MT_ECORRUPT, MT_EIO with errno, ...; no debug
 * file is looked for then), or MT_ENOMEM, also when memory ran out finding
 * or merging the debug file (then debug names it if it was found). On
 * error f->t is empty.
 */
int mt_symfile_read(struct mt_symfile *f, int fd, const char *path,
		    const char *const *dirs, size_t ndirs, unsigned flags);

/* The same, the debug file searched in root (mt_symtab_find_debug_at():
 * MT_ROOT_OWN, or a traced process's root, path and dirs as it sees
 * them). */
int mt_symfile_read_at(struct mt_symfile *f, int fd, int root, const char *path,
		       const char *const *dirs, size_t ndirs, unsigned flags);

/* One line of /proc/PID/maps. */
struct mt_procmap {
	uint64_t start, end;  /* its addresses, end excluded */
	uint64_t pgoff;       /* the file offset it maps from */
	int exec;             /* mapped executable */
	char *path;           /* as the kernel names it: a path (a deleted
			       * file's ends in " (deleted)"), "[vdso]",
			       * "[heap]", ..., "" when anonymous */
	size_t file;          /* its file in files[] (an executable mapping
			       * with a path), or MT_PROCSYMS_NOFILE */
};

#define MT_PROCSYMS_NOFILE ((size_t)-1)

/* A file (a path of the maps) that the process maps executable. */
struct mt_procfile {
	char *path;           /* as the maps name it */
	size_t map;           /* its first executable mapping, in maps[] */
	uint64_t start, end, pgoff; /* that mapping's */
	int vdso;             /* "[vdso]": its image is read from the
			       * process's memory */
	/* set by mt_procsyms_load(): */
	int loaded;           /* 0 not tried, 1 read, else the error */
	struct mt_symfile sym;
	int placed;           /* 1 when bias is known */
	uint64_t bias;        /* runtime address - file address */
	uint64_t code_end;    /* end of its last executable segment in the
			       * process when placed (a regular file), else
			       * end: the addresses its code may hold */
};

struct mt_procsyms {
	pid_t pid;
	struct mt_procmap *maps;   /* every mapping, in the maps' order */
	size_t nmaps, capmaps;
	struct mt_procfile *files; /* in the order of their first
				    * executable mapping, each path once */
	size_t nfiles, capfiles;
};

#define MT_PROCSYMS_INIT { 0, NULL, 0, 0, NULL, 0, 0 }

/* Size of a buffer for mt_procsyms_link(). */
#define MT_PROCSYMS_LINK_SIZE 80

void mt_procsyms_init(struct mt_procsyms *ps);
void mt_procsyms_release(struct mt_procsyms *ps);

/*
 * Read the mappings of process pid from /proc/PID/maps into ps, which must
 * be empty; lines that do not parse are passed over. Symbols are not read
 * (mt_procsyms_load). Returns the number of files, or
 *   MT_ENOENT      no such process (errno ENOENT or ESRCH, kept)
 *   MT_EIO         the maps could not be opened (errno kept)
 *   MT_ETRUNCATED  reading them failed (errno kept); ps holds the mappings
 *                  read before (the process may be exiting)
 *   MT_ENOMEM      out of memory
 * On the other errors ps is left empty.
 */
int mt_procsyms_read(struct mt_procsyms *ps, pid_t pid);

/*
 * "/proc/PID/map_files/START-END" for mapping m of ps, into buf
 * (MT_PROCSYMS_LINK_SIZE bytes): a link that opens the mapped file even
 * once it was deleted (following it needs CAP_SYS_ADMIN).
 */
void mt_procsyms_link(const struct mt_procsyms *ps, const struct mt_procmap *m,
		      char *buf);

/* The first mapping (executable or not) whose path is path, or NULL. */
const struct mt_procmap *mt_procsyms_map_of(const struct mt_procsyms *ps,
					    const char *path);

/* The index in files[] of the file path, or MT_ENOENT. */
int mt_procsyms_find(const struct mt_procsyms *ps, const char *path);

/*
 * Read the symbols of file i of ps once into its sym (later calls return
 * the first one's result) and place it: a regular file is opened as the
 * process sees it, through the link of its first executable mapping
 * (mt_procsyms_link), else (the link cannot be followed: no
 * CAP_SYS_ADMIN, or the file is no longer mapped) by its path in the
 * process's root (mt_proc_root), with mt_open_regular() either way, and
 * read by mt_symfile_read_at in that root (dirs, ndirs, flags as there);
 * its bias is that of its first executable mapping (mt_symtab_bias), and
 * code_end covers its executable segments. [vdso] is read from
 * /proc/PID/mem. A file that has no segment at its mapping's offset is
 * left unplaced (placed 0, bias 0), as is one without segments. Opened
 * with the caller's credentials: a caller that acts for another user
 * takes that user's first (mt-record/target-open.h).
 *
 * Returns the number of symbols, or the errors of mt_symfile_read, or
 *   MT_ENOENT  the file could not be opened by either name, or the
 *              process's root could not be (errno kept)
 *   MT_ENOTREG, MT_EFBIG, MT_EIO  of mt_open_regular()
 *   MT_EIO     [vdso] could not be read from the process's memory
 *   MT_EINVAL  i is out of range, or the file is another pseudo-file
 *              ([vsyscall], ...)
 */
int mt_procsyms_load(struct mt_procsyms *ps, size_t i,
		     const char *const *dirs, size_t ndirs, unsigned flags);

/*
 * The same for a regular file i that the caller opened (fd, read with
 * pread and not closed), its debug file searched in root as by
 * mt_symfile_read_at(): for a caller that opens the process's files its
 * own way. Returns as mt_procsyms_load() (MT_EINVAL for [vdso]).
 */
int mt_procsyms_load_fd(struct mt_procsyms *ps, size_t i, int fd, int root,
			const char *const *dirs, size_t ndirs, unsigned flags);

/*
 * Where the file address addr of file i is in the process, t the file's
 * table (&files[i].sym.t once loaded, or one the caller read): for each
 * executable mapping of the file in turn, its bias (mt_symtab_bias); the
 * first that puts addr inside that mapping. 0 and *rt set, or MT_ENOENT
 * (in no mapping), MT_EINVAL (i out of range).
 */
int mt_procsyms_runtime(const struct mt_procsyms *ps, size_t i,
			const struct mt_symtab *t, uint64_t addr, uint64_t *rt);

#endif
