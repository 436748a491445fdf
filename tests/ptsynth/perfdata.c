/*
 * A perf.data file that perf 6.1 (and later) decodes as Intel PT, written
 * from scratch (tests/ptsynth/README.md, "What perf needs in the file",
 * says why each piece is there): one event attr of size 64
 * (PERF_ATTR_SIZE_VER0, readable by any perf) with one id, the AUXTRACE_INFO record, the sideband (COMM, MMAP2,
 * FORK) in time order with {pid,tid}{time}{identifier} trailers, one
 * AUXTRACE buffer per thread (per-thread mode), and the HEADER_AUXTRACE
 * feature, without which perf script refuses -F addr.
 * Every field is written byte by byte, little-endian.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "ptsynth.h"
#include "xalloc.h"
#include "banned.h"

#define PMU_TYPE 8		/* any number will do; equals priv[0] */
#define EVENT_ID 1
#define ATTR_SIZE 64

/* perf_event_attr bits */
#define SAMPLE_IP (1ull << 0)
#define SAMPLE_TID (1ull << 1)
#define SAMPLE_TIME (1ull << 2)
#define SAMPLE_IDENTIFIER (1ull << 16)
#define F_EXCLUDE_KERNEL (1ull << 5)
#define F_EXCLUDE_HV (1ull << 6)
#define F_MMAP (1ull << 8)
#define F_COMM (1ull << 9)
#define F_TASK (1ull << 13)
#define F_SAMPLE_ID_ALL (1ull << 18)
#define F_MMAP2 (1ull << 23)
#define F_COMM_EXEC (1ull << 24)
/* intel_pt config bits, as a real PMU's format/ directory gives them */
#define CFG_PT (1ull << 0)
#define CFG_TSC (1ull << 10)
#define CFG_NORETCOMP (1ull << 11)
#define CFG_BRANCH (1ull << 13)

enum {
	REC_MMAP2 = 10, REC_COMM = 3, REC_FORK = 7,
	REC_AUXTRACE_INFO = 70, REC_AUXTRACE = 71,
};
#define MISC_USER 2
#define MISC_COMM_EXEC (1 << 13)
#define FEAT_AUXTRACE 18

struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct bytes *b, const void *s, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->n + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap, 1);
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static void put_le(struct bytes *b, uint64_t v, int size)
{
	uint8_t t[8];

	for (int i = 0; i < size; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	put(b, t, (size_t)size);
}

#define U16(b, v) put_le((b), (v), 2)
#define U32(b, v) put_le((b), (v), 4)
#define U64(b, v) put_le((b), (v), 8)

static void set_u16(struct bytes *b, size_t off, uint16_t v)
{
	b->p[off] = (uint8_t)v;
	b->p[off + 1] = (uint8_t)(v >> 8);
}

/* A sideband record and its time, for sorting. */
struct rec {
	uint64_t time;
	size_t seq;
	struct bytes b;
};

struct aux {
	uint32_t tid;
	uint64_t reference;
	struct bytes b;
};

static struct rec *recs;
static size_t nrecs, caprecs;
static struct aux *auxs;
static size_t nauxs, capauxs;

void pd_init(void)
{
}

void pd_release(void)
{
	for (size_t i = 0; i < nrecs; i++)
		free(recs[i].b.p);
	for (size_t i = 0; i < nauxs; i++)
		free(auxs[i].b.p);
	free(recs);
	free(auxs);
	recs = NULL;
	auxs = NULL;
	nrecs = caprecs = nauxs = capauxs = 0;
}

/* Start a record: header with size to be set by rec_end. */
static struct bytes *rec_begin(uint32_t type, uint16_t misc, uint64_t time)
{
	struct rec *r;

	grow_or_die(&recs, &caprecs, nrecs, sizeof(*recs));
	r = &recs[nrecs];
	memset(r, 0, sizeof(*r));
	r->time = time;
	r->seq = nrecs++;
	U32(&r->b, type);
	U16(&r->b, misc);
	U16(&r->b, 0);
	return &r->b;
}

/* The sample_id trailer, then the size. */
static void rec_end(struct bytes *b, uint32_t pid, uint32_t tid,
		    uint64_t time)
{
	U32(b, pid);
	U32(b, tid);
	U64(b, time);
	U64(b, EVENT_ID);
	if (b->n > 0xffff)
		die(MT_EXIT_SYSTEM, "perf record too long");
	set_u16(b, 6, (uint16_t)b->n);
}

/* A NUL-terminated string padded to 8 bytes. */
static void put_str8(struct bytes *b, const char *s)
{
	size_t n = strlen(s) + 1, pad = (8 - n % 8) % 8;
	static const uint8_t zero[8];

	put(b, s, n);
	put(b, zero, pad);
}

void pd_comm(uint32_t pid, uint32_t tid, const char *comm, int exec,
	     uint64_t time)
{
	struct bytes *b = rec_begin(REC_COMM, exec ? MISC_COMM_EXEC : 0, time);
	char c[16];

	snprintf(c, sizeof(c), "%s", comm);
	U32(b, pid);
	U32(b, tid);
	put_str8(b, c);
	rec_end(b, pid, tid, time);
}

void pd_mmap2(uint32_t pid, uint32_t tid, const struct sym_map *m,
	      uint64_t time)
{
	struct bytes *b = rec_begin(REC_MMAP2, MISC_USER, time);

	U32(b, pid);
	U32(b, tid);
	U64(b, m->start);
	U64(b, m->end - m->start);
	U64(b, m->pgoff);
	U32(b, m->maj);
	U32(b, m->min);
	U64(b, m->ino);
	U64(b, 0);		/* ino_generation */
	U32(b, 5);		/* PROT_READ | PROT_EXEC */
	U32(b, 2);		/* MAP_PRIVATE */
	put_str8(b, m->path);
	rec_end(b, pid, tid, time);
}

void pd_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time)
{
	struct bytes *b = rec_begin(REC_FORK, 0, time);

	U32(b, pid);
	U32(b, ppid);
	U32(b, tid);
	U32(b, ptid);
	U64(b, time);
	rec_end(b, pid, tid, time);
}

