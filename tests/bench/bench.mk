# tests/bench/: the benchmarks' own programs. decoders (tests/bench/
# decoders.c): capstone 4 against Zydis 4 on every function of ELF files,
# for the patch runtime's decoder (docs/patch.md, "The decoder"); built
# with the tests so that it keeps compiling, run by `make bench`
# (tests/bench/80-decoders.sh).

$(BUILD)/tests/decoders: tests/bench/decoders.c $(TOOL_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(TOOL_LIB) $(LIB) \
		-lcapstone -lZydis -lelf -lz

EXTRA_TEST_BIN += $(BUILD)/tests/decoders
bench: $(BUILD)/tests/decoders
