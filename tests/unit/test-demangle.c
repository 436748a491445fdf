/*
 * Unit tests for common/demangle. The MT_DEMANGLE_PERF names are those
 * perf 6.1 printed (perf probe -F, perf script's sym) for the same symbols
 * of programs built with g++ and rustc; the MT_DEMANGLE_FULL ones are
 * c++filt's, but for its verbose style (std::string spelt out, Rust hashes
 * and crate disambiguators printed).
 */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "err.h"
#include "regex.h"
#include "unit.h"
#include "banned.h"

static const struct { const char *mangled, *full, *perf; } names[] = {
	{ "_ZN3app6Server6lookupEm", "app::Server::lookup(unsigned long)",
	  "app::Server::lookup" },
	{ "_ZN3app6Server6handleERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
	  "app::Server::handle(std::__cxx11::basic_string<char, std::char_traits<char>, "
	  "std::allocator<char> > const&)", "app::Server::handle" },
	{ "_ZNK3app3BoxIlE3getEv.isra.0", "app::Box<long>::get() const [clone .isra.0]",
	  "app::Box<long>::get" },
	{ "_ZZL4spiniENKUliE_clEi", "spin(int)::{lambda(int)#1}::operator()(int) const",
	  "spin(int)::{lambda(int)#1}::operator()" },
	{ "_ZL4spini", "spin(int)", "spin" },
	{ "_ZdlPvm@plt", "operator delete(void*, unsigned long)@plt",
	  "operator delete@plt" },
	{ "_ZN1r3app6Server6lookup17hfcb37e1ffca412f8E", "r::app::Server::lookup",
	  "r::app::Server::lookup" },
	{ "_RNvMNtCs6GmmlP4bgsG_1r3appNtB2_6Server6lookup", "<r::app::Server>::lookup",
	  "<r::app::Server>::lookup" },
	{ "_RINvCs6GmmlP4bgsG_1r7genericmEB2_", "r::generic::<u32>", "r::generic::<u32>" },
	{ "camlFoo__bar_123", "Foo.bar_123", "Foo.bar_123" },
	{ "camlStdlib__bytes__$2b$2b_2205", "Stdlib.bytes.++_2205", "Stdlib.bytes.++_2205" },
	{ "camlStdlib__anon_fn$5bstdlib$2eml$3a334$2c0$2d$2d54$5d_1453",
	  "Stdlib.anon_fn[stdlib.ml:334,0--54]_1453",
	  "Stdlib.anon_fn[stdlib.ml:334,0--54]_1453" },
	{ "camlA$zz__b", "A$zz.b", "A$zz.b" }, /* not hex: as it is */
	{ "camlB$4", "B$4", "B$4" },
};

/* not mangled (C, Go, a lower-case OCaml look-alike, broken C++) */
static const char *const plain[] = {
	"main", "work", "printf@plt", "main.(*T).Method", "runtime.morestack.abi0",
	"camlfoo__x", "caml", "_Z", "_ZN3app", "_start", "@plt", "",
};

static void test_styles(void)
{
	size_t i;
	char *d;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *f = mt_demangle(names[i].mangled, MT_DEMANGLE_FULL);
		char *p = mt_demangle(names[i].mangled, MT_DEMANGLE_PERF);

		CHECK_STR(f, names[i].full);
		CHECK_STR(p, names[i].perf);
		free(f);
		free(p);
	}
	/* bytes after the mangled name: perf takes the name, c++filt not */
	CHECK(mt_demangle("_Z3fooXYZ", MT_DEMANGLE_FULL) == NULL);
	d = mt_demangle("_Z3fooXYZ", MT_DEMANGLE_PERF);
	CHECK_STR(d, "foo");
	free(d);
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		CHECK(mt_demangle(plain[i], MT_DEMANGLE_FULL) == NULL);
		CHECK(mt_demangle(plain[i], MT_DEMANGLE_PERF) == NULL);
	}
}

static void test_is(void)
{
	const char *m = "_ZN3app6Server6lookupEm";

	CHECK_EQ(mt_demangle_is(m, NULL, m), 1);
	CHECK_EQ(mt_demangle_is(m, NULL, "app::Server::lookup(unsigned long)"), 1);
	CHECK_EQ(mt_demangle_is(m, NULL, "app::Server::lookup"), 1);
	CHECK_EQ(mt_demangle_is(m, NULL, "app::Server::lookup(unsigned int)"), 0);
	CHECK_EQ(mt_demangle_is(m, NULL, "app::Server"), 0); /* whole names only */
	/* the caller's full name is used as it is */
	CHECK_EQ(mt_demangle_is(m, "x(int)", "x(int)"), 1);
	CHECK_EQ(mt_demangle_is("main", NULL, "main"), 1);
	CHECK_EQ(mt_demangle_is("main", "main", "mai"), 0);
	CHECK_EQ(mt_demangle_is("camlFoo__bar_1", NULL, "Foo.bar_1"), 1);
	CHECK_EQ(mt_demangle_is("_Z3fooXYZ", NULL, "foo"), 1); /* perf's only */
}

static void test_match(void)
{
	struct mt_regex r = MT_REGEX_INIT;
	char msg[MT_REGEX_MSG_SIZE];
	size_t at;
	const char *m = "_ZN3app6Server6lookupEm";

	CHECK_EQ(mt_regex_compile(&r, "^app::", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, m, NULL), 1);
	CHECK_EQ(mt_demangle_match(&r, "app_main", NULL), 0);
	CHECK_EQ(mt_regex_compile(&r, "lookup\\(unsigned long\\)$", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, m, NULL), 1); /* the full name */
	CHECK_EQ(mt_regex_compile(&r, "^app::Server::lookup$", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, m, NULL), 1); /* perf's name */
	CHECK_EQ(mt_regex_compile(&r, "^_ZN3app", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, m, NULL), 1); /* the mangled name */
	CHECK_EQ(mt_demangle_match(&r, "_ZN4appx1fEv", NULL), 0);
	CHECK_EQ(mt_regex_compile(&r, "^foo$", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, "_Z3fooXYZ", NULL), 1); /* perf's only */
	CHECK_EQ(mt_regex_compile(&r, "^r::app::Server::lookup$", &at, msg, sizeof(msg)), 0);
	CHECK_EQ(mt_demangle_match(&r, "_ZN1r3app6Server6lookup17hfcb37e1ffca412f8E", NULL), 1);
	mt_regex_release(&r);
}

int main(void)
{
	RUN(test_styles);
	RUN(test_is);
	RUN(test_match);
	return unit_done();
}
