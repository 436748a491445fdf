# plugins/patch-runtime/: the patch backend's runtime, libmt-patch.so,
# preloaded into the traced command or loaded into a running process by
# mt-record --backend patch (plugins/README.md). Built without the
# sanitizers (the programs it is loaded into have no sanitizer runtime);
# the hooks without vector registers (plugins/patch-runtime/hooks.h).

PATCH_RT := $(BUILD)/lib/libmt-patch.so
PATCH_RT_OBJ := $(BUILD)/pic/plugins/patch-runtime/rt.o \
	$(BUILD)/pic/plugins/patch-runtime/patch.o \
	$(BUILD)/pic/plugins/patch-runtime/decode.o \
	$(BUILD)/pic/plugins/patch-runtime/branches.o \
	$(BUILD)/pic/plugins/patch-runtime/unwind.o \
	$(BUILD)/pic/plugins/patch-runtime/hooks.o \
	$(BUILD)/pic/plugins/patch-runtime/tramp.o

$(BUILD)/pic/plugins/patch-runtime/hooks.o: plugins/patch-runtime/hooks.c \
	plugins/patch-runtime/hooks.h plugins/patch-runtime/shm.h
	@mkdir -p $(dir $@)
	$(PIC_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
		-mgeneral-regs-only -fno-stack-protector -fcf-protection=none -c -o $@ $<
$(BUILD)/pic/plugins/patch-runtime/tramp.o: plugins/patch-runtime/tramp.S
	@mkdir -p $(dir $@)
	$(PIC_CC) -fPIC -c -o $@ $<
$(BUILD)/pic/plugins/patch-runtime/rt.o $(BUILD)/pic/plugins/patch-runtime/patch.o \
	$(BUILD)/pic/plugins/patch-runtime/decode.o \
	$(BUILD)/pic/plugins/patch-runtime/branches.o \
	$(BUILD)/pic/plugins/patch-runtime/unwind.o: plugins/patch-runtime/hooks.h \
	plugins/patch-runtime/patch.h plugins/patch-runtime/shm.h \
	plugins/patch-runtime/unwind.h plugins/patch-runtime/boot.h \
	plugins/patch-runtime/decode.h plugins/patch-runtime/branches.h

$(PATCH_RT): $(PATCH_RT_OBJ)
	@mkdir -p $(dir $@)
	$(PIC_CC) -shared -Wl,-z,defs -Wl,-z,noexecstack -o $@ $(PATCH_RT_OBJ) -lZydis -pthread $(LDFLAGS)

all: $(PATCH_RT)
EXTRA_TEST_BIN += $(PATCH_RT)

install: install-patch-rt
install-patch-rt: $(PATCH_RT)
	install -d $(DESTDIR)$(PREFIX)/lib/mt
	install -m 644 $(PATCH_RT) $(DESTDIR)$(PREFIX)/lib/mt/
.PHONY: install-patch-rt

# tests/unit/test-decode: the runtime's decoder, built in (with the
# tests' sanitizers)
unit_decode_LIBS := plugins/patch-runtime/decode.c -lZydis
$(BUILD)/tests/test-decode: plugins/patch-runtime/decode.c plugins/patch-runtime/decode.h
