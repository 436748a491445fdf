/*
 * gen-perf-script: write synthetic but realistic `perf script` text for
 * Intel PT branch traces, as magic-trace asks perf for them:
 *
 *   perf script --ns --itrace=bep
 *       -F pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period
 *
 * Usage: gen-perf-script [--lines N] [--seed S] [--threads T] [--event-width W]
 *                        [--start-depth D] [--no-errors] [--truth FILE]
 *                        [--coarse NS] [--layout NAME] [--start NS]
 *
 * The text comes from a simulated program: a pool of a few thousand
 * functions (long demangled C++ and Rust names, OCaml, libc, PLT stubs,
 * unsymbolised code) laid out in several DSOs, and T threads that each walk
 * a call stack, so every return goes back to the address after its call.
 * Threads run in bursts on a shared clock; several branches share a
 * timestamp. Syscalls and interrupts stop the trace (`tr end  syscall`,
 * `tr end`) and it restarts later (`tr strt`); rare overflow errors lose
 * some branches; PSB and CBR events appear now and then.
 *
 * Columns follow perf 6.1 builtin-script.c byte for byte (see
 * docs/perf.md 2.2-2.6). The output is a function of N, S and T
 * only (and W, D, --no-errors, --coarse, --layout), and the first N lines
 * for given options do not depend on N. Without --start-depth, --no-errors,
 * --coarse and --layout (D = 0, errors on) the text is what it always was:
 * the benchmarks' inputs must not move.
 *
 * --start-depth D starts each thread D frames deep (up to D, where the call
 * graph is shallower): callers that were running before the trace began,
 * whose calls are never printed but whose returns are. --no-errors leaves
 * out the overflow errors and the branches they lose.
 *
 * --coarse NS prints every time rounded down to a multiple of NS ns, as
 * when PT timing packets come only every few branches (about every 1 us
 * with psb and mtc alone, magic-trace's low resolution): many consecutive
 * lines then share one timestamp. The simulation does not change.
 *
 * --start NS makes NS (in ns) the time of the first line, in place of a
 * random one of 50,000 to 4,050,000 s: the times of a machine booted
 * seconds ago ("    0.000001000:", perf pads the seconds to five columns),
 * up for years, or crossing 10,000 s. The simulation does not change: its
 * times move by a constant.
 *
 * --layout NAME prints the same simulation in another column layout
 * (perf.md 2.2-2.3, tests/fixtures/perf-script):
 *
 *   magic-trace  the default, above: pid/tid time period event flags
 *                ip sym+off (dso) => addr sym+off (dso)
 *   legacy       magic-trace's older -F pid,tid,time,flags,ip,addr,sym,
 *                symoff: no period, event or DSO; perf before 5.18's
 *                flags column "  %-19s ". psb and cbr lines keep their
 *                synth text, as in magic-trace's tests of that format
 *                (without it perf prints them as bare samples)
 *   comm-cpu     -F comm,pid,tid,cpu,time,event,flags,ip,sym,symoff,dso,
 *                addr: comm "%16s " (names with spaces and a slash, such
 *                as "CPU 0/KVM"), "[%03d] " cpu (it changes at tr strt),
 *                no period; psb and cbr lines without synth text
 *   perf615      magic-trace's fields from perf 6.15 on: event
 *                "branches:u", trace start "tr strt jmp", trace end
 *                "tr end  jmp"
 *
 * Without DSOs functions are still told apart: names with offsets give
 * entry addresses, and the unsymbolised functions (a stripped libm, a few
 * in the vendor library) never call one another.
 *
 * --truth FILE writes the call spans the simulation really had, one line
 * per function activation, tab-separated, as each ends:
 *
 *   pid tid depth start_ns end_ns flags name
 *
 * Times are the printed `time` column in ns, as --coarse rounds them;
 * nothing in the file depends on --layout. depth counts from the thread's
 * root (0). flags is "-" or a comma list of "inferred" (running before the
 * thread's first printed line; start is that line's time) and "open" (still
 * running at the thread's last printed line, psb and cbr included; end is
 * that line's time). name is the symbol as printed, "[unknown]" without
 * one. A call starts the callee's span at the call's time, a return ends it
 * at the return's time; a jmp to another function's entry (tail call, a PLT
 * stub's jmp) ends the current span and starts the target's at the same
 * depth and time. Another function means another entry address: names
 * repeat (there are several `__rust_dealloc`), and a jmp from one to
 * another of the same name is a tail call too. A `tr end` at t1 and the
 * thread's next `tr strt` at t2 give a span "[untraced]" ("[syscall]"
 * after `tr end  syscall`) one level below the current frame, from t1 to
 * t2. Exact only with --no-errors: an error loses branches, and the spans
 * they made cannot be told from the text.
 *
 * Exit status: 0, 2 on a usage error, 3 on a write error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "xalloc.h"
#include "banned.h"

/*
 * perf pads the event column to the longest event name in the file. With
 * magic-trace's default `-e intel_pt/cyc=1,cyc_thresh=1,mtc_period=0/u`
 * that name is 42 characters long, as in real captures of magic-trace's
 * tests; on older CPUs magic-trace uses `intel_pt//u` (11).
 */
static int event_width = 42;
#define MAX_DEPTH 96
#define MAX_THREADS 64
#define MAX_CALLEES 8
#define LINE_MAX_LEN 4096

/*
 * ---- deterministic random numbers (splitmix64) ----
 * At most one draw per expression: C leaves the order in which operands and
 * arguments are evaluated open, and the output must not depend on the
 * compiler.
 */

static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static uint32_t below(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * n) >> 32);
}

/*
 * A fixed choice in [0, n) for a place in the code: real code has a fixed
 * set of branch instructions, each with a fixed target, and a trace visits
 * them again and again (loops, hot paths). Drawing these from the global
 * generator instead would make almost every line's addresses new.
 */
static uint32_t fixed(uint64_t where, uint32_t salt, uint32_t n)
{
	uint64_t z = where * 0x9e3779b97f4a7c15ULL + salt;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (uint32_t)(((z >> 32) * n) >> 32);
}

static const char *pick(const char *const *v, size_t n)
{
	return v[below((uint32_t)n)];
}
#define PICK(v) pick((v), sizeof(v) / sizeof((v)[0]))

/* ---- output ---- */

static char obuf[1 << 20];
static size_t olen;
static uint64_t lines_out;

static void flush_out(void)
{
	write_or_die(STDOUT_FILENO, obuf, olen);
	olen = 0;
}

/* Room for one line; returns where it starts. */
static char *line_begin(void)
{
	if (olen + LINE_MAX_LEN > sizeof(obuf))
		flush_out();
	return obuf + olen;
}

static void line_end(char *p)
{
	*p++ = '\n';
	olen = (size_t)(p - obuf);
	lines_out++;
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static const char hexdigit[] = "0123456789abcdef";

/* "%llx" */
static char *put_hex(char *p, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[15 - n++] = hexdigit[v & 15];
		v >>= 4;
	} while (v);
	return put(p, tmp + 16 - n, (size_t)n);
}

/* "%16llx" */
static char *put_hex16(char *p, uint64_t v)
{
	int n = 0;
	uint64_t w = v;

	do {
		n++;
		w >>= 4;
	} while (w);
	memset(p, ' ', (size_t)(16 - n));
	return put_hex(p + 16 - n, v);
}

