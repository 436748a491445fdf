/*
 * Patching one function's entry (patch.h), with capstone.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hooks.h"
#include "patch.h"
#include "../../common/cmp.h"
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
} arenas[MAX_ARENAS];
static int narenas;
static int anon_only; /* a memfd could not be mapped executable */
static int mem = -1; /* /proc/self/mem */
static csh cs;
/* The targets of direct branches from one function into another,
 * sorted (mtp_patch_targets). */
static uint64_t *targets;
static size_t ntargets;
/* Where each function of the scanned files starts, sorted: the end of
 * the padding after a function (pad_after). */
static uint64_t *starts;
static size_t nstarts;


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
	return arenas[i].base + arenas[i].used - n;
}

int mtp_patch_open(int commit)
{
	if (commit && (mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)) < 0)
		return -1;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		close(mem);
		mem = -1;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void mtp_patch_close(void)
{
	if (mem >= 0)
		close(mem);
	mem = -1;
	cs_close(&cs);
	free(targets);
	targets = NULL;
	ntargets = 0;
	free(starts);
	starts = NULL;
	nstarts = 0;
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

static int is_rel_branch(const cs_insn *in)
{
	return cs_insn_group(cs, in, CS_GRP_BRANCH_RELATIVE);
}

/* The relocated copy of in, to run at address to, into out; its length,
 * or 0 when it cannot move. entry..end are the bytes replaced.
 *
 * A call must be the last instruction replaced, and is not copied as a
 * call: its return address would be in the stub, where an unwinder finds
 * no unwind information (C++ exceptions, backtrace()). The copy pushes
 * the original return address (entry + cover, real code) and jumps. */
/*
 * Whether a rip-relative operand's displacement, disp, is where capstone
 * says it starts (encoding.disp_offset). In 64-bit mode it is always 4
 * bytes (mod 00, r/m 101), whatever capstone 4 says of its size: 2 for
 * the 66-prefixed SSE and AVX loads (movdqa, ucomisd, vmovdqa), which
 * were refused for it. Taken only when the 4 bytes there are disp and
 * nothing but the immediate follows them.
 */
static int rip_disp_at(const cs_insn *in, const cs_x86 *x, int64_t disp)
{
	unsigned off = x->encoding.disp_offset;
	int32_t d;

	if (!off || off + 4u + x->encoding.imm_size != in->size)
		return 0;
	memcpy(&d, in->bytes + off, 4);
	return d == disp;
}

static size_t relocate(const cs_insn *in, uint64_t to, uint8_t *out,
		       uint64_t entry, uint64_t end)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	switch (in->id) {
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_XBEGIN:
	case X86_INS_INT3: /* a breakpoint or uprobe of someone else's */
		return 0;
	}
	if (is_rel_branch(in)) {
		uint64_t target;

		if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
			return 0;
		target = (uint64_t)x->operands[0].imm;
		if (target > entry && target < end)
			return 0;
		if (in->id == X86_INS_CALL) {
			uint64_t back = in->address + in->size;
			uint32_t lo = (uint32_t)back, hi = (uint32_t)(back >> 32);
			/* lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp) */
			static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
			size_t k = 0;

			if (back != end)
				return 0;
			memcpy(out, lea, sizeof(lea));
			k += sizeof(lea);
			out[k++] = 0xc7; out[k++] = 0x04; out[k++] = 0x24;
			memcpy(out + k, &lo, 4);
			k += 4;
			out[k++] = 0xc7; out[k++] = 0x44; out[k++] = 0x24; out[k++] = 0x04;
			memcpy(out + k, &hi, 4);
			k += 4;
			out[k] = 0xe9;
			if (!fits32((int64_t)(target - (to + k + 5))))
				return 0;
			rel32(out + k + 1, (int64_t)(target - (to + k + 5)));
			return k + 5;
		}
		if (in->id == X86_INS_JMP) {
			out[0] = 0xe9;
			if (!fits32((int64_t)(target - (to + 5))))
				return 0;
			rel32(out + 1, (int64_t)(target - (to + 5)));
			return 5;
		}
		/* jcc: rel8 0x70+cc, rel32 0x0f 0x80+cc */
		out[0] = 0x0f;
		out[1] = 0x80 | ((x->opcode[0] == 0x0f ? x->opcode[1] : x->opcode[0]) & 0x0f);
		if (!fits32((int64_t)(target - (to + 6))))
			return 0;
		rel32(out + 2, (int64_t)(target - (to + 6)));
		return 6;
	}
	if (in->id == X86_INS_CALL || in->id == X86_INS_LCALL)
		return 0; /* an indirect call: its return address would be here */
	memcpy(out, in->bytes, in->size);
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		uint64_t target;
		int64_t d;

		if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
			continue;
		if (!rip_disp_at(in, x, op->mem.disp))
			return 0;
		target = in->address + in->size + (uint64_t)op->mem.disp;
		d = (int64_t)(target - (to + in->size));
		if (!fits32(d))
			return 0;
		rel32(out + x->encoding.disp_offset, d);
	}
	return in->size;
}

