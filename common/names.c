#include "names.h"
#include "banned.h"

const char *const mt_branch_kind_names[MT_BR_NKINDS] = {
	"none",    "call",   "return", "jcc",   "jmp",   "int",     "iret",
	"syscall", "sysret", "async",  "hwint", "txabort", "vmentry", "vmexit",
};

const char *const mt_branch_flag_names[9] = {
	"BEGIN", "END",   "INTX",     "INTRDIS", "INTRTOG",
	"PROBE", "MISS", "NOTTAKEN", "NOFLAGS",
};

const char *const mt_error_class_names[MT_ERRC_LOST + 1] = {
	[MT_ERRC_DECODE] = "decode", [MT_ERRC_LOST] = "lost",
};

const char *const mt_mark_kind_names[MT_MARK_NKINDS] = {
	[MT_MARK_TRIGGER] = "trigger", [MT_MARK_SNAPSHOT] = "snapshot",
	[MT_MARK_WALLCLOCK] = "wallclock", [MT_MARK_CBR] = "cbr",
	[MT_MARK_PSB] = "psb", [MT_MARK_PTWRITE] = "ptwrite",
	[MT_MARK_POWER] = "power", [MT_MARK_EVTRACE] = "evtrace",
	[MT_MARK_GENERIC] = "generic",
	[MT_MARK_EVENT] = "event", [MT_MARK_REGION] = "region", [MT_MARK_OFF] = "off",
};

const char *const mt_span_kind_names[MT_SPAN_NKINDS] = {
	[MT_SPAN_FUNCTION] = "function", [MT_SPAN_UNTRACED] = "untraced",
	[MT_SPAN_SYSCALL] = "syscall", [MT_SPAN_KERNEL] = "kernel",
	[MT_SPAN_GAP] = "gap", [MT_SPAN_INTERRUPT] = "interrupt",
};

const char *const mt_span_flag_names[4] = {
	"INFERRED", "OPEN", "CLIPSTART", "CLIPEND",
};
