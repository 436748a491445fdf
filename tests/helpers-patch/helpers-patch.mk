# Test drivers of mt-record's patch backend pieces (tests/helpers-patch/)
# and the programs they hold.

$(BUILD)/tests/abandon: tests/helpers-patch/abandon.c $(BUILD)/mt-record/patch/inject.o \
		mt-record/patch/inject.h $(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Imt-record/patch -Imt-record $(ALL_LDFLAGS) -o $@ $< $(BUILD)/mt-record/patch/inject.o \
		$(TOOL_LIB) $(LIB) -lelf -ldw -lz -liberty

# no sanitizer: its registers are the test
$(BUILD)/tests/progs/regkeep: tests/progs/regkeep.c common/banned.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -pthread -Icommon -o $@ $<

EXTRA_TEST_BIN += $(BUILD)/tests/abandon $(BUILD)/tests/progs/regkeep
