/*
 * libFuzzer harness for the symbol cache's entries (mt-record/symentry.c,
 * symentry_read()): an entry passes its checksum before it is read, yet
 * the reading takes nothing on trust. Whatever the bytes, it must never
 * read past them (ASan), and a table it accepts must be one the table's
 * users can rely on: symbols by address, size and name, each once, each
 * named; FDEs by start, none empty, none overlapping; and written again
 * and read back, the same table.
 *
 * fuzz-link: -Imt-record mt-record/symentry.c common/symtab.c -lelf -lz
 *
 * Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symentry.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_symfile f, g;
	struct mt_buf b;
	size_t i;

	if (symentry_read(data, size, &f))
		return 0;
	for (i = 0; i < f.t.n; i++) {
		const struct mt_sym *s = &f.t.v[i];

		require(s->name && *s->name);
		require(s->bind >= MT_SYM_LOCAL && s->bind <= MT_SYM_FDE_PART);
		if (i)
			require(s[-1].addr < s->addr ||
				(s[-1].addr == s->addr &&
				 (s[-1].size < s->size ||
				  (s[-1].size == s->size && strcmp(s[-1].name, s->name) < 0))));
	}
	for (i = 0; i < f.t.fde.n; i++) {
		const struct mt_fde *d = &f.t.fde.v[i];

		require(d->size && d->start + d->size > d->start);
		if (i)
			require(d->start >= d[-1].start + d[-1].size);
	}
	require(f.t.build_id_len <= MT_BUILD_ID_MAX && f.dwfd == -1);
	mt_buf_init(&b);
	require(symentry_write(&f, &b) == 0);
	require(symentry_read(b.p, b.len, &g) == 0);
	require(g.t.n == f.t.n && g.t.nseg == f.t.nseg && g.t.fde.n == f.t.fde.n);
	for (i = 0; i < f.t.n; i++)
		require(g.t.v[i].addr == f.t.v[i].addr && !strcmp(g.t.v[i].name, f.t.v[i].name));
	mt_buf_release(&b);
	mt_symtab_release(&g.t);
	free(g.debug);
	mt_symtab_release(&f.t);
	free(f.debug);
	return 0;
}
