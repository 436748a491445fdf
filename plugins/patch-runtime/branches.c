/*
 * The direct branches of a run of code (branches.h).
 */
#include <stdlib.h>

#include "branches.h"
#include "decode.h"
#include "shm.h"

int mtp_branch_targets(const uint8_t *code, uint64_t at, uint64_t size, struct mtp_targets *t)
{
	uint64_t addr = at, end = at + size;
	struct mtp_insn in;
	size_t n;

	for (; addr < end; addr += n, code += n) {
		if (!(n = mtp_decode_walk(code, (size_t)(end - addr), addr, &in)))
			return 0;
		if (!in.is_branch || (in.target >= at && in.target < end &&
				      (in.target == at || in.target - at >= MTP_MAX_COVER)))
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 4096;
			uint64_t *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return -1;
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n++] = MTP_TARGET(in.target, in.kind == MTP_I_JCC);
	}
	return 1;
}