/* "%*lu" (right-aligned), or zero-padded when zero is set */
static char *put_dec(char *p, uint64_t v, int width, int zero)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[19 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (width-- > n)
		*p++ = zero ? '0' : ' ';
	return put(p, tmp + 20 - n, (size_t)n);
}

/* ---- the simulated program ---- */

enum lang { L_CXX, L_LIBCXX, L_LIBC, L_RUST, L_OCAML, L_VDSO, L_LIBM, L_VENDOR };

struct dso {
	const char *path;
	char *paren;		/* " (path)" as perf prints it after a symbol */
	size_t paren_len;
	uint64_t next;		/* where the next function goes */
};

static struct dso dsos[] = {
	[L_CXX] = { "/home/builder/gateway/bin/order-gateway", NULL, 0, 0x400000 },
	[L_LIBCXX] = { "/usr/lib/x86_64-linux-gnu/libc++.so.1", NULL, 0, 0x7f6fcd400000 },
	[L_LIBC] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL, 0, 0x7f6fce028000 },
	[L_RUST] = { "/opt/qe/lib/libquery_engine.so", NULL, 0, 0x7f6fcb212000 },
	[L_OCAML] = { "/nix/store/q4wq65gl3r8fy746v9bbwgx4gzn0r2kl-ocaml-analytics-0.3.1/lib/libanalytics.so", NULL, 0, 0x7f6fca604000 },
	[L_VDSO] = { "[vdso]", NULL, 0, 0x7ffd193838e0 },
	[L_LIBM] = { "/usr/lib/x86_64-linux-gnu/libm.so.6", NULL, 0, 0x7f6fcdd0e000 },
	[L_VENDOR] = { "/opt/Vendor Tools/lib/libvendor crypto.so.2", NULL, 0, 0x7f6fc9a31000 },
};
#define NDSOS (sizeof(dsos) / sizeof(dsos[0]))

enum fkind { F_PLAIN, F_LEAF, F_SYSCALL, F_PLT };

struct func {
	char *name;		/* NULL: perf prints [unknown] */
	size_t name_len;
	uint64_t start;
	uint32_t size;
	uint8_t dso;
	uint8_t kind;
	uint8_t ncallee;
	uint32_t target;	/* F_PLT: the function the stub jumps to */
	uint32_t callee[MAX_CALLEES];
};

static struct func *fn;
static uint32_t nfn, capfn;
/* index ranges of each language's functions, for picking callees */
static uint32_t lang_lo[NDSOS], lang_hi[NDSOS];
static uint32_t plt_lo, plt_hi;

static uint32_t add_func(enum lang l, const char *name, enum fkind kind,
			 uint32_t size)
{
	struct func *f;
	struct dso *d = &dsos[l];

	if (nfn == capfn) {
		capfn = capfn ? 2 * capfn : 1024;
		fn = xrealloc(fn, capfn, sizeof(*fn));
	}
	f = &fn[nfn];
	memset(f, 0, sizeof(*f));
	f->name = name ? xstrdup(name) : NULL;
	f->name_len = name ? strlen(name) : 0;
	if (f->name_len > 1000)
		die(MT_EXIT_SYSTEM, "internal error: name too long: %s", name);
	f->size = size;
	f->start = d->next;
	f->dso = (uint8_t)l;
	f->kind = (uint8_t)kind;
	d->next = (d->next + size + below(48) + 15) & ~(uint64_t)15;
	return nfn++;
}

static uint32_t func_size(void)
{
	uint32_t r = below(100);

	if (r < 60)
		return 0x30 + below(0x200);
	if (r < 90)
		return 0x200 + below(0x800);
	return 0x800 + below(0x3000);
}

/* A tiny string builder over a fixed buffer, enough for one name. */
struct sb {
	char b[1024];
	size_t n;
};

static void sb_add(struct sb *s, const char *t)
{
	size_t k = strlen(t);

	if (s->n + k >= sizeof(s->b))
		k = sizeof(s->b) - 1 - s->n;
	memcpy(s->b + s->n, t, k);
	s->n += k;
	s->b[s->n] = '\0';
}

/* Close a template argument list as the demangler does: "> >" after '>'. */
static void sb_close_angle(struct sb *s)
{
	sb_add(s, s->n && s->b[s->n - 1] == '>' ? " >" : ">");
}

/* ---- name material ---- */

#define STR_LIBCXX "std::__1::basic_string<char, std::char_traits<char>, std::allocator<char> >"

static const char *const cxx_ns[] = {
	"trading", "trading::engine", "trading::engine::detail", "market_data::feed",
	"market_data::itch50::detail", "risk::limits", "net::tcp", "boost::asio::detail",
	"absl::lts_20230802::container_internal", "folly::detail", "google::protobuf::internal",
	"tbb::detail::d1", "grpc_core", "seastar::internal", "acme::util", "std::__1",
};
static const char *const cxx_class[] = {
	"OrderBook", "Session", "Connection", "MessageDecoder", "PriceLevel", "BookSide",
	"Scheduler", "RingBuffer", "raw_hash_set", "SlabAllocator", "Reactor", "TimerWheel",
	"Strategy", "RiskCheck", "Serializer", "Arena", "EventLoop", "Dispatcher",
	"ThreadPool", "Channel", "reactive_socket_service_base", "__hash_table", "__tree",
	"function", "Promise", "Future", "SmallVector", "InlinedVector",
};
static const char *const cxx_targ[] = {
	"int", "unsigned long", "double", "char", "bool", "trading::engine::Order",
	"market_data::feed::Quote", STR_LIBCXX,
	"std::__1::vector<trading::engine::Order, std::__1::allocator<trading::engine::Order> >",
	"std::__1::shared_ptr<net::tcp::Connection>",
	"std::__1::unique_ptr<market_data::feed::Handler, std::__1::default_delete<market_data::feed::Handler> >",
	"std::__1::pair<unsigned long const, trading::engine::PriceLevel*>",
	"std::__1::less<unsigned long>",
	"std::__1::hash<" STR_LIBCXX " >",
	"absl::lts_20230802::hash_internal::Hash<long>",
	"std::__1::chrono::duration<long long, std::__1::ratio<1l, 1000000000l> >",
	"(trading::engine::Side)0",
	"16ul",
};
static const char *const cxx_method[] = {
	"on_message", "process", "handle_read", "handle_write", "dispatch", "insert",
	"erase", "find", "lookup", "apply", "operator()", "operator==", "operator<",
	"operator[]", "operator=", "operator<<", "run", "poll", "flush", "submit",
	"try_push", "try_pop", "resize", "rehash", "emplace_back", "reserve", "decode",
	"encode", "update_level", "cancel_order", "add_order", "match", "__emplace_unique_key_args",
	"prepare_insert", "drop_deletes_without_resize", "do_complete", "invoke",
};
static const char *const cxx_params[] = {
	"()", "() const", "(int)", "(unsigned long, double)",
	"(trading::engine::Order const&)",
	"(" STR_LIBCXX " const&, unsigned long)",
	"(net::tcp::Connection*, std::__1::function<void (int)>)",
	"(boost::system::error_code const&, unsigned long)",
	"(market_data::feed::Quote const&) const",
};
static const char *const cxx_lambda[] = {
	"{lambda(int)#1}", "{lambda()#1}", "{lambda()#2}", "{lambda(auto:1&&)#1}",
	"{lambda(" STR_LIBCXX " const&)#1}", "{lambda(trading::engine::Order&)#3}",
};

