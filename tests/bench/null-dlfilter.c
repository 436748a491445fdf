/*
 * A perf dlfilter that keeps nothing: the baseline of
 * tests/bench/70-dlfilter.sh, perf's own decoding with no text printed.
 */
#include <perf/perf_dlfilter.h>

#include "../../common/banned.h"

int filter_event(void *data, const struct perf_dlfilter_sample *sample,
		 void *ctx)
{
	return 1;
}
