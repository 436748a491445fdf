# mt: magic-trace as small Unix tools.  `make help` lists the targets.

PREFIX ?= /usr/local
DESTDIR ?=
DOCDIR ?= $(PREFIX)/share/doc/mt
BUILD ?= build
SAN ?=

CC ?= cc
ifeq ($(SAN),1)
CC := clang
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wno-unused-parameter
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(SANFLAGS) -Icommon $(CFLAGS)
ALL_LDFLAGS := $(SANFLAGS) $(LDFLAGS)

# common/'s two tiers (common/README.md): the library, which never prints
# nor exits, and the tool tier, which may die
LIB_SRC := common/err.c common/buf.c common/intern.c common/stream.c \
	common/duration.c common/perfline.c common/mtline.c common/perfevent.c \
	common/streamcopy.c common/tsc.c \
	common/fxtread.c common/fxtwrite.c \
	common/tidmap.c common/tidtable.c common/names.c \
	common/proc.c common/quote.c common/nest.c \
	common/gzin.c common/extsort.c common/kind.c \
	common/ehframe.c common/symtab.c common/dwline.c common/procsyms.c common/regex.c \
	common/demangle.c common/regfile.c common/fscreds.c common/merge.c
TOOL_LIB_SRC := common/die.c common/cmdline.c common/output.c common/gzout.c \
	common/spawn.c common/regexopt.c common/idlist.c common/xalloc.c
TOOLS := mt-script-parse mt-stacks mt-fxt mt-slice mt-dump mt-symbols mt mt-record \
	mt-report
mt-fxt_LIBS := -lz
mt-slice_LIBS := -lz -lpcre2-8
mt-report_LIBS := -lz
mt-symbols_LIBS := -lelf -ldw -lz -liberty -lpcre2-8
# the uprobe engine (mt-record/uprobe/uprobe.h; mt-record/uprobe/uprobe.mk
# links it into its test driver too)
UPROBE_ENGINE_OBJ := $(BUILD)/mt-record/uprobe/uprobe.o $(BUILD)/mt-record/uprobe/uprobe-files.o \
	$(BUILD)/mt-record/uprobe/uprobe-procs.o $(BUILD)/mt-record/uprobe/uprobe-open.o \
	$(BUILD)/mt-record/uprobe/uprobe-ring.o $(BUILD)/mt-record/uprobe/uprobe-dump.o \
	$(BUILD)/mt-record/uprobe/uprobe-text.o
