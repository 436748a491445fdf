# mt-patch/: the patch backend's runtime, libmt-patch.so, preloaded into
# the traced command (mt-record --backend patch). Built without the
# sanitizers (the programs it is loaded into have no sanitizer runtime);
# the hooks without vector registers (mt-patch/hooks.h).

PATCH_RT := $(BUILD)/lib/libmt-patch.so
PATCH_RT_OBJ := $(BUILD)/pic/mt-patch/rt.o $(BUILD)/pic/mt-patch/patch.o \
	$(BUILD)/pic/mt-patch/unwind.o \
	$(BUILD)/pic/mt-patch/hooks.o $(BUILD)/pic/mt-patch/tramp.o

$(BUILD)/pic/mt-patch/hooks.o: mt-patch/hooks.c mt-patch/hooks.h mt-patch/shm.h
	@mkdir -p $(dir $@)
	$(PIC_CC) -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
		-mgeneral-regs-only -fno-stack-protector -fcf-protection=none -c -o $@ $<
$(BUILD)/pic/mt-patch/tramp.o: mt-patch/tramp.S
	@mkdir -p $(dir $@)
	$(PIC_CC) -fPIC -c -o $@ $<
$(BUILD)/pic/mt-patch/rt.o $(BUILD)/pic/mt-patch/patch.o $(BUILD)/pic/mt-patch/unwind.o: mt-patch/hooks.h mt-patch/patch.h mt-patch/shm.h mt-patch/unwind.h mt-patch/boot.h

$(PATCH_RT): $(PATCH_RT_OBJ)
	@mkdir -p $(dir $@)
	$(PIC_CC) -shared -Wl,-z,defs -Wl,-z,noexecstack -o $@ $(PATCH_RT_OBJ) -lcapstone -pthread $(LDFLAGS)

all: $(PATCH_RT)
EXTRA_TEST_BIN += $(PATCH_RT)

# mt-record's patch backend (mt-record/patch/, backend.h): its
# recording, its side of the shared memory, the process held with
# ptrace, and the code it loads the runtime into a running process with
# (boot.S: copied there, never run in mt-record)
# (PATCH_BACKEND_OBJ: the Makefile's)
$(PATCH_BACKEND_OBJ): ALL_CFLAGS += -Imt-record -Imt-patch
$(PATCH_BACKEND_OBJ): $(wildcard mt-record/patch/*.h) $(wildcard mt-record/*.h) \
	mt-patch/shm.h mt-patch/boot.h
$(BUILD)/mt-record/patch/boot.o: mt-record/patch/boot.S mt-patch/boot.h
	@mkdir -p $(dir $@)
	$(CC) -Imt-patch -c -o $@ $<

install: install-patch-rt
install-patch-rt: $(PATCH_RT)
	install -d $(DESTDIR)$(PREFIX)/lib/mt
	install -m 644 $(PATCH_RT) $(DESTDIR)$(PREFIX)/lib/mt/
.PHONY: install-patch-rt
