/*
 * mt-record's options: what the command line asked for, parsed and
 * checked by options.c, then handed to the other files as a read-only
 * parameter. The struct is owned by main; its strings point into argv or
 * the environment and are never freed; the events array is main's to
 * free.
 */
#ifndef MT_RECORD_OPTS_H
#define MT_OVERHEAD_DEFAULT UINT32_MAX
#define MT_RECORD_OPTS_H

#include <stdint.h>

/* --backend: how the program is recorded (BE_PATCH the last; the
 * words are the backends' names, backend.h). */
enum backend { BE_AUTO, BE_PT, BE_UPROBE, BE_SAMPLE, BE_PATCH };

/* --trigger-via: how the trigger stops the program (trigger.h). */
enum via { VIA_AUTO, VIA_BREAKPOINT, VIA_UPROBE };

/* rec_opts.given: options named on the command line (not defaults) */
enum { GIVEN_TIMING = 1, GIVEN_FREQ = 2, GIVEN_CG = 4, GIVEN_SIZE = 8,
       GIVEN_KERNEL = 16, GIVEN_EVENTS = 32, GIVEN_TEXT = 64, GIVEN_OVERHEAD = 128 };

/* One --events item: a perf event's name, sampled every period events. */
struct rec_event {
	const char *name;      /* points into argv: name_len bytes */
	int name_len;
	unsigned long period;  /* given, else 1 (branch-misses: 50) */
};

struct rec_opts {
	unsigned given;        /* GIVEN_*: for the options that may not apply */
	int verbose;           /* -v */
	int full;              /* --full: everything, not a snapshot */
	int multi_thread;      /* --multi-thread: perf record -p, not -t */
	int kernel;            /* --kernel, or 2: --kernel-only */
	int dry_run;           /* --dry-run */
	int text;              /* --text: -i decodes PT through perf's text */
	int repeat;            /* --repeat: snapshots to take, 0: forever */
	enum backend backend;  /* BE_AUTO until the backend is chosen */
	enum via trigger_via;  /* --trigger-via */
	const char *output;    /* -o, or NULL: stdout */
	const char *functions; /* --functions REGEX, or NULL */
	const char *trigger;   /* --trigger selection, or NULL */
	const char *timing;    /* --timing: low, normal, high or raw terms */
	const char *callgraph; /* --call-graph: fp, dwarf, lbr or lbr-no-stitch */
	struct rec_event *events; /* --events, parsed; NULL: none */
	size_t nevents;
	const char *keep_dir;  /* --keep, or NULL */
	const char *input;     /* -i perf.data, or NULL */
	int command_fd;        /* --command-stdout, or -1 */
	const char *perf;      /* the perf to run: MT_PERF, or "perf" */
	uint64_t arm_after_ns; /* --arm-after, 0: at once */
	uint64_t slower_than_ns; /* --slower-than, 0: every call a hit */
	/* --max-overhead in hundredths of a percent (1000: 10%); 0: none;
	 * MT_OVERHEAD_DEFAULT: not given (10% with -p, none with a command) */
	uint32_t max_overhead;
	uint64_t snapshot_bytes; /* --snapshot-size, 0: perf's default */
	uint64_t frequency;    /* --frequency, hertz */
};

#endif
