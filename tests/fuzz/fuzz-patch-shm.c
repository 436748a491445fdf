/*
 * libFuzzer harness for mt-record's readers of the memory the traced
 * process shares with it (plugins/patch-runtime/shm.h), every byte of
 * which the process can write: the rings (mt-record/patch/patch-rings.c),
 * the table's answers and an earlier session's header
 * (mt-record/patch/patch-table.c).
 *
 * The first byte chooses. Rings: a layout of a few small rings made as
 * mt-record makes one (its bounds chosen from the next bytes, then
 * checked), the memory filled with the input, then passes (partial and
 * whole) with the input's next bytes written over the memory between
 * them, as a process writing on would. Every event must be within what
 * the pass promises (a function below nfn, a kind of enum mtp_kind, a
 * NUL-terminated name, at most one ring's records a cursor), and no read
 * or write may leave the memory (ASan). Table: the input as a header and
 * entries: a header patch_stale_check() accepts has bounds within
 * mt-record's own; an answer patch_fn_take() keeps as a patch has a stub
 * and 5 to MTP_MAX_COVER bytes to write (2 or more at the entry after a
 * hop's lead of 5 or more).
 *
 * fuzz-link: -Imt-record/patch -Imt-record -Iplugins/patch-runtime mt-record/patch/patch-rings.c mt-record/patch/patch-table.c
 *
 * Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "patch-rings.h"
#include "patch-table.h"
#include "shm.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

/* The input's bytes from *at, n of them (what is left when fewer). */
static size_t take(const uint8_t *data, size_t size, size_t *at, void *dst, size_t n)
{
	size_t k = size - *at < n ? size - *at : n;

	memcpy(dst, data + *at, k);
	*at += k;
	return k;
}

static void one_pass(struct patch_rings *r, uint32_t nfn, uint32_t clock, uint32_t claimed,
		     int partial)
{
	struct patch_pass ps;
	struct patch_event ev;
	uint64_t records = 0, threads = 0;

	if (patch_pass_begin(r, &ps, nfn, clock, claimed, partial, 0))
		return;
	while (patch_pass_next(&ps, &ev)) {
		if (ev.is_thread) {
			require(strnlen(ev.comm, sizeof(ev.comm)) < sizeof(ev.comm));
			threads++;
			continue;
		}
		require(ev.func < nfn);
		require(ev.kind >= MTP_CALL && ev.kind <= MTP_CUT);
		records++;
	}
	require(threads <= 2 * (uint64_t)r->l.max_threads);
	require(records <= 2 * (uint64_t)r->l.max_threads * r->l.nrec);
	patch_pass_end(&ps);
}

static void rings(const uint8_t *data, size_t size)
{
	struct patch_layout l;
	struct patch_rings r;
	uint8_t shape[4] = { 0 };
	size_t at = 1, k;
	char *mem;

	take(data, size, &at, shape, sizeof(shape));
	l.nrec = 1ull << (shape[0] % 6);          /* 1 .. 32 records */
	l.max_threads = shape[1] % 5;             /* 0 .. 4 slots */
	l.stride = sizeof(struct mtp_thread) + l.nrec * sizeof(struct mtp_rec) +
		   8 * (shape[2] % 3);
	l.threads_off = 8 * (shape[3] % 16);
	l.size = l.threads_off + l.max_threads * l.stride;
	if (shape[2] & 0x80 && l.size >= 8)
		l.size -= 8; /* too small: must not check */
	if (!(mem = calloc(1, l.size + 1)))
		return;
	l.base = mem;
	if (patch_rings_init(&r, &l)) {
		free(mem);
		return;
	}
	require(l.size >= l.threads_off + l.max_threads * l.stride);
	/* no pass sleeps: the first clock pair is long ago */
	r.tsc_a = r.mono_a = 0;
	take(data, size, &at, mem, l.size);
	for (k = 0; k < 3; k++) {
		one_pass(&r, 1 + shape[0] / 32, shape[1] >> 4 & 3, shape[3] >> 4, k < 2);
		/* the process writes on */
		if (at < size) {
			size_t off = data[at++] * (l.size / 256 + 1) % (l.size + 1);

			take(data, size, &at, mem + off, l.size - off < 64 ? l.size - off : 64);
		}
	}
	patch_rings_release(&r);
	free(mem);
}

static void table(const uint8_t *data, size_t size)
{
	struct mtp_header h;
	struct patch_stale st;
	size_t at = 1;

	memset(&h, 0, sizeof(h));
	take(data, size, &at, &h, sizeof(h));
	if (size > 2 && data[1] & 1) { /* most headers: of the right version */
		h.magic = MTP_MAGIC;
		h.version = MTP_VERSION;
	}
	if (!patch_stale_check(&h, &st)) {
		require(st.nfuncs <= PATCH_MAX_FUNCS && st.nthreads <= PATCH_MAX_THREADS);
		require(st.funcs_off >= sizeof(h) && st.thread_stride >= sizeof(struct mtp_thread));
		require(st.own_lo <= st.own_hi && st.own_hi - st.own_lo <= (64u << 20));
	}
	while (at < size) {
		struct mtp_func theirs;
		struct patch_fn f;

		memset(&theirs, 0, sizeof(theirs));
		memset(&f, 0, sizeof(f));
		if (data[at] & 1)
			f.status = MTP_FN_PART;
		take(data, size, &at, &theirs, sizeof(theirs));
		patch_fn_take(&f, &theirs);
		require(f.status < MTP_FN_NSTATUS);
		if (patch_fn_has_patch(&f))
			require(f.stub && f.where > MTP_MAX_COVER &&
				patch_fn_len(&f) <= MTP_MAX_COVER &&
				f.lead >= -MTP_MAX_COVER && f.lead <= MTP_MAX_COVER &&
				(f.lead > 0 ? f.lead >= 5 && f.cover >= 2 : patch_fn_len(&f) >= 5));
		if (f.status == MTP_FN_PATCHED)
			require(patch_fn_has_patch(&f));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		table(data, size);
	else
		rings(data, size);
	return 0;
}
