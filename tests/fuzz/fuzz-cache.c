/*
 * libFuzzer harness for what mt-record reads of a file for the patch
 * backend's cache of branch targets (mt-record/patch/patch-cache.c,
 * patch_cache_read_file()): the file is the traced program's or a
 * library's, whatever bytes are there (root's mt-record reads a user's
 * executable). The input: a byte n (at most 8 ranges), n ranges of a
 * 32-bit address and a 16-bit size, then the file. It must never read
 * past what it was given (ASan), and what it returns must hold: the
 * targets sorted, each once, every whole flag 0 or 1.
 *
 * fuzz-link: -Iplugins/patch-runtime -Imt-record/patch -Imt-record mt-record/patch/patch-cache.c mt-record/cachedir.c plugins/patch-runtime/decode.c plugins/patch-runtime/branches.c -lZydis
 *
 * Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "patch-cache.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch_cache_range r[8];
	struct patch_cache_hit hit;
	uint32_t n, k, a;
	uint16_t s;
	size_t i;
	int fd;

	if (size < 1)
		return 0;
	n = data[0] % 9;
	if (size < 1 + 6 * (size_t)n)
		return 0;
	for (k = 0; k < n; k++) {
		memcpy(&a, data + 1 + 6 * k, 4);
		memcpy(&s, data + 5 + 6 * k, 2);
		r[k].addr = a;
		r[k].size = s;
	}
	data += 1 + 6 * n;
	size -= 1 + 6 * (size_t)n;
	if ((fd = memfd_create("fuzz-cache", MFD_CLOEXEC)) < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	if (!patch_cache_read_file(fd, r, n, &hit)) {
		for (i = 1; i < hit.ntargets; i++)
			require(hit.targets[i - 1] < hit.targets[i]);
		for (k = 0; k < n; k++)
			require(hit.whole[k] <= 1);
		patch_cache_hit_release(&hit);
	}
	close(fd);
	return 0;
}