static void name_cxx(struct sb *s)
{
	const char *cls = PICK(cxx_class);
	uint32_t r = below(100);

	sb_add(s, PICK(cxx_ns));
	sb_add(s, "::");
	if (r < 10) {		/* free function template */
		sb_add(s, PICK(cxx_method));
		sb_add(s, "<");
		sb_add(s, PICK(cxx_targ));
		sb_close_angle(s);
		return;
	}
	sb_add(s, cls);
	if (below(100) < 35) {
		int n = 1 + (below(100) < 20);

		n += below(100) < 5;

		sb_add(s, "<");
		for (int i = 0; i < n; i++) {
			if (i)
				sb_add(s, ", ");
			sb_add(s, PICK(cxx_targ));
		}
		sb_close_angle(s);
	}
	sb_add(s, "::");
	if (r < 16) {		/* constructor or destructor */
		if (r < 13)
			sb_add(s, "~");
		sb_add(s, cls);
	} else {
		sb_add(s, PICK(cxx_method));
	}
	if (below(100) < 20)
		sb_add(s, PICK(cxx_params));
	if (below(100) < 12) {
		sb_add(s, "::");
		sb_add(s, PICK(cxx_lambda));
		sb_add(s, "::operator()");
		if (below(2))
			sb_add(s, "() const");
	}
}

static const char *const rust_path[] = {
	"tokio::runtime::scheduler::multi_thread::worker", "tokio::runtime::task::harness",
	"tokio::runtime::task::core", "hyper::proto::h1::conn", "query_engine::exec::pipeline",
	"query_engine::plan::optimizer", "query_engine::storage::segment",
	"arrow_array::array::primitive_array", "hashbrown::raw", "serde_json::de",
	"bytes::bytes_mut", "alloc::raw_vec", "core::slice::sort", "parking_lot::raw_mutex",
	"crossbeam_channel::flavors::array",
};
static const char *const rust_type[] = {
	"Context", "Harness<T,S>", "Core<T,S>", "Conn<I,B,T>", "Pipeline", "Optimizer",
	"SegmentReader", "PrimitiveArray<T>", "RawTable<T,A>", "Deserializer<R>", "BytesMut",
	"RawVec<T,A>", "RawMutex", "Channel<T>", "Stage<T>",
};
static const char *const rust_method[] = {
	"run_task", "poll", "poll_next", "reserve_rehash", "parse_whitespace",
	"reserve_for_push", "grow_amortized", "execute", "next_batch", "spawn_inner",
	"drop_slow", "lock_slow", "try_recv", "insert", "scan_column", "merge_runs",
};
static const char *const rust_trait[] = {
	"core::ops::drop::Drop>::drop", "core::iter::traits::iterator::Iterator>::next",
	"core::future::future::Future>::poll", "core::clone::Clone>::clone",
	"core::fmt::Debug>::fmt", "futures_core::stream::Stream>::poll_next",
	"core::iter::traits::iterator::Iterator>::fold",
};
static const char *const rust_fixed[] = {
	"<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop",
	"<alloc::vec::Vec<T,A> as alloc::vec::spec_extend::SpecExtend<T,I>>::spec_extend",
	"<core::iter::adapters::map::Map<I,F> as core::iter::traits::iterator::Iterator>::fold",
	"core::ptr::drop_in_place<tokio::runtime::task::core::Stage<query_engine::exec::pipeline::Pipeline::run::{{closure}}>>",
	"core::ptr::drop_in_place<alloc::vec::Vec<query_engine::storage::segment::Block>>",
	"core::ptr::drop_in_place<hyper::proto::h1::conn::Conn<tokio::net::tcp::stream::TcpStream,bytes::bytes::Bytes,hyper::proto::h1::role::Server>>",
	"alloc::sync::Arc<T>::drop_slow", "__rust_dealloc", "__rdl_dealloc", "__rust_alloc",
	"__rdl_alloc", "std::sys::unix::locks::futex_mutex::Mutex::lock_contended",
	"tokio::runtime::scheduler::multi_thread::worker::Context::run_task::{{closure}}",
};

static void name_rust(struct sb *s)
{
	uint32_t r = below(100);

	if (r < 20) {
		sb_add(s, PICK(rust_fixed));
	} else if (r < 45) {
		sb_add(s, "<");
		sb_add(s, PICK(rust_path));
		sb_add(s, "::");
		sb_add(s, PICK(rust_type));
		sb_add(s, " as ");
		sb_add(s, PICK(rust_trait));
	} else if (r < 55) {
		sb_add(s, "core::ptr::drop_in_place<");
		sb_add(s, PICK(rust_path));
		sb_add(s, "::");
		sb_add(s, PICK(rust_type));
		sb_add(s, ">");
	} else {
		sb_add(s, PICK(rust_path));
		sb_add(s, "::");
		sb_add(s, PICK(rust_type));
		sb_add(s, "::");
		sb_add(s, PICK(rust_method));
		for (int n = below(100) < 25 ? 1 + (int)below(2) : 0; n > 0; n--)
			sb_add(s, "::{{closure}}");
	}
}

static const char *const ml_module[] = {
	"Async_unix.Raw_scheduler", "Base.Comparable", "Core.Time_ns", "Base.List",
	"Stdlib.Hashtbl", "Async_kernel.Scheduler", "Analytics.Book", "Analytics.Feed_parser",
	"Core_kernel.Pairing_heap", "Base.Map",
};
static const char *const ml_func[] = {
	"one_iter", "run_cycle", "=", "compare", "find", "map", "fold_left", "add", "now",
	"parse_message", "apply_update", "iter", "fun", "loop", "find_exn", "of_string",
};
static const char *const ml_runtime[] = {
	"caml_apply2", "caml_apply3", "caml_call_gc", "caml_alloc_small", "caml_c_call",
	"caml_curry3_1", "caml_garbage_collection", "caml_alloc_shr", "caml_major_collection_slice",
};

static void name_ocaml(struct sb *s)
{
	char num[32];
	uint32_t r = below(100);

	snprintf(num, sizeof(num), "_%u", 1000 + below(9000));
	if (r < 15) {
		sb_add(s, PICK(ml_runtime));
		return;
	}
	if (r < 60) {		/* OCaml >= 4.14 style: Base.Comparable.=_2352 */
		sb_add(s, PICK(ml_module));
		sb_add(s, ".");
		sb_add(s, PICK(ml_func));
	} else {		/* older style: camlBase__List__map_1829 */
		const char *m = PICK(ml_module);

		sb_add(s, "caml");
		for (; *m; m++) {
			char c[2] = { *m, 0 };

			sb_add(s, *m == '.' ? "__" : c);
		}
		sb_add(s, "__");
		sb_add(s, PICK(ml_func));
	}
	sb_add(s, num);
}

static const char *const vendor_func[] = {
	"aes_gcm_seal", "sha256_block", "ctx_update", "ct_memcmp",
};

