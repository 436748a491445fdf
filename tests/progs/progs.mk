# Programs that the mt-record tests trace: real calls (no inlining), no
# sanitizer, frame pointers for the sample backend.
$(BUILD)/tests/progs/stopper: tests/progs/stopper.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -fno-omit-frame-pointer -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/stopper

$(BUILD)/tests/progs/demo: tests/progs/demo.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -fno-omit-frame-pointer -g -Icommon -o $@ $< -ldl

EXTRA_TEST_BIN += $(BUILD)/tests/progs/demo

$(BUILD)/tests/progs/faults: tests/progs/faults.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -fno-omit-frame-pointer -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/faults

$(BUILD)/tests/progs/marks: tests/progs/marks.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -fno-omit-frame-pointer -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/marks

$(BUILD)/tests/progs/slowcall: tests/progs/slowcall.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/slowcall

$(BUILD)/tests/progs/patchme: tests/progs/patchme.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/patchme

$(BUILD)/tests/progs/shorty: tests/progs/shorty.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/shorty

# -pg: gprof's instrumentation, a call of mcount in every prologue
$(BUILD)/tests/progs/pgme: tests/progs/pgme.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -pg -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/pgme

$(BUILD)/tests/progs/patchwalk: tests/progs/patchwalk.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -D_GNU_SOURCE -rdynamic -pthread -Icommon -o $@ $< -ldl

EXTRA_TEST_BIN += $(BUILD)/tests/progs/patchwalk

$(BUILD)/tests/progs/attachme: tests/progs/attachme.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -o $@ $< -ldl

EXTRA_TEST_BIN += $(BUILD)/tests/progs/attachme

$(BUILD)/tests/progs/coro: tests/progs/coro.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/coro

$(BUILD)/tests/progs/libmtplug.so: tests/progs/plugin.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -fPIC -shared -o $@ $<

$(BUILD)/tests/progs/dlopener: tests/progs/dlopener.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -Icommon -o $@ $< -ldl

EXTRA_TEST_BIN += $(BUILD)/tests/progs/libmtplug.so $(BUILD)/tests/progs/dlopener

# GCC (whatever CC is), -O2 on purpose: it splits hot.cold off hot (entered by a jump)
$(BUILD)/tests/progs/cold: tests/progs/cold.c common/banned.h
	@mkdir -p $(dir $@)
	gcc -O2 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/cold

$(BUILD)/tests/progs/coldjcc: tests/progs/coldjcc.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/coldjcc

# C++ exceptions through a C frame, at each optimisation level (the catch
# paths in main.cold and [clone .cold] parts from -O2 on)
THROWY_LEVELS = O0 O2 O3 O2fp
throwy_flags = $(if $(filter O2fp,$1),-O2 -fno-omit-frame-pointer,-$1)
$(BUILD)/tests/progs/throwy-%: tests/progs/throwy.cc tests/progs/throwy-c.c
	@mkdir -p $(dir $@)
	gcc $(call throwy_flags,$*) -g -fexceptions -c -o $@-c.o tests/progs/throwy-c.c
	g++ $(call throwy_flags,$*) -g -o $@ tests/progs/throwy.cc $@-c.o

EXTRA_TEST_BIN += $(THROWY_LEVELS:%=$(BUILD)/tests/progs/throwy-%)

# -iquote, not -I: common/spawn.h must not stand for the C library's
$(BUILD)/tests/progs/forky: tests/progs/forky.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -iquote common -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/forky

$(BUILD)/tests/progs/busy: tests/progs/busy.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/busy

# busy as a non-PIE executable (code at 0x400000: trampoline memory must
# be found within 2 GiB of it, never at address 0)
$(BUILD)/tests/progs/busy-nopie: tests/progs/busy.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -no-pie -fno-pie -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/busy-nopie

$(BUILD)/tests/progs/threads: tests/progs/threads.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/threads

# exports syscall() (-rdynamic): the runtime's memfd_create goes through it
$(BUILD)/tests/progs/hostile: tests/progs/hostile.c plugins/patch-runtime/shm.h common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -rdynamic -Icommon -Iplugins/patch-runtime -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/hostile

# dlopens the libraries t1216 builds (run as another user there too)
$(BUILD)/tests/progs/libloop: tests/progs/libloop.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -Icommon -o $@ $< -ldl

EXTRA_TEST_BIN += $(BUILD)/tests/progs/libloop

$(BUILD)/tests/progs/sysloop: tests/progs/sysloop.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/sysloop

$(BUILD)/tests/progs/sigmid: tests/progs/sigmid.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/sigmid

$(BUILD)/tests/progs/sigstorm: tests/progs/sigstorm.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/sigstorm

$(BUILD)/tests/progs/selfmod: tests/progs/selfmod.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/selfmod

$(BUILD)/tests/progs/hotleaf: tests/progs/hotleaf.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/progs/hotleaf
