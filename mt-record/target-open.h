/*
 * The files of mt-record's target (target.h), opened as it sees them and
 * with no more than its rights: mt-record -p runs as root against the
 * processes of other users, who choose what their process maps, where,
 * and what its libraries' .gnu_debuglink names (docs/patch.md, "The
 * files mt-record opens for a traced process").
 * Every read of the target's files by every backend goes through here.
 *
 * Which file. A file the target maps is opened through the kernel's link
 * to a mapping of it, the very file mapped even once deleted or replaced:
 * /proc/PID/exe for the executable, else /proc/PID/map_files/START-END
 * (following that needs CAP_SYS_ADMIN: without it, or once the file is
 * no longer mapped, the next way); else (a file it does not map now) by
 * its path resolved in the target's root: mt-record's own when the target
 * shares its mount namespace (the kernel writes the maps' paths relative
 * to the reader's root: they are mt-record's paths then), else
 * /proc/PID/root, absolute symbolic links and ".." kept inside it
 * (mt_proc_root(), mt_open_regular()). Separate debug files are searched
 * in that root too. Only regular files are opened (mt_open_regular(): a
 * FIFO, a device or a link to one is not, a debug file's CRC is read up
 * to its size).
 *
 * With which rights. Around those opens and the debug search the calling
 * thread takes the target's filesystem credentials (its fsuid, fsgid and
 * groups, read from /proc/PID/status once, when its view is taken) and
 * then puts its own back (common/fscreds.h: that thread only). mt-record
 * running as the target's user changes nothing so; one that may not take
 * them (not root, tracing another user's process with CAP_SYS_PTRACE)
 * opens as itself: it may read the process's memory anyway.
 *
 * The target's view is taken at the first open once the target runs: for
 * -p at target_check_target() (which dies when it cannot be: the
 * process's root or status unreadable), for a command once released.
 * With pid 0 (no target yet, --input) and for a command still held
 * before its execve (it is mt-record then), paths are mt-record's own,
 * opened with its credentials, regular files only; so for a command
 * whose view cannot be taken any more (it ended).
 *
 * Failures die through die.h where said; else MT_E* codes.
 */
#ifndef MT_RECORD_TARGET_OPEN_H
#define MT_RECORD_TARGET_OPEN_H

#include <stdint.h>

#include "procsyms.h"

struct target;

/* Allocates t's view (not taken yet); dies when out of memory. */
void target_view_init(struct target *t);

/* Takes the view of t->pid now; dies (system) when it cannot, saying
 * why. */
void target_view_take(struct target *t);

/* Frees t's view (closes its root), and t's view is none. */
void target_view_release(struct target *t);

/*
 * Whether the name of a mapped file, as the kernel gives it in
 * /proc/PID/maps and its mmap events, says that the file was deleted
 * since it was mapped (or replaced by a rename, as a package upgrade
 * does): the name no longer opens it.
 */
int is_deleted(const char *name);

/*
 * A path that the kernel resolves (in mt-record's namespace) to the file
 * tgt maps under name (as /proc/PID/maps names it), for a uprobe: name
 * itself, or, for a deleted file or one of a target in another mount
 * namespace, the kernel's link to the inode mapped: /proc/PID/exe for
 * the executable, else /proc/PID/map_files/START-END of a mapping of it
 * (which only CAP_SYS_ADMIN may follow, as uprobes need). Malloced; dies
 * when out of memory.
 */
char *inode_path(const struct target *tgt, const char *name);

/*
 * Opens the file tgt maps, or would see, under name (see above): the
 * descriptor, or MT_ENOENT (errno), MT_ENOTREG, MT_EFBIG, MT_EIO
 * (mt_open_regular()).
 */
int target_open(const struct target *tgt, const char *name);

/*
 * The symbols of path (a file tgt maps), with those of its separate debug
 * file when it has no .symtab (mt_symfile_read_at() in the target's
 * root): *f is lent the target's table of path, read at the first call
 * and kept until target_symbols_forget(tgt) (the caller never releases
 * or changes it, nor keeps it past that). must: die when it cannot be
 * read (naming path and why: "not a regular file", the link of a deleted
 * one); else 0, or the negative MT_E* code with *f an empty table.
 */
int read_symbols(const struct target *tgt, const struct mt_symfile **f, const char *path,
		 int must);

/* Forgets (releases) what read_symbols() read of tgt: a target released,
 * or its files changed (an exec). */
void target_symbols_forget(const struct target *tgt);

/*
 * The same for the uprobe engine (uprobe.h opts.symbols: arg is tgt),
 * without dying: source, unless NULL, is the /proc link the engine opens
 * path by. 0 or the MT_E* code.
 */
int target_symbols_via(void *arg, struct mt_symfile *f, const char *path,
		       const char *source);

/*
 * The separate debug file of path (a file of tgt, its table t), searched
 * as the target sees it (mt_symtab_find_debug_at()): the descriptor, or
 * MT_ENOENT, MT_ENOMEM.
 */
int target_find_debug(const struct target *tgt, const struct mt_symtab *t,
		      const char *path);

/* mt_procsyms_load() of file i of ps (the maps of tgt->pid), the file
 * opened as above. */
int target_procsyms_load(const struct target *tgt, struct mt_procsyms *ps, size_t i);

/*
 * The addresses in tgt->pid of the functions names[0 .. n) of a library
 * it maps whose file name starts with base ("libc.so."; or the whole path
 * when base has a '/'; of several, the first that has it): each found
 * goes to out[k] where out[k] is 0 (the others are left as they are).
 * The process's maps and each library's symbols are read once for all.
 * How many it set.
 */
size_t target_symbols(const struct target *tgt, const char *base, const char *const *names,
		      size_t n, uint64_t *out);

/*
 * The files other than the executable that tgt->pid maps executable,
 * each once, in address order: a NULL-terminated array of paths, all
 * malloced (free_paths frees it).
 */
char **mapped_libraries(const struct target *tgt);

/* Frees a NULL-terminated array of malloced paths. */
void free_paths(char **v);

#endif
