/*
 * libFuzzer harness for the ELF symbol reader (common/symtab.c) on an image
 * in memory: any bytes must read to a table or to an error code, without a
 * crash, a leak or undefined behaviour (libelf itself is not instrumented).
 *
 * Besides surviving, it checks what the reader promises: on success the
 * FDEs kept lie in the file's code, apart; naming them (mt_symtab_add_fdes)
 * twice adds them once; the symbols are sorted by address and every name
 * is a non-empty string; on
 * error the table is left empty; lookups of every symbol's address find a
 * symbol at that address; every segment's start has a file offset and its
 * file offset a bias.
 *
 * Built and run by tests/fuzz/run, which reads the two lines below.
 * fuzz-link: common/symtab.c -lelf -lz
 * fuzz-seed: /bin/true
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "symtab.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_symtab t = MT_SYMTAB_INIT;
	uint64_t off;
	size_t i;
	int n = mt_symtab_read_mem(&t, data, size);

	if (n < 0) {
		require(n >= MT_ERR_MIN);
		require(t.n == 0 && t.v == NULL && t.seg == NULL);
		return 0;
	}
	require((size_t)n == t.n);
	for (i = 0; i < t.fde.n; i++) /* in code, apart */
		require(mt_symtab_file_offset(&t, t.fde.v[i].start, &off) == 0 &&
			(!i || t.fde.v[i - 1].start + t.fde.v[i - 1].size <= t.fde.v[i].start));
	n = mt_symtab_add_fdes(&t, "f");
	if (n < 0) {
		require(n == MT_ENOMEM);
		mt_symtab_release(&t);
		return 0;
	}
	require((size_t)n == t.n && mt_symtab_add_fdes(&t, "f") == n);
	for (i = 0; i < t.n; i++) {
		const struct mt_sym *s = &t.v[i], *hit;

		require(s->name && s->name[0]);
		require(strlen(mt_sym_bind_name(s->bind)) > 1);
		if (i)
			require(t.v[i - 1].addr <= s->addr);
		hit = mt_symtab_lookup(&t, s->addr);
		require(hit && hit->addr == s->addr);
	}
	for (i = 0; i < t.nseg; i++) {
		const struct mt_seg *sg = &t.seg[i];
		uint64_t bias;

		/* a segment with file bytes holds its own first address
		 * (an earlier overlapping segment may answer for it) */
		if (sg->filesz)
			require(mt_symtab_file_offset(&t, sg->vaddr, &off) == 0);
		if (sg->filesz && sg->offset <= UINT64_MAX - sg->filesz)
			require(mt_symtab_bias(&t, 0x10000, sg->offset, &bias) == 0);
	}
	mt_symtab_release(&t);
	require(t.n == 0 && t.v == NULL);
	return 0;
}