/* libc, callers before callees (calls within a DSO only go down the list) */
static const struct {
	const char *name;
	enum fkind kind;
} libc_funcs[] = {
	{ "qsort_r", F_PLAIN }, { "msort_with_tmp.part.0", F_PLAIN }, { "_IO_fwrite", F_PLAIN },
	{ "__vfprintf_internal", F_PLAIN }, { "__GI___printf_fp_l", F_PLAIN },
	{ "_IO_file_xsputn@@GLIBC_2.2.5", F_PLAIN }, { "realloc", F_PLAIN },
	{ "__libc_calloc", F_PLAIN }, { "malloc", F_PLAIN }, { "cfree@GLIBC_2.2.5", F_PLAIN },
	{ "_int_malloc", F_PLAIN }, { "_int_free", F_PLAIN }, { "sysmalloc", F_SYSCALL },
	{ "malloc_consolidate", F_LEAF }, { "___pthread_cond_wait", F_PLAIN },
	{ "__pthread_cond_signal", F_PLAIN }, { "__futex_abstimed_wait_common", F_SYSCALL },
	{ "pthread_mutex_lock@@GLIBC_2.2.5", F_PLAIN }, { "pthread_mutex_unlock@@GLIBC_2.2.5", F_PLAIN },
	{ "__lll_lock_wait", F_SYSCALL }, { "__lll_lock_wake", F_SYSCALL }, { "getenv", F_PLAIN },
	{ "__strtol_internal", F_PLAIN }, { "____strtoul_l_internal", F_LEAF },
	{ "__clock_gettime", F_PLAIN }, { "__GI___libc_write", F_SYSCALL },
	{ "__libc_recv", F_SYSCALL }, { "__libc_sendmsg", F_SYSCALL }, { "epoll_wait", F_SYSCALL },
	{ "__nanosleep", F_SYSCALL }, { "syscall", F_SYSCALL }, { "mmap64", F_SYSCALL },
	{ "munmap", F_SYSCALL }, { "__GI___open64_nocancel", F_SYSCALL },
	{ "__libc_read", F_SYSCALL }, { "__poll", F_SYSCALL }, { "__mpn_mul_1", F_LEAF },
	{ "__memmove_avx_unaligned_erms", F_LEAF }, { "__memset_avx2_unaligned_erms", F_LEAF },
	{ "__memcmp_avx2_movbe", F_LEAF }, { "__strlen_avx2", F_LEAF }, { "__strcmp_avx2", F_LEAF },
	{ "__memchr_avx2", F_LEAF }, { "__tls_get_addr", F_LEAF }, { "__errno_location", F_LEAF },
};
#define NLIBC (sizeof(libc_funcs) / sizeof(libc_funcs[0]))

static const char *const libcxx_funcs[] = {
	STR_LIBCXX "::append(char const*, unsigned long)",
	STR_LIBCXX "::__grow_by_and_replace(unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, char const*)",
	STR_LIBCXX "::basic_string(" STR_LIBCXX " const&)",
	STR_LIBCXX "::~basic_string()",
	"operator new(unsigned long)", "operator delete(void*)", "operator delete(void*, unsigned long)",
	"std::__1::__next_prime(unsigned long)", "std::__1::locale::locale()",
	"std::__1::basic_ostream<char, std::__1::char_traits<char> >::sentry::sentry(std::__1::basic_ostream<char, std::__1::char_traits<char> >&)",
	"std::__1::basic_ostream<char, std::__1::char_traits<char> >::operator<<(long)",
	"std::__1::__tree_balance_after_insert<std::__1::__tree_node_base<void*>*>(std::__1::__tree_node_base<void*>*, std::__1::__tree_node_base<void*>*)",
	"std::__1::condition_variable::notify_one()", "std::__1::mutex::lock()", "std::__1::mutex::unlock()",
	"__cxa_guard_acquire", "__dynamic_cast", "__cxa_throw", "_Unwind_RaiseException",
	"std::__1::__shared_weak_count::__release_weak()", "std::__1::chrono::steady_clock::now()",
};

static void build_program(void)
{
	struct sb s;
	enum fkind kind;

	for (size_t i = 0; i < NDSOS; i++) {
		struct sb p = { .n = 0 };

		sb_add(&p, " (");
		sb_add(&p, dsos[i].path);
		sb_add(&p, ")");
		dsos[i].paren = xstrdup(p.b);
		dsos[i].paren_len = p.n;
	}

	/* libc first: the PLT stubs in the executable need targets */
	lang_lo[L_LIBC] = nfn;
	for (size_t i = 0; i < NLIBC; i++)
		add_func(L_LIBC, libc_funcs[i].name, libc_funcs[i].kind,
			 0x40 + below(0x7c0));
	lang_hi[L_LIBC] = nfn;

	lang_lo[L_VDSO] = nfn;
	add_func(L_VDSO, "__vdso_clock_gettime", F_LEAF, 0x1a0);
	add_func(L_VDSO, "__vdso_gettimeofday", F_LEAF, 0x140);
	lang_hi[L_VDSO] = nfn;

	/* the executable: .plt, then .text */
	dsos[L_CXX].next = 0x401020;
	plt_lo = nfn;
	for (uint32_t i = lang_lo[L_LIBC]; i < lang_hi[L_LIBC]; i += 1 + below(3)) {
		struct sb p = { .n = 0 };
		const char *at = strchr(fn[i].name, '@');
		uint32_t k;

		if (at)
			continue;
		sb_add(&p, fn[i].name);
		sb_add(&p, "@plt");
		k = add_func(L_CXX, p.b, F_PLT, 0x10);
		fn[k].target = i;
	}
	plt_hi = nfn;
	dsos[L_CXX].next = 0x404000;
	lang_lo[L_CXX] = nfn;
	add_func(L_CXX, "main", F_PLAIN, 0x900);
	for (int i = 0; i < 1600; i++) {
		s.n = 0;
		name_cxx(&s);
		kind = below(100) < 15 ? F_LEAF : F_PLAIN;
		add_func(L_CXX, s.b, kind, func_size());
	}
	lang_hi[L_CXX] = nfn;

	lang_lo[L_LIBCXX] = nfn;
	for (size_t i = 0; i < sizeof(libcxx_funcs) / sizeof(libcxx_funcs[0]); i++) {
		kind = below(3) ? F_PLAIN : F_LEAF;
		add_func(L_LIBCXX, libcxx_funcs[i], kind, func_size());
	}
	lang_hi[L_LIBCXX] = nfn;

	lang_lo[L_RUST] = nfn;
	for (int i = 0; i < 800; i++) {
		s.n = 0;
		name_rust(&s);
		kind = below(100) < 15 ? F_LEAF : F_PLAIN;
		add_func(L_RUST, s.b, kind, func_size());
	}
	lang_hi[L_RUST] = nfn;

	lang_lo[L_OCAML] = nfn;
	for (int i = 0; i < 400; i++) {
		s.n = 0;
		name_ocaml(&s);
		kind = below(100) < 20 ? F_LEAF : F_PLAIN;
		add_func(L_OCAML, s.b, kind, func_size());
	}
	lang_hi[L_OCAML] = nfn;

	/* stripped library: perf prints [unknown] (no offset) */
	lang_lo[L_LIBM] = nfn;
	for (int i = 0; i < 40; i++)
		add_func(L_LIBM, NULL, F_LEAF, func_size());
	lang_hi[L_LIBM] = nfn;

	lang_lo[L_VENDOR] = nfn;
	for (int i = 0; i < 30; i++) {
		const char *what = PICK(vendor_func);
		char b[64];

		snprintf(b, sizeof(b), "%s_%s%u", i % 3 ? "vc" : "VC", what, below(64));
		add_func(L_VENDOR, i % 7 == 3 ? NULL : b, F_PLAIN, func_size());
	}
	lang_hi[L_VENDOR] = nfn;
}