# the patch backend (mt-record/patch/; mt-record/patch/patch.mk's rules)
PATCH_BACKEND_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard mt-record/patch/*.c)) \
	$(BUILD)/mt-record/patch/boot.o
mt-record_OBJS := $(UPROBE_ENGINE_OBJ) $(BUILD)/mt-record/hwbp.o \
	$(BUILD)/mt-record/target.o $(BUILD)/mt-record/target-open.o $(BUILD)/mt-record/perf/perf.o \
	$(BUILD)/mt-record/cachedir.o $(BUILD)/mt-record/symcache.o $(BUILD)/mt-record/symentry.o \
	$(BUILD)/mt-record/functions.o $(BUILD)/mt-record/trigger.o \
	$(BUILD)/mt-record/perf/dlfilter-run.o $(BUILD)/mt-record/streamout.o \
	$(BUILD)/mt-record/libpath.o $(PATCH_BACKEND_OBJ) \
	$(BUILD)/mt-record/perf/record.o $(BUILD)/mt-record/uprobe/record.o \
	$(BUILD)/mt-record/uprobe/sinks.o \
	$(BUILD)/mt-record/options.o $(BUILD)/mt-record/rounds.o \
	$(BUILD)/plugins/patch-runtime/decode.o $(BUILD)/plugins/patch-runtime/branches.o
mt-slice_OBJS := $(BUILD)/mt-slice/stream.o $(BUILD)/mt-slice/fxt.o \
	$(BUILD)/mt-slice/replay.o $(BUILD)/mt-slice/between.o
mt-stacks_OBJS := $(BUILD)/mt-stacks/stack.o $(BUILD)/mt-stacks/branch.o \
	$(BUILD)/mt-stacks/probe.o
mt-fxt_OBJS := $(BUILD)/mt-fxt/fxt.o $(BUILD)/mt-fxt/json.o \
	$(BUILD)/mt-fxt/text.o $(BUILD)/mt-fxt/out.o
mt_OBJS := $(BUILD)/mt/view.o
mt-report_OBJS := $(BUILD)/mt-report/views.o
mt-script-parse_OBJS := $(BUILD)/mt-script-parse/lines.o
mt-script-parse_LIBS := -pthread
mt_LIBS := -lz
mt-record_LIBS := -ldw -lelf -lz -lpcre2-8 -liberty -lZydis

LIB := $(BUILD)/libmt.a
TOOL_LIB := $(BUILD)/libmttool.a
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_LIB_OBJ := $(TOOL_LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_BIN := $(foreach t,$(TOOLS),$(BUILD)/bin/$(t))

UNIT_SRC := $(wildcard tests/unit/test-*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# the test tier: library code only the tests use (never prints or exits)
HELPER_LIB_SRC := tests/helpers/fxtcheck.c
HELPER_LIB := $(BUILD)/libmttest.a
HELPER_LIB_OBJ := $(HELPER_LIB_SRC:%.c=$(BUILD)/%.o)
HELPER_SRC := $(filter-out $(HELPER_LIB_SRC),$(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz-*.c)

.PHONY: all print-tools print-tool-lib check check-long test unit-test tool-test asan-test fuzz-test bench \
	demo install uninstall deb clean help deps equiv

all: $(TOOL_BIN)

help:
	@echo 'make              build the tools into $(BUILD)/bin'
	@echo 'make check        install missing packages, build, run every test, then'
	@echo '                  again under ASan+UBSan (replaying the ptsynth recordings),'
	@echo '                  then short libFuzzer runs'
	@echo 'make check-long   make check plus long fuzzing runs, ptsynth recording in both passes'
	@echo 'make test         build and run the tests once (no sanitizers, no fuzzing);'
	@echo '                  TESTS="t05* unit" runs only those'
	@echo 'make bench        benchmarks (figures as ratios to a baseline in the same run); SECTIONS="10 30" runs only those'
	@echo 'make equiv BASE=REV  every tool'"'"'s output, errors and exit status on tests/equiv/run'"'"'s'
	@echo '                  cases, REV'"'"'s build (in $(BUILD)/equiv-base) against this one'
	@echo 'make demo         trace a bundled program (see README)'
	@echo 'make install      install into $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX))'
	@echo 'make deb          the Debian package of the tools, $(BUILD)/$(DEB_PACKAGE)_VERSION-$(DEB_REVISION)_ARCH.deb'
	@echo 'make clean        remove $(BUILD)'
	@echo 'make deps         install missing build and test packages (apt)'

deps:
	@scripts/deps.sh

# each object's headers, as the compiler read them (-MMD: BUILD/....d),
# so that a changed header rebuilds what includes it
$(BUILD)/%.o: %.c $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d $(BUILD)/*/*/*/*.d)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(TOOL_LIB): $(TOOL_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(HELPER_LIB_OBJ): $(wildcard tests/helpers/*.h)
$(HELPER_LIB): $(HELPER_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

define TOOL_RULE
$(BUILD)/bin/$(1): $(BUILD)/$(1)/$(1).o $$($(1)_OBJS) $(TOOL_LIB) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$< $$($(1)_OBJS) $(TOOL_LIB) $(LIB) $$($(1)_LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_RULE,$(t))))
$(BUILD)/mt/mt.o $(BUILD)/mt/view.o: mt/view.h
$(BUILD)/mt-fxt/mt-fxt.o $(mt-fxt_OBJS): $(wildcard mt-fxt/*.h)
$(BUILD)/mt-slice/mt-slice.o $(mt-slice_OBJS): mt-slice/slice.h
$(BUILD)/mt-stacks/mt-stacks.o $(mt-stacks_OBJS): mt-stacks/stacks.h
$(BUILD)/mt-script-parse/mt-script-parse.o $(mt-script-parse_OBJS): mt-script-parse/lines.h

# unit tests link only the library (and the test tier's), so a print or
# exit in common/ shows up (and the system libraries its pieces need:
# unit_NAME_LIBS)
unit_procsyms_LIBS := -lelf -lz
unit_regfile_LIBS := -lelf -lz
unit_fscreds_LIBS := -pthread
unit_regex_LIBS := -lpcre2-8
unit_demangle_LIBS := -liberty -lpcre2-8
# mt-record's symbol cache entries (mt-record/symentry.c, built in)
unit_symentry_LIBS := mt-record/symentry.c -lelf -lz
$(BUILD)/tests/test-symentry: mt-record/symentry.c mt-record/symentry.h
# the patch backend's rings read back (mt-record/patch/patch-rings.c, built in)
unit_patchrings_LIBS = -Imt-record/patch -Iplugins/patch-runtime mt-record/patch/patch-rings.c \
	$(LIB)
$(BUILD)/tests/test-patchrings: mt-record/patch/patch-rings.c mt-record/patch/patch-rings.h \
	plugins/patch-runtime/shm.h
$(BUILD)/tests/test-%: tests/unit/test-%.c tests/unit/unit.h $(HELPER_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -Itests/helpers $(ALL_LDFLAGS) -o $@ $< \
		$(HELPER_LIB) $(LIB) $(unit_$*_LIBS)

$(BUILD)/tests/%: tests/helpers/%.c $(wildcard tests/helpers/*.h) $(HELPER_LIB) $(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(HELPER_LIB) $(TOOL_LIB) $(LIB)

# pieces with rules of their own (test tools, tool modules) add to
# EXTRA_TEST_BIN in their .mk
EXTRA_TEST_BIN :=
# mt-record: the core (mt-record/) and the backends' folders (perf/,
# uprobe/, patch/) see each other's headers (the trigger and the
# --functions selection use the uprobe engine; the core's run holds the
# engines of the backends in rounds)
MT_RECORD_INC := -Imt-record -Imt-record/perf -Imt-record/uprobe
$(BUILD)/mt-record/%.o: ALL_CFLAGS += $(MT_RECORD_INC)
# the caches' hash is the patch runtime's (branches.h)
$(BUILD)/mt-record/cachedir.o: ALL_CFLAGS += -Iplugins/patch-runtime
$(BUILD)/mt-record/%.o: $(wildcard mt-record/*.h mt-record/perf/*.h mt-record/uprobe/*.h)
# the plug-ins (plugins/README.md): shared objects loaded into other
# processes, built position-independent, hidden but for what their host
# looks up, and without the sanitizers (the traced program and perf have
# no sanitizer runtime); their rules in plugins/*/*.mk
PIC_CC := $(if $(filter 1,$(SAN)),cc,$(CC))
$(BUILD)/pic/%.o: %.c $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(PIC_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -Icommon $(CFLAGS) -fPIC \
		-fvisibility=hidden -c -o $@ $<
include $(wildcard tests/*/*.mk */*.mk mt-record/*/*.mk plugins/*/*.mk)

build-tests: $(TOOL_BIN) $(UNIT_BIN) $(HELPER_BIN) $(EXTRA_TEST_BIN)
.PHONY: build-tests

test: build-tests
	@tests/run $(BUILD)

asan-test:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/asan SAN=1 build-tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run $(BUILD)/asan

# seconds per fuzzer: make check's short runs start from the corpus and
# catch what a change breaks at once (10 s: make check stays under 10
# minutes on the 2-core machines); make check-long runs 600
FUZZ_RUNS ?= 10
fuzz-test:
	@FUZZ_SECONDS=$(FUZZ_RUNS) BUILD=$(BUILD)/fuzz tests/fuzz/run

# The ASan pass replays the plain pass's ptsynth recordings (single-
# stepping is most of the time of the t08NN tests; tests/ptsynth/lib.sh);
# check-long records in both passes.
PTS_CACHE = $(abspath $(BUILD))/pts-cache
PTS_REPLAY ?= 1
# the builds of make check: as many at a time as the machine has
# processors (JOBS=1: one)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check: deps
	@rm -rf $(PTS_CACHE)
	@if [ $(PTS_REPLAY) = 1 ]; then mkdir -p $(PTS_CACHE); fi
	@$(MAKE) --no-print-directory -j$(JOBS) build-tests
	@MT_PTS_CACHE=$(PTS_CACHE) $(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(BUILD)/asan SAN=1 build-tests
	@MT_PTS_CACHE=$(PTS_CACHE) $(MAKE) --no-print-directory asan-test
	@rm -rf $(PTS_CACHE)
	@$(MAKE) --no-print-directory fuzz-test

check-long: deps
	@MT_LONG=1 $(MAKE) --no-print-directory check FUZZ_RUNS=600 PTS_REPLAY=0

# tests/equiv/run --compare between REV, checked out and built in a git
# worktree in $(BUILD)/equiv-base (kept for the next run), and this build
EQUIV_BASE = $(BUILD)/equiv-base
equiv: build-tests
	@if [ -z "$(BASE)" ]; then echo 'usage: make equiv BASE=REV' >&2; exit 2; fi
	@rev=$$(git rev-parse --verify -q '$(BASE)^{commit}') || \
		{ echo 'make equiv: $(BASE): not a commit' >&2; exit 2; }; \
	git worktree prune && \
	if [ -d $(EQUIV_BASE) ]; then git -C $(EQUIV_BASE) checkout -q --detach $$rev; \
	else git worktree add -q --detach $(EQUIV_BASE) $$rev; fi
	@$(MAKE) --no-print-directory -C $(EQUIV_BASE) BUILD=build build-tests
	@tests/equiv/run --compare $(EQUIV_BASE)/build $(BUILD)

# section 85 traces a C++ program with libstdc++ (throwy-O2)
bench: deps all $(HELPER_BIN) $(BUILD)/tests/progs/throwy-O2
	@tests/bench/run $(BUILD) $(SECTIONS)

demo: deps all $(HELPER_BIN) $(BUILD)/tests/progs/demo
	@scripts/demo.sh $(BUILD)

# the man pages name the documents' directory as PREFIX/share/doc/mt; the
# installed ones name DOCDIR
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(TOOL_BIN) $(DESTDIR)$(PREFIX)/bin/
	for t in $(TOOLS); do \
		sed 's|PREFIX/share/doc/mt|$(DOCDIR)|' docs/$$t.1 >$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1 && \
		chmod 644 $(DESTDIR)$(PREFIX)/share/man/man1/$$t.1 || exit 1; \
	done
	install -d $(DESTDIR)$(DOCDIR)
	install -m 644 docs/format.md docs/fxt.md docs/perf.md README.md $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(PREFIX)/include
	install -m 644 include/magic_trace.h $(DESTDIR)$(PREFIX)/include/

# the binary package of the tools built in BUILD (scripts/deb.sh)
DEB_PACKAGE ?= mt-trace
DEB_REVISION ?= 1
DEB_MAINTAINER ?= mt maintainers <maintainers@users.noreply.a-seed-b401dd6f.example>
deb: all
	@MAKE='$(MAKE)' DEB_PACKAGE='$(DEB_PACKAGE)' DEB_REVISION='$(DEB_REVISION)' \
		DEB_MAINTAINER='$(DEB_MAINTAINER)' scripts/deb.sh $(BUILD)

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/%) $(TOOLS:%=$(DESTDIR)$(PREFIX)/share/man/man1/%.1) \
		$(DESTDIR)$(PREFIX)/include/magic_trace.h

# the tools' names, for the tests of make install and make deb; the tool
# tier's sources, which tests/fuzz/run leaves out of the fuzzers' library
print-tools:
	@echo $(TOOLS)
print-tool-lib:
	@echo $(TOOL_LIB_SRC)

clean:
	rm -rf $(BUILD)
