# plugins/perf-dlfilter/: the perf dlfilter, mt-dlfilter.so, a shared
# object loaded by perf script (docs/perf.md, "The dlfilter";
# plugins/README.md). libmt.a is not position-independent: the common/
# pieces it needs are built again with -fPIC (the Makefile's
# $(BUILD)/pic/ rule), without the sanitizers.

DLFILTER := $(BUILD)/lib/mt-dlfilter.so
DLFILTER_SRC := plugins/perf-dlfilter/dlfilter.c common/err.c common/buf.c \
	common/intern.c common/stream.c common/perfline.c common/perfevent.c \
	common/tidmap.c common/tidtable.c common/quote.c \
	common/kind.c
DLFILTER_OBJ := $(DLFILTER_SRC:%.c=$(BUILD)/pic/%.o)

$(DLFILTER): $(DLFILTER_OBJ)
	@mkdir -p $(dir $@)
	$(PIC_CC) -shared -Wl,-z,defs -o $@ $(DLFILTER_OBJ) $(LDFLAGS)

all: $(DLFILTER)
EXTRA_TEST_BIN += $(DLFILTER)

install: install-dlfilter
install-dlfilter: $(DLFILTER)
	install -d $(DESTDIR)$(PREFIX)/lib/mt
	install -m 644 $(DLFILTER) $(DESTDIR)$(PREFIX)/lib/mt/
.PHONY: install-dlfilter

# the benchmark's baseline (tests/bench/70-dlfilter.sh): a filter that
# keeps nothing
$(BUILD)/tests/null-dlfilter.so: tests/bench/null-dlfilter.c
	@mkdir -p $(dir $@)
	$(PIC_CC) -std=gnu11 $(WARN) $(CFLAGS) -fPIC -shared -o $@ $<
bench: $(BUILD)/tests/null-dlfilter.so $(BUILD)/tests/ptsynth $(PTS_CORPUS)/loop