void pd_aux(uint32_t tid, const uint8_t *data, size_t len,
	    uint64_t reference)
{
	struct aux *a;

	grow_or_die(&auxs, &capauxs, nauxs, sizeof(*auxs));
	a = &auxs[nauxs++];
	memset(a, 0, sizeof(*a));
	a->tid = tid;
	a->reference = reference;
	put(&a->b, data, len);
}

static int cmp_rec(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void auxtrace_info(struct bytes *b)
{
	static const uint64_t priv[17] = {
		PMU_TYPE,	/* PMU_TYPE: equals attr.type */
		0, 1, 0,	/* TIME_SHIFT, MULT, ZERO: perf time = TSC */
		1,		/* CAP_USER_TIME_ZERO */
		CFG_TSC,	/* TSC_BIT */
		CFG_NORETCOMP,	/* NORETCOMP_BIT: every ret has a TIP */
		0,		/* HAVE_SCHED_SWITCH */
		0,		/* SNAPSHOT_MODE */
		0,		/* PER_CPU_MMAPS: per-thread mode */
		1ull << 9,	/* MTC_BIT */
		0, 0, 0,	/* MTC_FREQ_BITS, TSC_CTC_N, TSC_CTC_D */
		1ull << 1,	/* CYC_BIT */
		0,		/* MAX_NONTURBO_RATIO */
		0,		/* FILTER_STR_LEN */
	};

	U32(b, REC_AUXTRACE_INFO);
	U16(b, 0);
	U16(b, 8 + 8 + sizeof(priv));
	U32(b, 1);		/* PERF_AUXTRACE_INTEL_PT */
	U32(b, 0);
	for (size_t i = 0; i < 17; i++)
		U64(b, priv[i]);
}

void pd_write(const char *path)
{
	struct bytes f = { 0 }, index = { 0 };
	uint64_t attrs_off = 104, ids_off, data_off, data_size, feat_off;
	size_t data_start;
	int fd;

	/* header, patched below */
	put(&f, "PERFILE2", 8);
	U64(&f, 104);
	U64(&f, ATTR_SIZE + 16);
	for (int i = 0; i < 10; i++)
		U64(&f, 0);
	/* one attr (VER0) and its ids section */
	ids_off = attrs_off + ATTR_SIZE + 16;
	U32(&f, PMU_TYPE);
	U32(&f, ATTR_SIZE);
	U64(&f, CFG_PT | CFG_TSC | CFG_NORETCOMP | CFG_BRANCH);
	U64(&f, 1);		/* sample_period */
	U64(&f, SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_IDENTIFIER);
	U64(&f, 0);		/* read_format */
	U64(&f, F_EXCLUDE_KERNEL | F_EXCLUDE_HV | F_MMAP | F_COMM | F_TASK |
		F_SAMPLE_ID_ALL | F_MMAP2 | F_COMM_EXEC);
	U32(&f, 0);		/* wakeup_events */
	U32(&f, 0);		/* bp_type */
	U64(&f, 0);		/* config1 */
	U64(&f, ids_off);
	U64(&f, 8);
	U64(&f, EVENT_ID);
	data_off = f.n;
	data_start = f.n;

	auxtrace_info(&f);
	if (nrecs)
		qsort(recs, nrecs, sizeof(*recs), cmp_rec);
	for (size_t i = 0; i < nrecs; i++)
		put(&f, recs[i].b.p, recs[i].b.n);
	U64(&index, nauxs);
	for (size_t i = 0; i < nauxs; i++) {
		struct aux *a = &auxs[i];

		U64(&index, f.n);
		U64(&index, 48);
		U32(&f, REC_AUXTRACE);
		U16(&f, 0);
		U16(&f, 48);
		U64(&f, a->b.n);	/* size: 8-aligned by the encoder */
		U64(&f, 0);		/* offset in the AUX area */
		U64(&f, a->reference);
		U32(&f, (uint32_t)i);	/* idx: one queue per thread */
		U32(&f, a->tid);
		U32(&f, 0xffffffffu);	/* cpu: per-thread mode */
		U32(&f, 0);
		put(&f, a->b.p, a->b.n);
	}
	data_size = f.n - data_start;
	/* features: the section table, then HEADER_AUXTRACE */
	feat_off = f.n + 16;
	U64(&f, feat_off);
	U64(&f, index.n);
	put(&f, index.p, index.n);

	/* patch the header: attrs, data, event_types, feature bits */
	{
		uint64_t hdr[11] = {
			attrs_off, ATTR_SIZE + 16, data_off, data_size, 0, 0,
			1ull << FEAT_AUXTRACE, 0, 0, 0, 0,
		};

		for (int i = 0; i < 10; i++)
			for (int k = 0; k < 8; k++)
				f.p[24 + 8 * i + k] = (uint8_t)(hdr[i] >> (8 * k));
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die_errno(MT_EXIT_SYSTEM, "cannot create %s", path);
	write_or_die(fd, f.p, f.n);
	if (close(fd))
		die_errno(MT_EXIT_SYSTEM, "error writing %s", path);
	free(f.p);
	free(index.p);
}