static uint32_t in(enum lang l)
{
	return lang_lo[l] + below(lang_hi[l] - lang_lo[l]);
}

/*
 * A function of language l to call from function i: within its own language
 * only one further down the list, so the call graph has no cycles and the
 * simulated stacks stay shallow (no recursion). NONE when there is none.
 */
#define NONE UINT32_MAX
static uint32_t below_in(enum lang l, uint32_t i)
{
	if (i < lang_lo[l] || i >= lang_hi[l])
		return lang_lo[l] + below(lang_hi[l] - lang_lo[l]);
	if (i + 1 >= lang_hi[l])
		return NONE;
	return i + 1 + below(lang_hi[l] - i - 1);
}

/* Who calls whom: each language mostly calls itself, then the C library. */
static uint32_t pick_callee(uint32_t i)
{
	const struct func *f = &fn[i];
	uint32_t r = below(100);

	switch (f->dso) {
	case L_CXX:
		if (r < 50)
			return below_in(L_CXX, i);
		if (r < 74)
			return plt_lo + below(plt_hi - plt_lo);
		if (r < 84)
			return below_in(L_LIBCXX, i);
		if (r < 91)
			return below_in(L_RUST, i);
		if (r < 96)
			return below_in(L_OCAML, i);
		if (r < 97)
			return below_in(L_LIBM, i);
		return below_in(L_VENDOR, i);
	case L_RUST:
		return r < 70 ? below_in(L_RUST, i) : below_in(L_LIBC, i);
	case L_OCAML:
		return r < 75 ? below_in(L_OCAML, i) : below_in(L_LIBC, i);
	case L_LIBCXX:
		return r < 40 ? below_in(L_LIBCXX, i) : below_in(L_LIBC, i);
	case L_LIBC:
		if (!strcmp(f->name, "__clock_gettime"))
			return lang_lo[L_VDSO];
		return below_in(L_LIBC, i);
	default:
		return below_in(L_LIBC, i);
	}
}

static void build_callgraph(void)
{
	for (uint32_t i = 0; i < nfn; i++) {
		struct func *f = &fn[i];
		int want;

		if (f->kind == F_LEAF || f->kind == F_PLT)
			continue;
		want = 1 + (int)below(f->dso == L_LIBC ? 2 : 6);
		for (int k = 0; k < want; k++) {
			uint32_t c = pick_callee(i);

			if (c != NONE)
				f->callee[f->ncallee++] = c;
		}
	}
	/* main fans out over the whole program */
	fn[lang_lo[L_CXX]].ncallee = MAX_CALLEES;
	for (int k = 0; k < MAX_CALLEES; k++)
		fn[lang_lo[L_CXX]].callee[k] =
			k < 5 ? in(L_CXX) : k < 7 ? in(L_RUST) : in(L_OCAML);
}

/* ---- threads and the clock ---- */

enum flag { FL_NONE, FL_CALL, FL_RETURN, FL_JCC, FL_JMP, FL_TR_STRT, FL_TR_END,
	    FL_TR_END_SYSCALL, NFLAGS };

struct frame {
	uint32_t fn;
	uint64_t ret;
};

struct thread {
	int pid, tid;
	char prefix[48];	/* [comm "%16s "] "%5d/%-5d " */
	size_t prefix_len;
	int cpu;		/* where it runs since its last tr strt */
	uint32_t nstrt;		/* tr strt lines so far, to move it between CPUs */
	struct frame stack[MAX_DEPTH];
	int depth;
	uint32_t fn;		/* current function */
	uint64_t ip;		/* where execution is within it */
	uint64_t ready;		/* may not run before this time */
	int stopped;		/* trace stopped: next line is "tr strt" */
	int plt_pending;	/* in a PLT stub: next branch is its jmp */
	uint64_t psb_offs;

	/* --truth: the spans on the stack; frame k's start is tstart[k] */
	uint64_t tstart[MAX_DEPTH + 1];
	uint8_t tinferred[MAX_DEPTH + 1];
	int seen;		/* a line was printed: first and last are set */
	uint64_t first, last;	/* times of its first and last printed line */
	enum flag untraced;	/* FL_TR_END*: stopped at untraced_at; or FL_NONE */
	uint64_t untraced_at;
};

static struct thread threads[MAX_THREADS];
static int nthreads;
static uint64_t now;		/* ns */
static int quiet;		/* simulate without printing (lost trace data) */
static int no_errors;		/* --no-errors */
static int start_depth;		/* --start-depth */
static uint64_t coarse = 1;	/* --coarse: printed times are multiples of it */
static uint64_t start_ns = UINT64_MAX;	/* --start: the first line's time */

/* The printed time of now (and of every time the truth holds). */
static uint64_t shown(uint64_t ns)
{
	return ns - ns % coarse;
}

/*
 * --layout: which columns perf prints (perf.md 2.2-2.3). The simulation,
 * and with it the truth, is the same for all; only the text differs.
 */
enum flags_style {
	FS_61,		/* perf 5.18-6.14: "  %-21s " of "%-15s%6s" */
	FS_OLD,		/* perf up to 5.17: "  %-19s " of "%-15s%4s" */
	FS_615,		/* perf 6.15+: "tr strt jmp", "tr end  jmp" */
};

static const struct layout {
	const char *name;
	int comm, cpu, period, event, dso, synth;
	enum flags_style flags;
	const char *branches;	/* the branches event's name */
} layouts[] = {
	/* -F pid,tid,time,flags,ip,addr,sym,symoff,synth,dso,event,period */
	{ "magic-trace", 0, 0, 1, 1, 1, 1, FS_61, "branches:uH" },
	/* -F pid,tid,time,flags,ip,addr,sym,symoff; psb, cbr as with synth */
	{ "legacy", 0, 0, 0, 0, 0, 1, FS_OLD, NULL },
	/* -F comm,pid,tid,cpu,time,event,flags,ip,sym,symoff,dso,addr */
	{ "comm-cpu", 1, 1, 0, 1, 1, 0, FS_61, "branches:uH" },
	/* magic-trace's fields, perf 6.15+ */
	{ "perf615", 0, 0, 1, 1, 1, 1, FS_615, "branches:u" },
};
static const struct layout *layout = &layouts[0];

static char flag_text[NFLAGS][32];	/* the whole column: "  %-21s " */
static size_t flag_len;

enum event { EV_BRANCHES, EV_PSB, EV_CBR, NEVENTS };
static char event_text[NEVENTS][80];	/* ["%10llu " period] ["%*s: " event] */
static size_t event_len[NEVENTS];

