#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "proc.h"
#include "banned.h"

int mt_maps_parse(const char *line, struct mt_map *m)
{
	unsigned long long start, end, pgoff;
	char perms[8];
	int at = 0;

	/* start-end perms offset dev inode [path] */
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
		   &pgoff, &at) < 4 || !at || strlen(perms) < 3)
		return MT_ESYNTAX;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->exec = perms[2] == 'x';
	m->path = line + at;
	m->path_len = strcspn(m->path, "\n");
	return 0;
}

int mt_online_cpus(int **cpus, size_t *n)
{
	char line[4096], *p = line;
	size_t cap = 0;
	ssize_t k = -1;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	*cpus = NULL;
	*n = 0;
	if (fd >= 0) {
		k = read(fd, line, sizeof(line) - 1);
		close(fd);
	}
	if (k <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(line, sizeof(line), "0-%ld", c > 0 ? c - 1 : 0);
	} else {
		line[k] = '\0';
	}
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a, i;

		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (i = a; i <= b && i < 65536; i++) {
			if (mt_grow(cpus, &cap, *n + 1, sizeof(**cpus))) {
				free(*cpus);
				*cpus = NULL;
				*n = 0;
				return MT_ENOMEM;
			}
			(*cpus)[(*n)++] = (int)i;
		}
		if (*p == ',')
			p++;
	}
	return *n ? 0 : MT_EIO;
}
