# mt-record's patch backend (mt-record/patch/, backend.h): its
# recording, its side of the shared memory, the process held with
# ptrace, and the code it loads the runtime into a running process with
# (boot.S: copied there, never run in mt-record). It shares two headers
# with the runtime (plugins/patch-runtime/): shm.h, the memory, and
# boot.h, the order boot.S keeps.
# (PATCH_BACKEND_OBJ: the Makefile's)
$(PATCH_BACKEND_OBJ): ALL_CFLAGS += -Imt-record -Iplugins/patch-runtime
$(PATCH_BACKEND_OBJ): $(wildcard mt-record/patch/*.h) $(wildcard mt-record/*.h) \
	plugins/patch-runtime/shm.h plugins/patch-runtime/boot.h
$(BUILD)/mt-record/patch/boot.o: mt-record/patch/boot.S plugins/patch-runtime/boot.h
	@mkdir -p $(dir $@)
	$(CC) -Iplugins/patch-runtime -c -o $@ $<

# tests/unit/test-patchwrite: patch-write.c, built in over a memory of
# the test's own
unit_patchwrite_LIBS := mt-record/patch/patch-write.c $(TOOL_LIB) $(LIB)
$(BUILD)/tests/test-patchwrite: mt-record/patch/patch-write.c mt-record/patch/patch-write.h
$(BUILD)/tests/test-patchwrite: $(TOOL_LIB)