/* Whether a branch of the function's own, [entry, entry + size), goes
 * into (entry, entry + cover): MTP_FN_BRANCH_IN, MTP_FN_UNDECODABLE, or 0.
 * lenient: the branches up to the first instruction capstone cannot
 * decode (libgcc's unwinder has rdssp and incssp, which capstone 4 does
 * not know); its walkers are entered only by calls. */
static int branches_in(uint64_t entry, uint64_t size, uint64_t cover, int lenient)
{
	const uint8_t *code = (const uint8_t *)entry;
	size_t left = (size_t)size;
	uint64_t addr = entry;
	cs_insn *in = cs_malloc(cs);
	int ret = 0;

	if (!in)
		return MTP_FN_UNDECODABLE;
	while (left) {
		if (!cs_disasm_iter(cs, &code, &left, &addr, in)) {
			ret = lenient ? 0 : MTP_FN_UNDECODABLE;
			break;
		}
		if (is_rel_branch(in) && in->detail->x86.op_count == 1 &&
		    in->detail->x86.operands[0].type == X86_OP_IMM) {
			uint64_t t = (uint64_t)in->detail->x86.operands[0].imm;

			if (t > entry && t < entry + cover) {
				ret = MTP_FN_BRANCH_IN;
				break;
			}
		}
	}
	cs_free(in, 1);
	return ret;
}