/* The flags column's text for flag i, as the layout's perf prints it. */
static void flags_str(int i, char *str, size_t size)
{
	static const char *const names[NFLAGS] = {
		[FL_NONE] = "", [FL_CALL] = "call", [FL_RETURN] = "return",
		[FL_JCC] = "jcc", [FL_JMP] = "jmp", [FL_TR_STRT] = "tr strt",
		[FL_TR_END] = "tr end",
	};
	int w = layout->flags == FS_OLD ? 4 : 6;	/* the (x/D/t) group */

	/* perf_sample__fprintf_flags(): name %-15s, (x/D/t) %6s (5.18-6.14)
	 * or %4s (before) */
	if (i == FL_NONE) {
		str[0] = '\0';
	} else if (layout->flags == FS_615) {
		/* the trace begin/end bits are a prefix to the branch's name,
		 * and nothing pads the name when there is no (x/D/t) */
		snprintf(str, size, "%s", i == FL_TR_STRT ? "tr strt jmp" :
					  i == FL_TR_END ? "tr end  jmp" :
					  i == FL_TR_END_SYSCALL ? "tr end  syscall" :
								   names[i]);
	} else if (i == FL_TR_END_SYSCALL) {
		snprintf(str, size, "tr end  %-7s%*s", "syscall", w, "");
	} else {
		snprintf(str, size, "%-15s%*s", names[i], w, "");
	}
}

static void build_columns(void)
{
	static const char *const evnames[NEVENTS] = { NULL, "psb", "cbr" };
	int w = layout->flags == FS_OLD ? 19 : 21;

	for (int i = 0; i < NFLAGS; i++) {
		char str[32];

		flags_str(i, str, sizeof(str));
		flag_len = (size_t)snprintf(flag_text[i], sizeof(flag_text[i]),
					    "  %-*s ", w, str);
	}
	for (int i = 0; i < NEVENTS; i++) {
		const char *ev = i == EV_BRANCHES ? layout->branches : evnames[i];
		size_t n = 0;

		if (layout->period)
			n += (size_t)snprintf(event_text[i], sizeof(event_text[i]),
					      "%10llu ", 1ULL);
		if (layout->event)
			n += (size_t)snprintf(event_text[i] + n, sizeof(event_text[i]) - n,
					      "%*s: ", event_width, ev);
		event_len[i] = n;
	}
}

/* ---- the truth (--truth) ---- */

static FILE *truth;
static const char *truth_path;

static const char *fn_name(uint32_t i)
{
	return fn[i].name ? fn[i].name : "[unknown]";
}

static void truth_span(const struct thread *t, int depth, uint64_t start,
		       uint64_t end, int inferred, int open, const char *name)
{
	static const char *const flags[2][2] = {
		{ "-", "open" }, { "inferred", "inferred,open" },
	};

	if (truth)
		fprintf(truth, "%d\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t%s\t%s\n",
			t->pid, t->tid, depth, shown(start), shown(end),
			flags[!!inferred][!!open],
			name);
}

/* Frame `level` of t, running function i, ends at time at. */
static void truth_frame_end(const struct thread *t, int level, uint32_t i,
			    uint64_t at, int open)
{
	truth_span(t, level, t->tstart[level], at, t->tinferred[level], open,
		   fn_name(i));
}

static void truth_frame_start(struct thread *t, int level, uint64_t at)
{
	t->tstart[level] = at;
	t->tinferred[level] = 0;
}

/* The end of the trace: what is still running is open. */
static void truth_finish(void)
{
	if (!truth)
		return;
	for (int i = 0; i < nthreads; i++) {
		const struct thread *t = &threads[i];

		if (!t->seen)
			continue;
		if (t->untraced != FL_NONE)
			truth_span(t, t->depth + 1, t->untraced_at, t->last, 0, 1,
				   t->untraced == FL_TR_END_SYSCALL ? "[syscall]" :
								      "[untraced]");
		truth_frame_end(t, t->depth, t->fn, t->last, 1);
		for (int k = t->depth - 1; k >= 0; k--)
			truth_frame_end(t, k, t->stack[k].fn, t->last, 1);
	}
	if (ferror(truth) | fclose(truth))
		die_errno(MT_EXIT_SYSTEM, "error writing %s", truth_path);
	truth = NULL;
}

/* A line for t is printed now: the frames inferred so far start then. */
static void saw(struct thread *t)
{
	if (!t->seen) {
		t->seen = 1;
		t->first = now;
		for (int k = 0; k <= t->depth; k++)
			if (t->tinferred[k])
				t->tstart[k] = now;
	}
	t->last = now;
}

/* ---- callers running before the trace began (--start-depth) ---- */

static uint32_t *chain_memo;

/* The function whose frame a call to i makes: a PLT stub jumps on. */
static uint32_t frame_fn(uint32_t i)
{
	return fn[i].kind == F_PLT ? fn[i].target : i;
}

/* Frames in the longest chain of calls from i, i included (the call
 * graph has no cycles). */
static uint32_t chain_len(uint32_t i)
{
	uint32_t best = 0;

	if (chain_memo[i])
		return chain_memo[i];
	for (int k = 0; k < fn[i].ncallee; k++) {
		uint32_t n = chain_len(frame_fn(fn[i].callee[k]));

		if (n > best)
			best = n;
	}
	return chain_memo[i] = best + 1;
}

/* Put t's current function d frames deep (fewer if no chain of calls is
 * that long), each caller calling the next along the call graph. */
static void push_callers(struct thread *t, int d)
{
	if (!chain_memo)
		chain_memo = xcalloc(nfn, sizeof(*chain_memo));
	if ((uint32_t)d >= chain_len(t->fn))
		d = (int)chain_len(t->fn) - 1;
	while (t->depth < d) {
		const struct func *g = &fn[t->fn];
		uint32_t need = (uint32_t)(d - t->depth), n = 0, pick_k, c = NONE;
		uint64_t from;
		uint32_t len;

		for (int k = 0; k < g->ncallee; k++)
			n += chain_len(frame_fn(g->callee[k])) >= need;
		pick_k = below(n);
		for (int k = 0; k < g->ncallee && c == NONE; k++)
			if (chain_len(frame_fn(g->callee[k])) >= need && !pick_k--)
				c = g->callee[k];
		from = g->start + below(g->size);
		len = fixed(from, 4, 8) ? 5 : 2 + fixed(from, 5, 5);
		if (from > g->start + g->size - 1 - len)
			from = g->start + g->size - 1 - len;
		t->stack[t->depth].fn = t->fn;
		t->stack[t->depth].ret = from + len;
		t->depth++;
		t->fn = frame_fn(c);
	}
}

/*
 * Thread i's comm column ("%16s "): the program's name for the main thread,
 * then names as threads get them: truncated to 15 characters, with spaces
 * and slashes.
 */
static size_t put_comm(char *p, size_t size, int i)
{
	char comm[16];

	if (i == 0)
		snprintf(comm, sizeof(comm), "order-gateway");
	else if (i % 2)
		snprintf(comm, sizeof(comm), "tokio-runtime-w");
	else if (i % 4)
		snprintf(comm, sizeof(comm), "CPU %d/KVM", i / 4);
	else
		snprintf(comm, sizeof(comm), "md feed %d", i / 4);
	return (size_t)snprintf(p, size, "%16s ", comm);
}

