# tests/ptsynth: the Intel PT synthesiser (ptsynth), its independent
# stepper (steplog) and the programs its tests trace (corpus/). See
# tests/ptsynth/README.md.

PTSYNTH_SRC := tests/ptsynth/ptsynth.c tests/ptsynth/insn.c \
	tests/ptsynth/sym.c tests/ptsynth/perfdata.c tests/ptsynth/encode.c
# objects apart from $(BUILD)/tests/ptsynth, which is the program
PTSYNTH_OBJ := $(PTSYNTH_SRC:tests/ptsynth/%.c=$(BUILD)/ptsynth-obj/%.o)

$(BUILD)/ptsynth-obj/%.o: tests/ptsynth/%.c tests/ptsynth/ptsynth.h \
		$(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/ptsynth: $(PTSYNTH_OBJ) $(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(PTSYNTH_OBJ) $(TOOL_LIB) $(LIB) \
		-lcapstone -lelf -lz -liberty -lpcre2-8

$(BUILD)/tests/steplog: tests/ptsynth/steplog.c $(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(TOOL_LIB) $(LIB) -lcapstone

EXTRA_TEST_BIN += $(BUILD)/tests/ptsynth $(BUILD)/tests/steplog

# The corpus: small programs, built without sanitizers by the system's
# compilers (not $(CC)); Rust and Go ones only when those compilers exist.
PTS_CORPUS := $(BUILD)/tests/ptsynth-corpus
PTS_C := tests/ptsynth/corpus
PTS_GCC ?= gcc
PTS_GXX ?= g++
PTS_RUSTC ?= $(firstword $(shell command -v rustc 2>/dev/null) \
	$(wildcard $(HOME)/.cargo/bin/rustc /root/.cargo/bin/rustc))
PTS_GO ?= $(shell command -v go 2>/dev/null)

# basic: non-PIE and bound at start (-z now), so that no PLT jump goes to
# the next instruction and steplog can tell every branch by lengths
$(PTS_CORPUS)/basic: $(PTS_C)/basic.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -fno-inline -g -no-pie -Wl,-z,now -o $@ $<
$(PTS_CORPUS)/cos: $(PTS_C)/cos.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -fno-inline -g -o $@ $< -ldl
$(PTS_CORPUS)/recursion $(PTS_CORPUS)/jumps $(PTS_CORPUS)/signal $(PTS_CORPUS)/loop: \
		$(PTS_CORPUS)/%: $(PTS_C)/%.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -g -o $@ $<
$(PTS_CORPUS)/tailcall: $(PTS_C)/tailcall.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O2 -g -o $@ $<
$(PTS_CORPUS)/threads: $(PTS_C)/threads.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -g -pthread -o $@ $<
# libstdc++ linked in: its shared library's start-up alone is 1.5 million
# instructions
$(PTS_CORPUS)/exceptions $(PTS_CORPUS)/exceptions-recursive \
		$(PTS_CORPUS)/templates: $(PTS_CORPUS)/%: $(PTS_C)/%.cc
	@mkdir -p $(dir $@)
	$(PTS_GXX) -O1 -g -static-libstdc++ -static-libgcc -o $@ $<
# dlswap: two libraries of one layout, loaded in turn, found next to it
$(PTS_CORPUS)/dlswap: $(PTS_C)/dlswap.c $(PTS_CORPUS)/libdlswap-a.so \
		$(PTS_CORPUS)/libdlswap-b.so
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -g -o $@ $< -ldl
$(PTS_CORPUS)/libdlswap-%.so: $(PTS_C)/libdlswap-%.c
	@mkdir -p $(dir $@)
	$(PTS_GCC) -O1 -g -shared -fPIC -o $@ $<

PTS_PROGS := basic cos recursion jumps signal tailcall threads exceptions \
	exceptions-recursive templates loop dlswap

ifneq ($(PTS_RUSTC),)
$(PTS_CORPUS)/rust: $(PTS_C)/rust.rs
	@mkdir -p $(dir $@)
	$(PTS_RUSTC) -O -g -o $@ $<
PTS_PROGS += rust
endif

ifneq ($(PTS_GO),)
$(PTS_CORPUS)/go: $(PTS_C)/go.go
	@mkdir -p $(dir $@)/go-build
	cd $(dir $@)go-build && cp $(abspath $<) main.go && \
		GOCACHE=$(abspath $(dir $@))/go-cache GOPATH=$(abspath $(dir $@))/go-path \
		GO111MODULE=off $(PTS_GO) build -o ../go main.go
PTS_PROGS += go
endif

EXTRA_TEST_BIN += $(PTS_PROGS:%=$(PTS_CORPUS)/%)
