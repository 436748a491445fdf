/*
 * Patching one function's entry (patch.h).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "branches.h"
#include "decode.h"
#include "hooks.h"
#include "patch.h"
#include "../../common/cmp.h"
#include "../../common/radix.h"
#include "../../common/banned.h"

/* Trampoline memory: arenas of ARENA bytes, each starting with the
 * address of mtp_entry_common that its stubs jump through. An arena is a
 * memfd mapped twice, executable where its stubs run and writable
 * elsewhere (rw), so that writing a stub needs no /proc/self/mem (which a
 * process made not dumpable may no longer open); where memfds cannot be
 * executable (vm.memfd_noexec), anonymous memory written through
 * /proc/self/mem. */
#define ARENA ((uint64_t)1 << 20)
#define MAX_ARENAS 256
#define REACH (((uint64_t)1 << 31) - ARENA - 4096)

static struct arena {
	uint64_t base, used;
	char *rw;       /* the writable view, or NULL */
	uint64_t present; /* of rw, made present so far (present()) */
} arenas[MAX_ARENAS];
static int narenas;
static int anon_only; /* a memfd could not be mapped executable */
static int mem = -1; /* /proc/self/mem */
static uint64_t mcount; /* where mcount is, 0: nowhere (pg_prologue) */
/* The targets of the direct branches of every function scanned
 * (mtp_patch_targets), sorted: a function is left alone when one goes
 * into the bytes its patch replaces. Each is kept as MTP_TARGET(address,
 * whether a conditional jump goes there), so that the two of one address
 * are next to each other, the conditional one second. */
static struct mtp_targets tg;
/* The functions scanned, sorted by start: where the padding after a
 * function ends (pad_after), and whether a function's own branches are
 * among the targets. */
static struct scanned {
	uint64_t at, size;
	uint64_t reach;  /* the furthest end of those that start before it */
	int whole;       /* decoded to its end: every branch a target */
	int given;       /* its targets given (mtp_patch_given()), not read */
} *scanned;
static size_t nscanned;
/* The padding this session's patches take ([lo, hi): a short function's
 * after it, a hop's before an entry), so that no two take the same. */
static struct claim {
	uint64_t lo, hi;
} *claims;
static size_t nclaims, claims_cap;


/* the lowest address an arena may have */
#define ARENA_FLOOR (16ull << 20)

void mtp_patch_reuse(void)
{
	int i;

	for (i = 0; i < narenas; i++)
		arenas[i].used = 16; /* past the address of mtp_entry_common */
}