static void start_threads(int n)
{
	int pid = 100000 + (int)below(3900000);
	int tid = pid;

	nthreads = n;
	for (int i = 0; i < n; i++) {
		struct thread *t = &threads[i];

		t->pid = pid;
		t->tid = tid;
		tid += 1 + (int)below(40);
		t->prefix_len = 0;
		if (layout->comm)
			t->prefix_len = put_comm(t->prefix, sizeof(t->prefix), i);
		t->prefix_len += (size_t)snprintf(t->prefix + t->prefix_len,
						  sizeof(t->prefix) - t->prefix_len,
						  "%5d/%-5d ", t->pid, t->tid);
		if (i == 0) {
			t->fn = lang_lo[L_CXX];	/* main */
		} else {	/* a thread's root: near the top of the call graph */
			enum lang l = i % 2 ? L_RUST : L_CXX;

			do
				t->fn = lang_lo[l] + 1 + below((lang_hi[l] - lang_lo[l]) / 20);
			while (!fn[t->fn].ncallee);
		}
		if (start_depth)
			push_callers(t, start_depth);
		for (int k = 0; k <= t->depth; k++)
			t->tinferred[k] = 1;
		t->ip = fn[t->fn].start + below(fn[t->fn].size);
		t->stopped = 1;	/* every thread's trace begins with tr strt */
		t->psb_offs = below(0x8000);
	}
	now = (uint64_t)(50000 + below(4000000)) * 1000000000ULL;
	now += below(1000000000);
	if (start_ns != UINT64_MAX)
		now = start_ns;	/* after the draws: the same simulation */
}

static void tick(void)
{
	uint32_t r = below(100);

	/* cyc=1 timing: several branches per timestamp, ns steps, some stalls */
	if (r < 55)
		return;
	now += r < 95 ? 1 + below(25) : 30 + below(600);
}

/* ---- line formatting ---- */

static char *put_prefix(char *p, const struct thread *t, enum event ev)
{
	uint64_t at = shown(now);

	p = put(p, t->prefix, t->prefix_len);
	if (layout->cpu) {
		*p++ = '[';
		p = put_dec(p, (uint64_t)t->cpu, 3, 1);
		*p++ = ']';
		*p++ = ' ';
	}
	p = put_dec(p, at / 1000000000ULL, 5, 0);
	*p++ = '.';
	p = put_dec(p, at % 1000000000ULL, 9, 1);
	*p++ = ':';
	*p++ = ' ';
	return put(p, event_text[ev], event_len[ev]);
}

/* "%16llx sym+0xoff (dso)"; f NULL for address 0 outside any map */
static char *put_loc(char *p, uint64_t addr, const struct func *f)
{
	p = put_hex16(p, addr);
	*p++ = ' ';
	if (!f)
		return put(p, "[unknown] ([unknown])", layout->dso ? 21 : 9);
	if (f->name) {
		p = put(p, f->name, f->name_len);
		p = put(p, "+0x", 3);
		p = put_hex(p, addr - f->start);
	} else {
		p = put(p, "[unknown]", 9);
	}
	if (!layout->dso)
		return p;
	return put(p, dsos[f->dso].paren, dsos[f->dso].paren_len);
}

static void emit_branch(struct thread *t, enum flag fl, uint64_t from,
			const struct func *ff, uint64_t to, const struct func *tf)
{
	char *p;

	if (quiet)
		return;
	saw(t);
	p = put_prefix(line_begin(), t, EV_BRANCHES);
	p = put(p, flag_text[fl], flag_len);
	*p++ = ' ';
	p = put_loc(p, from, ff);
	p = put(p, " => ", 4);
	p = put_loc(p, to, tf);
	line_end(p);
	tick();
}

/* Non-branch synthesized event: synth text padded to 34, addr, ip. */
static void emit_synth(struct thread *t, enum event ev, const char *synth)
{
	char *p;
	size_t n = strlen(synth);

	if (quiet)
		return;
	saw(t);
	p = put_prefix(line_begin(), t, ev);
	p = put(p, flag_text[FL_NONE], flag_len);
	if (layout->synth) {
		p = put(p, synth, n);
		for (; n < 34; n++)
			*p++ = ' ';
	}
	p = put_hex16(p, 0);
	*p++ = ' ';
	p = put_loc(p, t->ip, &fn[t->fn]);
	line_end(p);
}

static void emit_psb(struct thread *t, uint64_t nlines)
{
	char synth[64];

	snprintf(synth, sizeof(synth), " psb offs: %#" PRIx64, t->psb_offs);
	t->psb_offs += 0x1000 + below(0x4000);
	emit_synth(t, EV_PSB, synth);
	if (below(3) == 0 && lines_out < nlines) {
		unsigned cbr = 8 + below(40);

		snprintf(synth, sizeof(synth), " cbr: %2u freq: %4u MHz (%3u%%) ",
			 cbr, cbr * 100 + 6, (5 + 1000 * cbr / 29) / 10);
		emit_synth(t, EV_CBR, synth);
	}
}

static void emit_error(struct thread *t, int lost)
{
	char *p = line_begin();
	int n;

	saw(t);
	n = snprintf(p, LINE_MAX_LEN,
		     " instruction trace error type 1 time %" PRIu64 ".%09" PRIu64
		     " cpu -1 pid %d tid %d ip ",
		     (uint64_t)(shown(now) / 1000000000ULL),
		     (uint64_t)(shown(now) % 1000000000ULL),
		     t->pid, t->tid);
	p += n;
	if (lost) {
		p = put(p, "0 code 8: Lost trace data", 25);
	} else {
		p = put(p, "0x", 2);
		p = put_hex(p, t->ip);
		p = put(p, " code 7: Overflow packet", 24);
	}
	line_end(p);
}

/* ---- one step of a thread ---- */

/* The next branch instruction at or after ip, inside the function. */
static uint64_t next_branch_at(const struct func *f, uint64_t ip)
{
	uint64_t end = f->start + f->size - 1;
	uint64_t room = end > ip ? end - ip : 0;

	return ip + (room ? fixed(ip, 1, (uint32_t)(room < 40 ? room : 40)) : 0);
}

