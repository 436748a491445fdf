/*
 * libFuzzer harness for the .eh_frame reader (common/ehframe.c): any bytes
 * must read to a list of FDEs or to an error code, without a crash, a
 * leak, undefined behaviour or a loop longer than the section.
 *
 * The input: a byte of choices (bit 0: 4-byte pointers; bits 1-2 the
 * machine: x86-64, arm64, i386, another; bit 3: a datarel base), the
 * section's address (8 bytes, little-endian), then the section.
 *
 * Besides surviving, it checks what the reader promises: on success the
 * FDEs are sorted, none empty, none ending past the last address (2^32 - 1
 * with 4-byte pointers), their flags known, at most one per
 * 10 bytes of section (the smallest FDE record); on error the list is
 * empty and the error is MT_ECORRUPT at an offset inside the section.
 *
 * Built and run by tests/fuzz/run (ehframe.c is of the library tier it
 * links), from the seeds of tests/fuzz/corpus/ehframe/: the .eh_frame of
 * /bin/true, of tests/progs/cold (a .cold part) and of throwy-O2 (C++:
 * "zPLR" CIEs), each after a byte 0 and its address.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ehframe.h"
#include "err.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned machines[] = { EM_X86_64, EM_AARCH64, EM_386, EM_PPC64 };
	struct mt_fdes f = MT_FDES_INIT;
	struct mt_ehframe_where w;
	size_t i, bad = SIZE_MAX;
	uint64_t top;
	int n;

	if (size < 9)
		return 0;
	memset(&w, 0, sizeof(w));
	w.ptr_size = data[0] & 1 ? 4 : 8;
	w.machine = machines[(data[0] >> 1) & 3];
	w.has_dbase = !!(data[0] & 8);
	w.dbase = 0x600000;
	for (i = 0; i < 8; i++)
		w.addr |= (uint64_t)data[1 + i] << (8 * i);
	data += 9;
	size -= 9;
	n = mt_ehframe_read(size ? data : NULL, size, &w, &f, &bad);
	if (n < 0) {
		require(n == MT_ECORRUPT);
		require(bad < size);
		require(f.v == NULL && f.n == 0);
		return 0;
	}
	require((size_t)n == f.n && f.n <= size / 10);
	top = w.ptr_size == 4 ? 0xffffffffu : UINT64_MAX;
	for (i = 0; i < f.n; i++) {
		const struct mt_fde *d = &f.v[i];

		require(d->size > 0 && d->start <= top && d->size <= top - d->start);
		require((d->flags & ~(unsigned)MT_FDE_NOT_CALLED) == 0);
		if (i)
			require(f.v[i - 1].start <= d->start);
	}
	mt_fdes_release(&f);
	require(f.v == NULL && f.n == 0);
	return 0;
}
