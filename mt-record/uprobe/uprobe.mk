# The uprobe engine of mt-record (mt-record/uprobe/uprobe*.[ch], its objects
# UPROBE_ENGINE_OBJ in the Makefile), its test driver
# uprobe-rec (which chooses functions with mt-record/functions.[ch] and
# writes the backend's stream with mt-record/uprobe/sinks.[ch]) and the
# programs its tests trace (tests/progs/).

UPROBE_OBJ := $(UPROBE_ENGINE_OBJ) $(BUILD)/mt-record/functions.o \
	$(BUILD)/mt-record/uprobe/sinks.o $(BUILD)/mt-record/streamout.o
$(UPROBE_OBJ): mt-record/uprobe/uprobe.h mt-record/functions.h \
	mt-record/uprobe/sinks.h mt-record/streamout.h

$(BUILD)/tests/uprobe-rec: tests/helpers-uprobe/uprobe-rec.c $(UPROBE_OBJ) \
		mt-record/uprobe/uprobe.h mt-record/functions.h mt-record/uprobe/sinks.h \
		$(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Imt-record -Imt-record/uprobe $(ALL_LDFLAGS) -o $@ $< $(UPROBE_OBJ) \
		$(TOOL_LIB) $(LIB) -lelf -lz -lpcre2-8 -liberty

# traced programs: real calls (no inlining), no sanitizer
$(BUILD)/tests/progs/outer: tests/progs/outer.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -o $@ $<

# outer with a .gopclntab section: a Go program to the uprobe engine
$(BUILD)/tests/progs/outer-go: tests/progs/outer.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -fno-inline -g -pthread -Icommon -DFAKE_GO -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/uprobe-rec $(BUILD)/tests/progs/outer \
	$(BUILD)/tests/progs/outer-go

$(BUILD)/mt-record/hwbp.o: mt-record/hwbp.h

# mt-record's objects see each other's headers
$(patsubst %.c,$(BUILD)/%.o,$(wildcard mt-record/*.c)): $(wildcard mt-record/*.h)