static int by_value(const void *a, const void *b)
{
	return MT_CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

int mtp_patch_targets(const struct mtp_range *r, uint32_t n)
{
	cs_insn *in = cs_malloc(cs);
	size_t cap = 0;
	uint64_t *v;
	uint32_t k;

	if (!in || !(v = realloc(starts, (nstarts + n + 1) * sizeof(*v)))) {
		cs_free(in, 1);
		return -1;
	}
	starts = v;
	for (k = 0; k < n; k++) {
		const uint8_t *code = (const uint8_t *)r[k].where;
		size_t left = (size_t)r[k].size;
		uint64_t addr = r[k].where;

		if (!addr)
			continue;
		starts[nstarts++] = addr;
		/* up to the first instruction capstone cannot decode */
		while (left && cs_disasm_iter(cs, &code, &left, &addr, in)) {
			uint64_t t;

			if (!is_rel_branch(in) || in->detail->x86.op_count != 1 ||
			    in->detail->x86.operands[0].type != X86_OP_IMM)
				continue;
			t = (uint64_t)in->detail->x86.operands[0].imm;
			if (t >= r[k].where && t < r[k].where + r[k].size)
				continue; /* its own: branches_in() */
			if (ntargets == cap) {
				if (!(v = realloc(targets, (cap = cap ? 2 * cap : 4096) *
								   sizeof(*v)))) {
					cs_free(in, 1);
					return -1;
				}
				targets = v;
			}
			targets[ntargets++] = t;
		}
	}
	cs_free(in, 1);
	qsort(targets, ntargets, sizeof(*targets), by_value);
	qsort(starts, nstarts, sizeof(*starts), by_value);
	return 0;
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
	size_t lo = 0, hi = nstarts, left;
	const uint8_t *code = (const uint8_t *)end;
	uint64_t limit, addr = end, n = 0;
	cs_insn *in;

	while (lo < hi) { /* the first start >= end */
		size_t mid = lo + (hi - lo) / 2;

		if (starts[mid] < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	limit = lo < nstarts ? starts[lo] : (end | 4095) + 1;
	if (limit - end < want)
		want = limit - end;
	if (!want || !(in = cs_malloc(cs)))
		return 0;
	left = (size_t)want;
	while (n < want && cs_disasm_iter(cs, &code, &left, &addr, in) &&
	       (in->id == X86_INS_NOP || in->id == X86_INS_INT3))
		n += in->size;
	if (n > want) /* never: decoding stopped at want */
		n = 0;
	cs_free(in, 1);
	return n;
}

/* Whether another function branches into (entry, entry + cover). */
static int targeted(uint64_t entry, uint64_t cover)
{
	size_t lo = 0, hi = ntargets;

	while (lo < hi) { /* the first target > entry */
		size_t mid = lo + (hi - lo) / 2;

		if (targets[mid] <= entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ntargets && targets[lo] < entry + cover;
}

void mtp_patch(struct mtp_func *f, uint32_t i, uint64_t *cont, uint64_t redirect)
{
	uint8_t stub[MTP_STUB_MAX];
	const uint8_t *code = (const uint8_t *)f->where;
	uint64_t entry = f->where, addr = entry, at, cover = 0, room;
	size_t left, n = 0, k, nins = 0, start;
	cs_insn *in;
	int st;

	if (!f->size) {
		f->status = MTP_FN_NO_SIZE;
		return;
	}
	/* the bytes that may be replaced: the function's, and the padding
	 * after it when it is shorter than what covers 5 bytes */
	room = f->size < MTP_MAX_COVER ? f->size : MTP_MAX_COVER;
	if (room < 5 + 15 && room == f->size)
		room += pad_after(entry + f->size, MTP_MAX_COVER - room);
	if (room < 5) {
		f->status = MTP_FN_TOO_SHORT;
		return;
	}
	/* the instructions that cover 5 bytes: their length first */
	if (!(in = cs_malloc(cs))) {
		f->status = MTP_FN_UNDECODABLE;
		return;
	}
	left = (size_t)room;
	while (cover < 5) {
		if (!cs_disasm_iter(cs, &code, &left, &addr, in)) {
			cs_free(in, 1);
			f->status = left ? MTP_FN_UNDECODABLE : MTP_FN_TOO_SHORT;
			return;
		}
		cover += in->size;
		nins++;
		if (cover <= f->size && in->size == 1 && in->bytes[0] == 0xcc) {
			/* another tracer's breakpoint (a uprobe, a debugger's):
			 * moved, it would trap where none is set */
			cs_free(in, 1);
			f->status = MTP_FN_BREAKPOINT;
			return;
		}
	}
	if (cover > room) {
		cs_free(in, 1);
		f->status = MTP_FN_TOO_SHORT;
		return;
	}
	if (targeted(entry, cover)) {
		cs_free(in, 1);
		f->status = MTP_FN_BRANCH_IN;
		return;
	}
	if ((st = branches_in(entry, f->size, cover, redirect != 0))) {
		cs_free(in, 1);
		f->status = (uint32_t)st;
		return;
	}
	if (!(at = alloc_near(entry, sizeof(stub)))) {
		cs_free(in, 1);
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
		/* push $i; call *(arena base); lea 8(%rsp),%rsp */
		static const uint8_t drop[] = { 0x48, 0x8d, 0x64, 0x24, 0x08 };

		stub[n++] = 0x68;
		memcpy(stub + n, &i, 4);
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
	code = (const uint8_t *)entry;
	left = (size_t)cover;
	addr = entry;
	while (nins--) {
		cs_disasm_iter(cs, &code, &left, &addr, in);
		if (in->address >= entry + f->size) {
			/* padding (pad_after): no-ops and int3s, as they are */
			memcpy(stub + n, in->bytes, in->size);
			n += in->size;
			continue;
		}
		if (!(k = relocate(in, at + n, stub + n, entry, entry + cover))) {
			cs_free(in, 1);
			f->status = MTP_FN_UNRELOCATABLE;
			return; /* its stub memory is not reused */
		}
		n += k;
	}
	cs_free(in, 1);
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
	/* the entry: jmp stub, then int3 */
	memcpy(f->orig, (const void *)entry, (size_t)cover);
	f->code[0] = 0xe9;
	rel32(f->code + 1, (int64_t)(at - (entry + 5)));
	memset(f->code + 5, 0xcc, (size_t)cover - 5);
	f->cover = (uint32_t)cover;
	f->stub = at;
}

void mtp_patch_commit(struct mtp_func *f)
{
	if (mtp_syscall6(SYS_pwrite64, mem, (long)f->code, f->cover, (long)f->where, 0, 0) ==
	    (long)f->cover)
		f->status = MTP_FN_PATCHED;
	else
		f->status = MTP_FN_WRITE;
}