/* Writes n bytes of p at at, in an arena. */
static int put(uint64_t at, const void *p, size_t n)
{
	int i;

	for (i = 0; i < narenas; i++)
		if (at >= arenas[i].base && at + n <= arenas[i].base + ARENA && arenas[i].rw) {
			memcpy(arenas[i].rw + (at - arenas[i].base), p, n);
			return 0;
		}
	if (mem < 0 && (mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	return pwrite(mem, p, n, (off_t)at) == (ssize_t)n ? 0 : -1;
}

/* An arena at at exactly (MAP_FIXED_NOREPLACE): 0, or -1 (taken). */
static int map_arena(uint64_t at, struct arena *a)
{
	void *p = MAP_FAILED;
	int fd = -1;

	a->rw = NULL;
	if (!anon_only && (fd = memfd_create("mt-patch-stubs", MFD_CLOEXEC)) >= 0 &&
	    !ftruncate(fd, (off_t)ARENA)) {
		p = mmap((void *)at, ARENA, PROT_READ | PROT_EXEC,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		if (p == MAP_FAILED && (errno == EPERM || errno == EACCES))
			anon_only = 1; /* no executable memfd here */
		if (p != MAP_FAILED && (uint64_t)p == at &&
		    (a->rw = mmap(NULL, ARENA, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
			    MAP_FAILED)
			a->rw = NULL;
		if (p != MAP_FAILED && !a->rw) {
			munmap(p, ARENA);
			p = MAP_FAILED;
		}
	}
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED && (anon_only || fd < 0))
		p = mmap((void *)at, ARENA, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	if ((uint64_t)p != at) { /* a kernel without NOREPLACE */
		munmap(p, ARENA);
		if (a->rw)
			munmap(a->rw, ARENA);
		a->rw = NULL;
		return -1;
	}
	return 0;
}

/* present(): so much more of an arena made present at a time */
#define PRESENT_STEP ((uint64_t)64 << 10)

/* The writable view of a up to a->used made present ahead, PRESENT_STEP
 * at a time (mtp_prefault(): no errno set, as the runtime may run inside
 * the program's dlopen). */
static void present(struct arena *a)
{
	uint64_t n;

	if (!a->rw || a->used <= a->present)
		return;
	n = (a->used - a->present + PRESENT_STEP - 1) & ~(PRESENT_STEP - 1);
	if (n > ARENA - a->present)
		n = ARENA - a->present;
	mtp_prefault(a->rw + a->present, n);
	a->present += n;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static int new_arena(uint64_t near)
{
	uint64_t page = near & ~(ARENA - 1), d;
	uint64_t common = (uint64_t)mtp_entry_common;
	int up;

	if (narenas == MAX_ARENAS)
		return -1;
	for (d = ARENA; d < REACH; d += ARENA)
		for (up = 0; up < 2; up++) {
			uint64_t at = up ? page + d : page - d;
			struct arena *a = &arenas[narenas];

			/* never near address 0: a NULL read must still fault */
			if ((!up && (page < d || page - d < ARENA_FLOOR)) || map_arena(at, a))
				continue;
			a->base = at;
			a->used = 16;
			a->present = 0;
			present(a);
			narenas++;
			if (put(at, &common, sizeof(common))) {
				narenas--;
				munmap((void *)at, ARENA);
				if (a->rw)
					munmap(a->rw, ARENA);
				return -1;
			}
			return narenas - 1;
		}
	return -1;
}

/* n bytes of trampoline memory within reach of near, or 0. */
static uint64_t alloc_near(uint64_t near, uint64_t n)
{
	int i;

	n = (n + 15) & ~(uint64_t)15;
	for (i = 0; i < narenas; i++)
		if (arenas[i].used + n <= ARENA && dist(arenas[i].base, near) < REACH)
			break;
	if (i == narenas && (i = new_arena(near)) < 0)
		return 0;
	arenas[i].used += n;
	present(&arenas[i]);
	return arenas[i].base + arenas[i].used - n;
}

int mtp_patch_open(int commit)
{
	if (commit && (mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	mcount = (uint64_t)dlsym(RTLD_DEFAULT, "mcount");
	if (mtp_decode_init()) {
		close(mem);
		mem = -1;
		errno = EINVAL;
		return -1;
	}
	return 0;
}

void mtp_patch_close(void)
{
	if (mem >= 0)
		close(mem);
	mem = -1;
	free(tg.v);
	memset(&tg, 0, sizeof(tg));
	free(scanned);
	scanned = NULL;
	nscanned = 0;
	free(claims);
	claims = NULL;
	nclaims = claims_cap = 0;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void rel32(uint8_t *p, int64_t v)
{
	int32_t x = (int32_t)v;

	memcpy(p, &x, 4);
}

/* The instruction in, copied to run at to (into out), its rip-relative
 * displacement recomputed: its length, or 0 when it no longer reaches. */
static size_t copy_insn(const struct mtp_insn *in, uint64_t to, uint8_t *out)
{
	const uint8_t *bytes = (const uint8_t *)in->addr;

	memcpy(out, bytes, in->len);
	if (in->disp_off) {
		int32_t disp;
		uint64_t target;
		int64_t d;

		memcpy(&disp, bytes + in->disp_off, 4);
		target = in->addr + in->len + (uint64_t)(int64_t)disp;
		d = (int64_t)(target - (to + in->len));
		if (!fits32(d))
			return 0;
		rel32(out + in->disp_off, d);
	}
	return in->len;
}

/* Pushes back, the return address a call there pushes (real code, not
 * the stub: an unwinder finds its unwind information): into out, its
 * length. */
static size_t push_return(uint64_t back, uint8_t *out)
{
	/* lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp) */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
	uint32_t lo = (uint32_t)back, hi = (uint32_t)(back >> 32);
	size_t k = 0;

	memcpy(out, lea, sizeof(lea));
	k += sizeof(lea);
	out[k++] = 0xc7; out[k++] = 0x04; out[k++] = 0x24;
	memcpy(out + k, &lo, 4);
	k += 4;
	out[k++] = 0xc7; out[k++] = 0x44; out[k++] = 0x24; out[k++] = 0x04;
	memcpy(out + k, &hi, 4);
	return k + 4;
}

/* The relocated copy of in, to run at address to, into out; its length,
 * or 0 when it cannot move. entry..end are the bytes replaced.
 *
 * A call must be the last instruction replaced, and is not copied as a
 * call: its return address would be in the stub, where an unwinder finds
 * no unwind information (C++ exceptions, backtrace()). The copy pushes
 * the original return address (entry + cover, real code) and jumps. */
static size_t relocate(const struct mtp_insn *in, uint64_t to, uint8_t *out,
		       uint64_t entry, uint64_t end)
{
	size_t k;

	switch (in->kind) {
	case MTP_I_FIXED:
	case MTP_I_INT3: /* a breakpoint or uprobe of someone else's */
		return 0;
	}
	if (in->is_branch && in->target > entry && in->target < end)
		return 0;
	if (in->kind == MTP_I_CALL || in->kind == MTP_I_CALL_IND) {
		/* call *X becomes jmp *X (0xff /2 -> /4): X reads no %rsp
		 * (decode.h), which the push moved */
		if (in->addr + in->len != end)
			return 0;
		k = push_return(end, out);
		if (in->kind == MTP_I_CALL_IND) {
			size_t n = copy_insn(in, to + k, out + k);

			if (!n)
				return 0;
			out[k + in->modrm_off] = (uint8_t)((out[k + in->modrm_off] & ~0x38) | 0x20);
			return k + n;
		}
		out[k] = 0xe9;
		if (!fits32((int64_t)(in->target - (to + k + 5))))
			return 0;
		rel32(out + k + 1, (int64_t)(in->target - (to + k + 5)));
		return k + 5;
	}
	if (in->kind == MTP_I_JMP) {
		out[0] = 0xe9;
		if (!fits32((int64_t)(in->target - (to + 5))))
			return 0;
		rel32(out + 1, (int64_t)(in->target - (to + 5)));
		return 5;
	}
	if (in->kind == MTP_I_JCC) { /* rel8 0x70+cc, rel32 0x0f 0x80+cc */
		out[0] = 0x0f;
		out[1] = (uint8_t)(0x80 | in->cc);
		if (!fits32((int64_t)(in->target - (to + 6))))
			return 0;
		rel32(out + 2, (int64_t)(in->target - (to + 6)));
		return 6;
	}
	return copy_insn(in, to, out);
}

/* Sorts the targets: 0, or -1 (no memory: then left as they were). */
static int sort_targets(void)
{
	uint64_t *tmp = malloc((tg.n ? tg.n : 1) * sizeof(*tmp)), *sorted;

	if (!tmp)
		return -1;
	mtp_prefault(tmp, tg.n * sizeof(*tmp)); /* written whole */
	sorted = mt_radix_sort(tg.v, tmp, tg.n, sizeof(*tg.v));
	if (sorted == tmp) {
		free(tg.v);
		tg.v = tmp;
		tg.cap = tg.n ? tg.n : 1;
	} else
		free(tmp);
	return 0;
}

/* Adds the targets of the relative branches in [at, at + size) of the
 * process's code (mtp_branch_targets()): 1 (read whole), 0, or -1. */
static int add_targets(uint64_t at, uint64_t size)
{
	return mtp_branch_targets((const uint8_t *)at, at, size, &tg);
}

/* Sorts the n functions scanned at v by start, those at one start
 * longest first: 0, or -1 (no memory: then left as they were). */
static int sort_scanned(struct scanned *v, size_t n)
{
	struct scanned *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *sorted;
	size_t i, j;

	if (!tmp)
		return -1;
	mtp_prefault(tmp, n * sizeof(*tmp)); /* written whole */
	sorted = mt_radix_sort(v, tmp, n, sizeof(*v));
	if (sorted == tmp)
		memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
	for (i = 1; i < n; i++) /* runs of one start: aliases, a few */
		for (j = i; j > 0 && v[j].at == v[j - 1].at && v[j].size > v[j - 1].size; j--) {
			struct scanned t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return 0;
}

int mtp_patch_scan(const struct mtp_range *r, uint32_t n)
{
	size_t k, from = nscanned;
	struct scanned *v;

	if (!(v = realloc(scanned, (nscanned + n + 1) * sizeof(*v))))
		return -1;
	mtp_prefault(v + nscanned, n * sizeof(*v)); /* written next */
	scanned = v;
	for (k = 0; k < n; k++) {
		if (!r[k].where)
			continue;
		scanned[nscanned].at = r[k].where;
		scanned[nscanned].size = r[k].size;
		scanned[nscanned].reach = 0;
		scanned[nscanned].given = (r[k].flags & MTP_RANGE_TAKEN) != 0;
		scanned[nscanned++].whole = !(r[k].flags & MTP_RANGE_TAKEN) ||
					    (r[k].flags & MTP_RANGE_WHOLE);
	}
	/* each function read once: of those at one start (aliases), the
	 * longest, and the others take its answer */
	if (sort_scanned(scanned + from, nscanned - from))
		return -1;
	for (k = from; k < nscanned; k++) {
		int whole;

		if (scanned[k].given)
			continue;
		if (k > from && scanned[k].at == scanned[k - 1].at) {
			scanned[k].whole = scanned[k - 1].whole;
			continue;
		}
		if ((whole = add_targets(scanned[k].at, scanned[k].size)) < 0)
			return -1;
		scanned[k].whole = whole;
	}
	return 0;
}

/* Whether the code of ranges r[0, n) (of one file, each mapped, at one
 * bias) is what g says (its hash); sets *bias. */
static int given_holds(const struct mtp_range *r, uint32_t n, const struct mtp_given *g,
		       uint64_t *bias)
{
	uint64_t h = MTP_HASH_INIT;
	uint32_t k;

	if (!n || !r[0].where)
		return 0;
	*bias = r[0].where - r[0].addr;
	for (k = 0; k < n; k++) {
		if (!(r[k].flags & MTP_RANGE_GIVEN) || r[k].where - r[k].addr != *bias)
			return 0;
		h = mtp_code_hash(h, (const void *)r[k].where, r[k].size);
	}
	return h == g->hash;
}

int mtp_patch_given(struct mtp_range *r, uint32_t nr, uint32_t lo, uint32_t hi,
		    const struct mtp_given *g, uint32_t ng, const uint64_t *t, uint64_t nt,
		    uint32_t *taken, uint32_t *refused)
{
	uint64_t bias, j;
	uint32_t i, k;

	for (i = 0; i < ng; i++) {
		const struct mtp_given *b = &g[i];

		if (b->first < lo || b->first >= hi || b->n > nr - b->first)
			continue;
		if (!r[b->first].where)
			continue; /* its file is not mapped: nothing read */
		if (b->at > nt || b->count > nt - b->at || !given_holds(r + b->first, b->n, b, &bias)) {
			/* its code is not the file's (changed in memory):
			 * read here */
			for (k = b->first; k < b->first + b->n; k++)
				r[k].flags &= ~(MTP_RANGE_GIVEN | MTP_RANGE_WHOLE | MTP_RANGE_TAKEN);
			++*refused;
			continue;
		}
		if (tg.n + b->count > tg.cap) {
			size_t cap = tg.n + b->count + 4096;
			uint64_t *v = realloc(tg.v, cap * sizeof(*v));

			if (!v)
				return -1;
			tg.v = v;
			tg.cap = cap;
		}
		for (j = 0; j < b->count; j++) {
			uint64_t x = t[b->at + j];

			tg.v[tg.n++] = MTP_TARGET(MTP_TARGET_AT(x) + bias, MTP_TARGET_JCC(x));
		}
		for (k = b->first; k < b->first + b->n; k++)
			r[k].flags |= MTP_RANGE_TAKEN;
		++*taken;
	}
	return 0;
}

int mtp_patch_targets(const struct mtp_range *r, uint32_t n)
{
	uint64_t reach;
	size_t k;

	if (mtp_patch_scan(r, n) || sort_targets() || sort_scanned(scanned, nscanned))
		return -1;
	for (k = 0, reach = 0; k < nscanned;) { /* those at one start: the same */
		uint64_t far = reach;
		size_t j;

		for (j = k; j < nscanned && scanned[j].at == scanned[k].at; j++) {
			scanned[j].reach = reach;
			if (scanned[j].at + scanned[j].size > far)
				far = scanned[j].at + scanned[j].size;
		}
		reach = far;
		k = j;
	}
	return 0;
}

/* The first function scanned that starts at or after at (nscanned: none). */
static size_t scanned_from(uint64_t at)
{
	size_t lo = 0, hi = nscanned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (scanned[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * How many bytes of padding follow the function that ends at end, up to
 * want: whole no-ops and int3s (what assemblers put between functions to
 * align the next), before the next function starts (or, with none after
 * it, within end's page, which is mapped with it). Those bytes are never
 * run, so a function shorter than a jump may be patched over them.
 */
static uint64_t pad_after(uint64_t end, uint64_t want)
{
	size_t next = scanned_from(end), k;
	uint64_t limit, n = 0;
	struct mtp_insn in;

	limit = next < nscanned ? scanned[next].at : (end | 4095) + 1;
	for (k = 0; k < nclaims; k++)
		if (claims[k].hi > end && claims[k].lo < limit)
			limit = claims[k].lo > end ? claims[k].lo : end;
	if (limit - end < want)
		want = limit - end;
	while (n < want && (k = mtp_decode((const uint8_t *)(end + n), (size_t)(want - n),
					   end + n, &in)) &&
	       (in.kind == MTP_I_NOP || in.kind == MTP_I_INT3))
		n += k;
	return n;
}

/* Whether f's own branches, [entry, entry + size), are among the targets
 * (its range was scanned whole): MTP_FN_UNDECODABLE when its range was
 * scanned but not whole (lenient: taken as it is, for libgcc's walkers,
 * which have rdssp and incssp and are entered only by calls), else
 * reads them now: 0, MTP_FN_UNDECODABLE, or MTP_FN_BRANCH_IN (no
 * memory for them). */
static int own_branches(uint64_t entry, uint64_t size, int lenient)
{
	size_t k = scanned_from(entry), before = tg.n;
	int whole;

	if (k < nscanned && scanned[k].at == entry && scanned[k].reach > entry)
		return MTP_FN_BRANCH_IN; /* inside another function's bytes:
					  * its branches past their first
					  * bytes are not kept (add_targets) */
	for (; k < nscanned && scanned[k].at == entry; k++)
		if (scanned[k].size >= size)
			return scanned[k].whole || lenient ? 0 : MTP_FN_UNDECODABLE;
	/* not scanned (never so far: mt-record scans every function of the
	 * files it patches): its branches added now */
	if ((whole = add_targets(entry, size)) < 0 || sort_targets()) {
		tg.n = before; /* those before, still sorted */
		return MTP_FN_BRANCH_IN;
	}
	return whole || lenient ? 0 : MTP_FN_UNDECODABLE;
}

/* Takes [lo, hi) for a patch: 0, or -1 (no memory). */
static int claim(uint64_t lo, uint64_t hi)
{
	if (nclaims == claims_cap) {
		struct claim *v = realloc(claims, (claims_cap = claims_cap ? 2 * claims_cap : 64) *
							   sizeof(*v));

		if (!v)
			return -1;
		claims = v;
	}
	claims[nclaims].lo = lo;
	claims[nclaims++].hi = hi;
	return 0;
}

/* The first of the targets at or after t (tg.n: none). */
static size_t target_from(uint64_t t)
{
	size_t lo = 0, hi = tg.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tg.v[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first branch target after entry, or UINT64_MAX. */
static uint64_t target_after(uint64_t entry)
{
	size_t k = target_from(MTP_TARGET(entry + 1, 0));

	return k < tg.n ? MTP_TARGET_AT(tg.v[k]) : UINT64_MAX;
}

/* Whether other code enters entry by a conditional jump and by no other
 * direct branch (a call, a jmp). */
static int only_jcc_into(uint64_t entry)
{
	size_t k = target_from(MTP_TARGET(entry, 0));

	return k < tg.n && tg.v[k] == MTP_TARGET(entry, 1);
}

/* The most padding before entry a hop may take */
#define HOP_FROM 64

/*
 * A hop for an entry whose first cover bytes (2 to 4) are all that may be
 * replaced: a 5-byte jmp in the padding just before it, at the start of
 * one of the padding's no-ops (a function before that runs on over its
 * end meets the jmp, not half of a no-op), which the entry reaches with
 * a 2-byte jmp. The padding is that after the function before (the
 * furthest end of those that start before), whole no-ops and int3s that
 * no branch goes into and no other patch takes. Returns how many bytes
 * before entry the jmp is (5 to MTP_MAX_COVER - cover), or 0: none.
 */
static uint64_t hop_before(uint64_t entry, uint64_t cover)
{
	size_t k = scanned_from(entry), n;
	uint64_t from, at, best = 0;
	struct mtp_insn in;

	if (k == nscanned || scanned[k].at != entry || !scanned[k].reach ||
	    scanned[k].reach > entry || entry - scanned[k].reach > HOP_FROM)
		return 0;
	from = scanned[k].reach;
	for (at = from; at < entry; at += n) {
		if (!(n = mtp_decode((const uint8_t *)at, (size_t)(entry - at), at, &in)) ||
		    (in.kind != MTP_I_NOP && in.kind != MTP_I_INT3))
			return 0;
		if (entry - at >= 5 && entry - at + cover <= MTP_MAX_COVER)
			best = at;
	}
	if (!best || target_after(best - 1) < entry)
		return 0; /* a branch into the padding */
	if (scanned[scanned_from(best)].at != entry)
		return 0; /* a symbol there (one with no size, a label) */
	for (k = 0; k < nclaims; k++)
		if (claims[k].hi > best && claims[k].lo < entry)
			return 0;
	return entry - best;
}

/* Whether another function branches into (entry, entry + cover). */
static int targeted(uint64_t entry, uint64_t cover)
{
	return target_after(entry) < entry + cover;
}

/* The length of the instruction at p (n bytes there) when it is a push
 * of a register or a sub/and of an immediate from %rsp, else 0. */
static uint64_t frame_setup(const uint8_t *p, uint64_t n)
{
	uint64_t r = n >= 1 && (p[0] & 0xf0) == 0x40; /* a REX */

	if (n >= 1 && p[0] >= 0x50 && p[0] <= 0x57)
		return 1;                       /* push %rax..%rdi */
	if (n >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)
		return 2;                       /* push %r8..%r15 */
	if (n >= 4 && p[0] == 0x48 && p[1] == 0x83 && (p[2] == 0xec || p[2] == 0xe4))
		return 4;                       /* sub/and $imm8, %rsp */
	if (n >= 7 && p[0] == 0x48 && p[1] == 0x81 && (p[2] == 0xec || p[2] == 0xe4))
		return 7;                       /* sub/and $imm32, %rsp */
	if (n >= r + 2 && (p[r] == 0x89 || p[r] == 0x8b) && (p[r + 1] >> 6) == 3)
		return r + 2;                   /* mov of a register to one
						 * (clang keeps an argument) */
	return 0;
}

/* Reads 8 bytes at at, where a fault is an answer: 0, or -1. */
static int peek(uint64_t at, uint64_t *out)
{
	struct iovec here = { out, sizeof(*out) }, there = { (void *)at, sizeof(*out) };

	return syscall(SYS_process_vm_readv, getpid(), &here, 1UL, &there, 1UL, 0UL) ==
			       (long)sizeof(*out) ? 0 : -1;
}

/* Whether the GOT slot at slot is mcount's: it holds mcount's address, or
 * (bound lazily, not yet) its object's PLT relocation for it names
 * mcount or _mcount. */
static int mcount_slot(uint64_t slot)
{
	const ElfW(Rela) *rel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL;
	struct link_map *lm;
	uint64_t v, relsz = 0, k;
	const ElfW(Dyn) *d;
	Dl_info info;

	if (peek(slot, &v))
		return 0;
	if (v == mcount)
		return 1;
	if (!dladdr1((void *)slot, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_ld)
		return 0;
	for (d = lm->l_ld; d->d_tag != DT_NULL; d++)
		switch (d->d_tag) {
		case DT_JMPREL: rel = (const ElfW(Rela) *)d->d_un.d_ptr; break;
		case DT_PLTRELSZ: relsz = d->d_un.d_val; break;
		case DT_SYMTAB: sym = (const ElfW(Sym) *)d->d_un.d_ptr; break;
		case DT_STRTAB: str = (const char *)d->d_un.d_ptr; break;
		}
	if (!rel || !sym || !str)
		return 0;
	for (k = 0; k < relsz / sizeof(*rel); k++)
		if (rel[k].r_offset + lm->l_addr == slot) {
			const char *name = str + sym[ELF64_R_SYM(rel[k].r_info)].st_name;

			return !strcmp(name, "mcount") || !strcmp(name, "_mcount");
		}
	return 0;
}

/*
 * The length of fn's -pg prologue: [endbr64;] push %rbp; mov %rsp,%rbp;
 * pushes of the registers it keeps, room for its locals, copies of its
 * arguments (clang); then a call of mcount, through its GOT slot (gcc,
 * PIE: call *mcount@GOTPCREL(%rip)) or its PLT entry (clang, non-PIE:
 * call mcount@plt, an entry that jumps through the slot). 0 when it has
 * none. mcount reads the function's return address (8(%rbp), gprof's
 * caller) and its own (gprof's callee): a patch at the entry would show
 * it the trampoline, and gprof drops such an arc. Patched after the
 * prologue instead, the function's call is recorded when mcount is done,
 * its return address found at 8(%rbp).
 */
static uint64_t pg_prologue(uint64_t fn, uint64_t size)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa },
			     frame[] = { 0x55, 0x48, 0x89, 0xe5 };
	const uint8_t *p = (const uint8_t *)fn;
	uint64_t k = 0, len, slot;
	int32_t disp;

	if (!mcount)
		return 0;
	if (size > MTP_MAX_COVER)
		size = MTP_MAX_COVER;
	if (size >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		k = sizeof(endbr64);
	if (size < k + sizeof(frame) || memcmp(p + k, frame, sizeof(frame)))
		return 0;
	for (k += sizeof(frame); (len = frame_setup(p + k, size - k)); k += len)
		;
	if (size >= k + 6 && p[k] == 0xff && p[k + 1] == 0x15) { /* call *slot(%rip) */
		memcpy(&disp, p + k + 2, 4);
		k += 6;
		slot = fn + k + (uint64_t)(int64_t)disp;
	} else if (size >= k + 5 && p[k] == 0xe8) { /* call rel32 */
		uint8_t e[16];
		uint64_t t;

		memcpy(&disp, p + k + 1, 4);
		k += 5;
		t = fn + k + (uint64_t)(int64_t)disp;
		if (t == mcount)
			return k;
		/* a PLT entry: [endbr64;] [bnd] jmp *slot(%rip) */
		if (peek(t, &slot) || (memcpy(e, &slot, 8), peek(t + 8, &slot)))
			return 0;
		memcpy(e + 8, &slot, 8);
		len = !memcmp(e, endbr64, sizeof(endbr64)) ? sizeof(endbr64) : 0;
		len += e[len] == 0xf2;
		if (e[len] != 0xff || e[len + 1] != 0x25)
			return 0;
		memcpy(&disp, e + len + 2, 4);
		slot = t + len + 6 + (uint64_t)(int64_t)disp;
	} else {
		return 0;
	}
	return mcount_slot(slot) ? k : 0;
}

void mtp_patch(struct mtp_func *f, uint32_t i, uint64_t *cont, uint64_t redirect)
{
	uint8_t stub[MTP_STUB_MAX];
	struct mtp_insn ins[5]; /* 5 bytes take 5 instructions at most */
	uint64_t fn = f->where, entry, size, skip = 0, at, cover = 0, avail, room, lead = 0, t;
	size_t n = 0, k, nins = 0, start;
	uint32_t index = i;
	int st;

	if (!f->size) {
		f->status = MTP_FN_NO_SIZE;
		return;
	}
	if ((f->flags & MTP_FF_GUESSED) && only_jcc_into(fn)) {
		f->status = MTP_FN_PART; /* a cold block: see shm.h */
		return;
	}
	/* where the patch goes: the entry, or past a -pg prologue */
	if (!redirect && (skip = pg_prologue(fn, f->size)))
		index |= 1u << MTP_INDEX_FRAME_BIT; /* its frame holds it */
	entry = fn + skip;
	size = f->size - skip;
	/* the bytes that may be replaced: the function's, and the padding
	 * after it when it is shorter than what covers 5 bytes */
	avail = size < MTP_MAX_COVER ? size : MTP_MAX_COVER;
	if (avail < 5 + 15 && avail == size)
		avail += pad_after(entry + size, MTP_MAX_COVER - avail);
	/* what may be replaced: up to the first branch target in it (past
	 * a prologue, the patch's first byte too: a branch there would run
	 * the hook again) */
	st = own_branches(fn, f->size, redirect != 0);
	if (st == MTP_FN_BRANCH_IN) {
		f->status = (uint32_t)st;
		return;
	}
	t = target_after(skip ? entry - 1 : entry);
	room = t - entry < avail ? t - entry : avail;
	/* the instructions that cover 5 bytes, or all of them before room */
	while (cover < 5) {
		struct mtp_insn *in = &ins[nins];
		size_t len;

		if (cover == room)
			break;
		if (!(len = mtp_decode((const uint8_t *)(entry + cover), (size_t)(avail - cover),
				       entry + cover, in))) {
			if (cover >= size)
				break; /* the padding's end */
			f->status = MTP_FN_UNDECODABLE;
			return;
		}
		if (cover + len > room)
			break;
		nins++;
		cover += len;
		if (cover <= size && in->kind == MTP_I_INT3) {
			/* another tracer's breakpoint (a uprobe, a debugger's):
			 * moved, it would trap where none is set */
			f->status = MTP_FN_BREAKPOINT;
			return;
		}
	}
	/* fewer than 5 bytes: a hop through the padding before it */
	if (cover < 5 && (skip || cover < 2 || !(lead = hop_before(entry, cover)))) {
		f->status = room < avail ? MTP_FN_BRANCH_IN : MTP_FN_TOO_SHORT;
		return;
	}
	if (targeted(entry, cover)) { /* never: room ends before a target */
		f->status = MTP_FN_BRANCH_IN;
		return;
	}
	if (st) {
		f->status = (uint32_t)st;
		return;
	}
	if (cover > size && claim(entry + size, entry + cover)) {
		f->status = MTP_FN_NO_ROOM;
		return;
	}
	if (lead && claim(entry - lead, entry)) {
		f->status = MTP_FN_NO_ROOM;
		return;
	}
	if (!(at = alloc_near(entry, sizeof(stub)))) {
		f->status = MTP_FN_NO_ROOM;
		return;
	}
	if (redirect) {
		/* jmp *0(%rip); .quad redirect */
		stub[n++] = 0xff;
		stub[n++] = 0x25;
		memset(stub + n, 0, 4);
		n += 4;
		memcpy(stub + n, &redirect, 8);
		n += 8;
	} else {
		/* push $index; call *(arena base); lea 8(%rsp),%rsp */
		static const uint8_t drop[] = { 0x48, 0x8d, 0x64, 0x24, 0x08 };

		stub[n++] = 0x68;
		memcpy(stub + n, &index, 4);
		n += 4;
		stub[n++] = 0xff;
		stub[n++] = 0x15;
		rel32(stub + n, (int64_t)((at & ~(ARENA - 1)) - (at + n + 4)));
		n += 4;
		memcpy(stub + n, drop, sizeof(drop));
		n += sizeof(drop);
	}
	/* the covered instructions, relocated */
	start = n;
	for (k = 0; k < nins; k++) {
		size_t len;

		if (ins[k].addr >= entry + size) {
			/* padding (pad_after): no-ops and int3s, as they are */
			memcpy(stub + n, (const void *)ins[k].addr, ins[k].len);
			n += ins[k].len;
			continue;
		}
		if (!(len = relocate(&ins[k], at + n, stub + n, entry, entry + cover))) {
			f->status = MTP_FN_UNRELOCATABLE;
			return; /* its stub memory is not reused */
		}
		n += len;
	}
	stub[n] = 0xe9;
	if (!fits32((int64_t)(entry + cover - (at + n + 5)))) {
		f->status = MTP_FN_NO_ROOM;
		return;
	}
	rel32(stub + n + 1, (int64_t)(entry + cover - (at + n + 5)));
	n += 5;
	if (put(at, stub, n)) {
		f->status = MTP_FN_WRITE;
		return;
	}
	*cont = at + start;
	/* the entry: jmp stub, then int3s; or with a hop, jmp stub in the
	 * padding before it and the entry a short jmp back to that */
	memcpy(f->orig, (const void *)(entry - lead), (size_t)(lead + cover));
	memcpy(f->code, f->orig, (size_t)(lead + cover));
	f->code[0] = 0xe9;
	rel32(f->code + 1, (int64_t)(at - (entry - lead + 5)));
	if (lead) {
		f->code[lead] = 0xeb;
		f->code[lead + 1] = (uint8_t)(int8_t)-(int)(lead + 2);
	}
	memset(f->code + lead + (lead ? 2 : 5), 0xcc, (size_t)cover - (lead ? 2 : 5));
	/* the bytes: [where - lead, where + cover) */
	f->cover = (uint32_t)(skip + cover);
	f->lead = skip ? -(int32_t)skip : (int32_t)lead;
	f->stub = at;
}

/* the longest run of pages mtp_patch_commit_all() writes at once */
#define RUN_MAX ((uint64_t)64 << 10)
#define PAGE_LO(a) ((a) & ~(uint64_t)4095)
#define PAGE_HI(a) (((a) + 4095) & ~(uint64_t)4095)

static const struct mtp_func *sorting;

/* The bytes f's patch writes: [lo, hi). */
static uint64_t patch_lo(const struct mtp_func *f)
{
	return f->where - (uint64_t)(int64_t)f->lead;
}

static uint64_t patch_hi(const struct mtp_func *f)
{
	return f->where + f->cover;
}

static int by_patch(const void *a, const void *b)
{
	return MT_CMP(patch_lo(&sorting[*(const uint32_t *)a]),
		      patch_lo(&sorting[*(const uint32_t *)b]));
}

void mtp_patch_commit_all(struct mtp_func *f, uint32_t n)
{
	uint32_t *ix = malloc(((size_t)n + 1) * sizeof(*ix)), m = 0, i, j, k;
	unsigned char *buf = malloc(RUN_MAX);

	if (!ix || !buf) {
		free(ix);
		free(buf);
		for (i = 0; i < n; i++)
			if (f[i].stub && f[i].status == MTP_FN_PENDING)
				mtp_patch_commit(&f[i]);
		return;
	}
	for (i = 0; i < n; i++)
		if (f[i].stub && f[i].status == MTP_FN_PENDING)
			ix[m++] = i;
	sorting = f;
	qsort(ix, m, sizeof(*ix), by_patch);
	/* from here on, system calls only */
	for (i = 0; i < m; i = j) {
		uint64_t lo = PAGE_LO(patch_lo(&f[ix[i]])), hi = PAGE_HI(patch_hi(&f[ix[i]]));
		long len;
		int ok;

		/* a run: patches on the same or the next page */
		for (j = i + 1; j < m; j++) {
			uint64_t e = PAGE_HI(patch_hi(&f[ix[j]]));

			if (PAGE_LO(patch_lo(&f[ix[j]])) > hi || e - lo > RUN_MAX)
				break;
			if (e > hi)
				hi = e;
		}
		len = (long)(hi - lo);
		ok = mtp_syscall6(SYS_pread64, mem, (long)buf, len, (long)lo, 0, 0) == len;
		for (k = i; ok && k < j; k++) {
			const struct mtp_func *g = &f[ix[k]];
			uint64_t at = patch_lo(g) - lo, b, nb = patch_hi(g) - patch_lo(g);
			volatile unsigned char *to = buf + at; /* no memcpy: no call */

			for (b = 0; b < nb; b++)
				to[b] = g->code[b];
		}
		if (ok && mtp_syscall6(SYS_pwrite64, mem, (long)buf, len, (long)lo, 0, 0) == len)
			for (k = i; k < j; k++)
				f[ix[k]].status = MTP_FN_PATCHED;
		else
			for (k = i; k < j; k++)
				mtp_patch_commit(&f[ix[k]]);
	}
	sorting = NULL;
	free(ix);
	free(buf);
}

void mtp_patch_commit(struct mtp_func *f)
{
	long n = (long)f->lead + (long)f->cover;

	if (mtp_syscall6(SYS_pwrite64, mem, (long)f->code, n, (long)f->where - (long)f->lead, 0,
			 0) == n)
		f->status = MTP_FN_PATCHED;
	else
		f->status = MTP_FN_WRITE;
}
