# mt-record/dlfilter.c: the perf dlfilter, a shared object loaded by perf
# script (docs/perf.md, "The dlfilter"). libmt.a is not position-independent:
# the common/ pieces it needs are built again with -fPIC, and without the
# sanitizers (perf, which loads it, has no sanitizer runtime).

DLFILTER := $(BUILD)/lib/mt-dlfilter.so
DLFILTER_SRC := mt-record/dlfilter.c common/err.c common/buf.c \
	common/intern.c common/stream.c common/perfline.c common/perfevent.c \
	common/tidmap.c common/tidtable.c common/threadname.c common/quote.c \
	common/kind.c
DLFILTER_OBJ := $(DLFILTER_SRC:%.c=$(BUILD)/pic/%.o)

$(BUILD)/pic/%.o: %.c $(wildcard common/*.h)
	@mkdir -p $(dir $@)
	$(PIC_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) -Icommon $(CFLAGS) -fPIC \
		-fvisibility=hidden -c -o $@ $<

$(DLFILTER): $(DLFILTER_OBJ)
	@mkdir -p $(dir $@)
	$(PIC_CC) -shared -Wl,-z,defs -o $@ $(DLFILTER_OBJ) $(LDFLAGS)

PIC_CC := $(if $(filter 1,$(SAN)),cc,$(CC))
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
