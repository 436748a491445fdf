/*
 * libFuzzer harness for the patch runtime's decoder
 * (plugins/patch-runtime/decode.c), which reads the code of the process
 * it is loaded into, whatever bytes are there: mtp_decode_walk(), the
 * table walk, must give what mtp_decode() (Zydis) gives for every byte
 * string, the length, whether it is a relative branch, its target and
 * whether it is a conditional jump;
 * neither reads past the bytes it is given (ASan).
 *
 * fuzz-link: -Iplugins/patch-runtime plugins/patch-runtime/decode.c -lZydis
 *
 * Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct mtp_insn w, z;
	size_t nw, nz;
	uint8_t *copy;

	if (!ready) {
		require(mtp_decode_init() == 0);
		ready = 1;
	}
	if (size > 15)
		size = 15;
	/* a copy of exactly size bytes: a read past them is ASan's */
	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	nw = mtp_decode_walk(copy, size, 0x7f0000001000ull, &w);
	nz = mtp_decode(copy, size, 0x7f0000001000ull, &z);
	require(nw == nz);
	if (nz) {
		require(w.len == z.len && w.len <= size);
		require(w.is_branch == z.is_branch);
		require(!z.is_branch || w.target == z.target);
		require((w.kind == MTP_I_JCC) == (z.kind == MTP_I_JCC));
	}
	free(copy);
	return 0;
}