static void step(struct thread *t)
{
	const struct func *f = &fn[t->fn];
	uint64_t from, to;
	uint64_t at = now;	/* the time printed on this step's line */
	uint32_t r;

	if (t->stopped) {
		t->stopped = 0;
		/* the scheduler may have moved it while it was not traced */
		t->cpu = (int)fixed(((uint64_t)t->tid << 32) | t->nstrt++, 11, 24);
		emit_branch(t, FL_TR_STRT, 0, NULL, t->ip, f);
		if (t->untraced != FL_NONE)
			truth_span(t, t->depth + 1, t->untraced_at, at, 0, 0,
				   t->untraced == FL_TR_END_SYSCALL ? "[syscall]" :
								      "[untraced]");
		t->untraced = FL_NONE;
		return;
	}
	if (t->plt_pending) {	/* jmp *GOT(%rip) to the real function */
		const struct func *g = &fn[f->target];

		t->plt_pending = 0;
		emit_branch(t, FL_JMP, t->ip, f, g->start, g);
		truth_frame_end(t, t->depth, t->fn, at, 0);
		truth_frame_start(t, t->depth, at);
		t->fn = f->target;
		t->ip = g->start;
		return;
	}
	from = next_branch_at(f, t->ip);
	r = below(1000);
	if (!quiet && f->kind == F_SYSCALL && r < 25) {
		emit_branch(t, FL_TR_END_SYSCALL, from, f, 0, NULL);
		t->untraced = FL_TR_END_SYSCALL;
		t->untraced_at = at;
		t->ip = from + 2;
		t->stopped = 1;
		t->ready = now + 800 + below(20000);
		return;
	}
	if (!quiet && r < 27) {	/* interrupt or page fault: trace stops here */
		emit_branch(t, FL_TR_END, t->ip, f, 0, NULL);
		t->untraced = FL_TR_END;
		t->untraced_at = at;
		t->stopped = 1;
		t->ready = now + 300 + below(3000);
		return;
	}
	r = below(100);
	/*
	 * Returns grow likelier with depth and in leaves, except in the C
	 * library's string and memory leaves, where the hot loops are.
	 */
	if (t->depth > 0 && (t->depth >= MAX_DEPTH ||
			     (int)r < (f->ncallee || f->dso == L_LIBC ? 14 : 30) +
					      t->depth / 2)) {
		struct frame *fr = &t->stack[--t->depth];
		uint64_t ret_at = f->start + f->size - 1 - fixed(f->start, 2, f->size / 4 + 1);

		emit_branch(t, FL_RETURN, ret_at > from ? ret_at : from, f, fr->ret,
			    &fn[fr->fn]);
		truth_frame_end(t, t->depth + 1, t->fn, at, 0);
		t->fn = fr->fn;
		t->ip = fr->ret;
		return;
	}
	r = below(100);
	if (f->ncallee && r < 30) {
		uint32_t c = f->callee[fixed(from, 3, f->ncallee)];
		uint32_t len = fixed(from, 4, 8) ? 5 : 2 + fixed(from, 5, 5);
		uint64_t last = f->start + f->size - 1 - len;

		if (from > last)
			from = last;
		if (t->depth && below(40) == 0) {	/* tail call: jmp, no new frame */
			emit_branch(t, FL_JMP, from, f, fn[c].start, &fn[c]);
			truth_frame_end(t, t->depth, t->fn, at, 0);
		} else {
			emit_branch(t, FL_CALL, from, f, fn[c].start, &fn[c]);
			t->stack[t->depth].fn = t->fn;
			t->stack[t->depth].ret = from + len;
			t->depth++;
		}
		truth_frame_start(t, t->depth, at);
		t->fn = c;
		t->ip = fn[c].start;
		t->plt_pending = fn[c].kind == F_PLT;
		return;
	}
	/* jcc or jmp within the function, forward or back (a loop) */
	to = fixed(from, 6, 3) ? from + 2 + fixed(from, 7, 0x60) :
				 f->start + fixed(from, 8, f->size);
	if (to >= f->start + f->size)
		to = f->start + fixed(from, 9, f->size);
	emit_branch(t, fixed(from, 10, 4) ? FL_JCC : FL_JMP, from, f, to, f);
	t->ip = to;
}

/* A burst runs one thread for a while; idle threads wait for their time. */
static struct thread *schedule(void)
{
	int ready[MAX_THREADS], n = 0;
	uint64_t soonest = UINT64_MAX;

	for (int i = 0; i < nthreads; i++) {
		if (threads[i].ready <= now)
			ready[n++] = i;
		else if (threads[i].ready < soonest)
			soonest = threads[i].ready;
	}
	if (!n) {
		now = soonest;
		return schedule();
	}
	return &threads[ready[below((uint32_t)n)]];
}

static void generate(uint64_t nlines)
{
	struct thread *t = NULL;
	uint32_t burst = 0;

	while (lines_out < nlines) {
		if (!burst || t->ready > now || t->stopped) {
			t = schedule();
			burst = below(10) < 3 ? 1 + below(4) : 1 + below(300);
		}
		burst--;
		if (!t->stopped && !t->plt_pending) {
			uint32_t r = below(1000000);

			if (r < 700) {
				emit_psb(t, nlines);
				continue;
			}
			/* overflow: packets lost, decoding resumes later */
			if (r < 704 && !no_errors) {
				emit_error(t, r == 703);
				quiet = 1;
				for (int i = 20 + (int)below(200); i > 0; i--)
					step(t);
				quiet = 0;
				t->stopped = 1;
				t->ready = now + 1000 + below(5000);
				continue;
			}
		}
		step(t);
	}
	flush_out();
}

static uint64_t parse_num(const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max)
		die(MT_EXIT_USAGE, "bad %s: '%s'", opt, s);
	return v;
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: gen-perf-script [--lines N] [--seed S] [--threads T]"
		" [--event-width W]\n"
		"                       [--start-depth D] [--no-errors] [--truth FILE]\n"
		"                       [--coarse NS] [--layout NAME] [--start NS]\n");
	exit(MT_EXIT_USAGE);
}

static const struct layout *find_layout(const char *name)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(layouts[i].name, name))
			return &layouts[i];
	die(MT_EXIT_USAGE, "unknown --layout '%s' (magic-trace, legacy, "
	    "comm-cpu, perf615)", name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lines", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "event-width", required_argument, NULL, 'w' },
		{ "start-depth", required_argument, NULL, 'd' },
		{ "no-errors", no_argument, NULL, 'E' },
		{ "truth", required_argument, NULL, 'T' },
		{ "coarse", required_argument, NULL, 'c' },
		{ "layout", required_argument, NULL, 'L' },
		{ "start", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t nlines = 1000, seed = 1, nthr = 4;
	int c;

	mt_set_progname(argv[0]);
	while ((c = getopt_long(argc, argv, "EL:S:c:d:n:s:T:t:w:", opts, NULL)) != -1) {
		switch (c) {
		case 'E':
			no_errors = 1;
			break;
		case 'L':
			layout = find_layout(optarg);
			break;
		case 'S':
			/* room for a trace of 2^62 ns after it */
			start_ns = parse_num("--start", optarg, UINT64_MAX / 4);
			break;
		case 'c':
			coarse = parse_num("--coarse", optarg, 1000000000);
			if (!coarse)
				die(MT_EXIT_USAGE, "bad --coarse: '%s'", optarg);
			break;
		case 'd':
			start_depth = (int)parse_num("--start-depth", optarg, 64);
			break;
		case 'n':
			nlines = parse_num("--lines", optarg, UINT64_MAX / 2);
			break;
		case 's':
			seed = parse_num("--seed", optarg, UINT64_MAX);
			break;
		case 'T':
			truth_path = optarg;
			break;
		case 't':
			nthr = parse_num("--threads", optarg, MAX_THREADS);
			if (!nthr)
				die(MT_EXIT_USAGE, "bad --threads: '%s'", optarg);
			break;
		case 'w':
			event_width = (int)parse_num("--event-width", optarg, 64);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (truth_path && !(truth = fopen(truth_path, "w")))
		die_errno(MT_EXIT_SYSTEM, "cannot create %s", truth_path);

	rng = seed;
	build_program();
	build_callgraph();
	build_columns();
	start_threads((int)nthr);
	generate(nlines);
	truth_finish();
	if (close(STDOUT_FILENO) != 0)
		die_errno(MT_EXIT_SYSTEM, "error closing standard output");
	return 0;
}
