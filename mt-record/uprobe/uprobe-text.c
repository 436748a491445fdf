/*
 * A snapshot's event as the line perf script prints for it: see uprobe.h,
 * "Output".
 */
#include <stdio.h>

#include "buf.h"
#include "err.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "banned.h"

/* " SYM+0xOFF (DSO)", " [unknown] (DSO)", " [unknown] ([unknown])" */
static int where(struct mt_buf *b, const struct mt_uprobe_event *e)
{
	if (!e->dso)
		return uprobe_appendf(b, " [unknown] ([unknown])");
	if (!e->sym)
		return uprobe_appendf(b, " [unknown] (%s)", e->dso);
	return uprobe_appendf(b, " %s+0x%llx (%s)", e->sym,
			      (unsigned long long)e->off, e->dso);
}

int mt_uprobe_event_text(const struct mt_uprobe *u, const struct mt_uprobe_event *e,
			 struct mt_buf *b)
{
	const char *comm = e->comm;
	char tidname[16];
	int err;

	if (e->kind == MT_UPROBE_EV_LOST)
		comm = ":-1";
	else if (!comm) {
		snprintf(tidname, sizeof(tidname), ":%u", e->tid);
		comm = tidname;
	}
	err = uprobe_appendf(b, "%16s %5d/%-5d [%03d] %5llu.%09llu: ", comm,
			     (int)e->pid, (int)e->tid, e->cpu,
			     (unsigned long long)(e->time / 1000000000u),
			     (unsigned long long)(e->time % 1000000000u));
	if (err)
		return err;
	if (e->kind == MT_UPROBE_EV_LOST)
		return uprobe_appendf(b, "PERF_RECORD_LOST lost %llu\n",
				      (unsigned long long)e->lost);
	if (e->kind == MT_UPROBE_EV_ENTRY)
		err = uprobe_appendf(b, "%*s: (%llx) %16llx", u->name_width,
				     e->event, (unsigned long long)e->ip,
				     (unsigned long long)e->ip);
	else
		err = uprobe_appendf(b, "%*s: (%llx <- %llx) %16llx",
				     u->name_width, e->event,
				     (unsigned long long)e->func_addr,
				     (unsigned long long)e->ip,
				     (unsigned long long)e->ip);
	if (!err)
		err = where(b, e);
	return err ? err : mt_buf_add(b, "\n", 1);
}
