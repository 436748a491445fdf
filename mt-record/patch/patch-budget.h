/*
 * --max-overhead (docs/patch.md, "The budget"): what the patch backend's
 * recording costs the process, kept under a share of its time by turning
 * the hottest functions off. Every interval (PATCH_BUDGET_NS) it counts,
 * from the rings alone (nothing in the process), the calls each thread
 * made since the last look and which functions they were (the records
 * written since, all of them while the ring did not lap, else the newest
 * ring's worth, scaled); the cost of that interval is calls times the
 * cost of one (the runtime's calibration, shm.h call_cost), over the
 * interval's length times the threads that made calls. Above the budget,
 * the functions with the most calls go first, until what is left is
 * half the budget.
 * A function the user named (the trigger, a --functions that names one
 * function) is never chosen.
 *
 * No printing, no exit (but xalloc's): the caller turns the chosen
 * functions off (patch_rec_turn_off()) and says so.
 */
#ifndef MT_RECORD_PATCH_BUDGET_H
#define MT_RECORD_PATCH_BUDGET_H

#include <stddef.h>
#include <stdint.h>

struct patch_rec;

/* the interval between looks (docs/patch.md: why 20 ms) */
#define PATCH_BUDGET_NS 20000000ull

struct patch_budget {
	double max;            /* the share of time allowed (0.10) */
	double call_ns;        /* what a call and its return cost, ns */
	uint64_t last;         /* CLOCK_MONOTONIC ns of the last look (0: none) */
	uint64_t *heads;       /* each slot's head at the last look */
	uint32_t *gens;        /* and its gen */
	uint32_t nslots;
	double *calls;         /* each function's calls this interval */
	uint32_t *slot_calls;  /* one ring's, before its scaling */
	uint32_t *touched;     /* the functions one ring counted */
	uint8_t *keep;         /* each function: never turned off */
	uint32_t nfn;          /* calls and keep cover this many */
	uint32_t hot_pid, hot_tid; /* the thread with the most calls then
				    * (as its slot says) */
};

/* b for a budget of max (a fraction), a call costing call_ns. */
void patch_budget_init(struct patch_budget *b, double max, double call_ns);
void patch_budget_release(struct patch_budget *b);

/* Function i of p's table is never turned off. */
void patch_budget_keep(struct patch_budget *b, uint32_t i);

/*
 * At now (CLOCK_MONOTONIC ns), once PATCH_BUDGET_NS has passed since the
 * last look: counts, and puts in out (at most max) the functions to turn
 * off, hottest first, with their calls a second in rate: how many. 0
 * when it is not time yet or the cost fits.
 */
/* The calls recorded so far, every thread's (records over 2). */
double patch_budget_recorded(const struct patch_rec *p);

size_t patch_budget_look(struct patch_budget *b, const struct patch_rec *p, uint64_t now,
			 uint32_t *out, double *rate, size_t max);

#endif
