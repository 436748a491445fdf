/*
 * What Linux tells of processes and CPUs in /proc and /sys, parsed: a line
 * of /proc/PID/maps, and the online CPUs. Nothing is printed; errors are
 * MT_E* codes (err.h).
 */
#ifndef MT_PROC_H
#define MT_PROC_H

#include <stddef.h>
#include <stdint.h>

/* One mapping: a line of /proc/PID/maps. */
struct mt_map {
	uint64_t start, end;  /* its addresses, end excluded */
	uint64_t pgoff;       /* the file offset it maps from */
	int exec;             /* mapped executable (perms "..x.") */
	const char *path;     /* into the line: a path, "[vdso]", ... or "" */
	size_t path_len;      /* without the newline */
};

/*
 * Parses line, one line of /proc/PID/maps with or without its newline:
 * 0 with *m set (m->path points into line), or MT_ESYNTAX.
 */
int mt_maps_parse(const char *line, struct mt_map *m);

/*
 * The online CPUs, from /sys/devices/system/cpu/online ("0-3,6"), or, when
 * it cannot be read, 0 to sysconf(_SC_NPROCESSORS_ONLN) - 1: a malloced
 * array of *n numbers in *cpus, which the caller frees. 0, MT_ENOMEM, or
 * MT_EIO when there is none.
 */
int mt_online_cpus(int **cpus, size_t *n);

#endif
