/*
 * fxt-mtrace: write slices as an FXT file laid out the way magic-trace's
 * writer lays out its own (janestreet/magic-trace, src/trace_writer.ml and
 * vendor/tracing): events in the order the decoder meets them, so that the
 * file is not in time order where it matters to a reader:
 *
 * - frames already open when a thread's trace starts (magic-trace infers
 *   them on returning past the bottom of its stack, at the callstack's
 *   create time) go to its start_events deque and are written when the
 *   thread ends, after all of its other events: their begins, with the
 *   argument inferred_start_time = "true", stand at the end of the thread's
 *   part of the file, outermost first, although they are the earliest
 *   events of the thread;
 * - a frame's end is written where it returns, before the calls made at the
 *   same time (returns do not take time in magic-trace);
 * - frames still open at the thread's last event are ended by
 *   clear_callstack after the deque is written, innermost first;
 * - each begin carries address (a pointer) and symbol (an interned string);
 *   names and args are interned (string records, ids from 102 up as
 *   magic-trace's permanent ids, "process" at 1), threads through the thread
 *   table, the initialization record is magic-trace's 4-word one, the
 *   provider is "jane_tracing".
 *
 * Kernel frames and user frames are written alike (magic-trace gives both
 * the same records; a kernel frame's create time is the time it was first
 * seen, so it is inferred as any other).
 *
 * usage: fxt-mtrace < slices > file.fxt
 *
 * The input is fxt-check --slices output, "pid tid start end depth name" a
 * line, sorted by (pid, tid, start), parents first (sort -n -k1,1 -k2,2
 * -k3,3 -s of fxt-check's own order); every slice must end. A thread's
 * first start is its create time: the slices that start there are the
 * inferred ones. An end of "i" makes an instant event (magic-trace has
 * them, unused), written before the returns at its time. Unlike
 * magic-trace, pid and tid are written as the koids (magic-trace uses a
 * counter), so that slices can be compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "fxt-words.h"
#include "xalloc.h"
#include "banned.h"

/* ---- interned strings, never evicted (ids 102..32767) ---- */

static char **strs;
static size_t nstrs;

static unsigned intern(const char *s)
{
	size_t i, len = strlen(s);

	for (i = 0; i < nstrs; i++)
		if (!strcmp(strs[i], s))
			return (unsigned)(102 + i);
	if (102 + nstrs > 0x7fff)
		die(MT_EXIT_DATA, "ran out of FTF string IDs");
	strs = xrealloc(strs, nstrs + 1, sizeof(*strs));
	strs[nstrs] = xstrdup(s);
	word(2 | (words(len) + 1) << 4 | (unsigned long long)(102 + nstrs) << 16 |
	     (unsigned long long)len << 32);
	stream(s, len);
	return (unsigned)(102 + nstrs++);
}

/* ---- one thread's slices ---- */

struct slice {
	unsigned long long start, end;
	unsigned depth;
	int instant;
	char *name;
};

struct ev {
	unsigned long long ts;
	int end;      /* 1: an end; 2: a zero-length slice, begin and end;
			 3: an instant */
	size_t slice; /* index */
};

static struct slice *sl;
static size_t nsl, slcap;
static unsigned cat; /* "" interned, as magic-trace's category */

static void begin(size_t i, int inferred)
{
	unsigned name = intern(sl[i].name), a_addr = intern("address"),
		 a_sym = intern("symbol"), a_inf = 0, t = 0, nargs = 2;
	unsigned long long size = 2 + 2 + 1;

	if (inferred) {
		a_inf = intern("inferred_start_time");
		t = intern("true");
		nargs++;
		size++;
	}
	word(4 | size << 4 | 2ull << 16 | (unsigned long long)nargs << 20 |
	     1ull << 24 | (unsigned long long)cat << 32 |
	     (unsigned long long)name << 48);
	word(sl[i].start);
	word(7 | 2 << 4 | (unsigned long long)a_addr << 16); /* pointer */
	word(0x400000 + 16 * (unsigned long long)name);
	word(6 | 1 << 4 | (unsigned long long)a_sym << 16 |
	     (unsigned long long)name << 32);
	if (inferred)
		word(6 | 1 << 4 | (unsigned long long)a_inf << 16 |
		     (unsigned long long)t << 32);
}

static void end(size_t i)
{
	unsigned name = intern(sl[i].name);

	word(4 | 2 << 4 | 3ull << 16 | 1ull << 24 | (unsigned long long)cat << 32 |
	     (unsigned long long)name << 48);
	word(sl[i].end);
}

static void instant(size_t i)
{
	unsigned name = intern(sl[i].name);

	word(4 | 2 << 4 | 0ull << 16 | 1ull << 24 | (unsigned long long)cat << 32 |
	     (unsigned long long)name << 48);
	word(sl[i].start);
}

/* returns before calls at equal times; among returns, innermost first;
 * among calls, outermost first */
static int by_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->end != y->end && (x->end == 3 || y->end == 3))
		return x->end == 3 ? -1 : 1;
	if (x->end != y->end)
		return x->end == 1 ? -1 : y->end == 1 ? 1 :
		       x->slice < y->slice ? -1 : 1;
	if (x->end)
		return x->slice > y->slice ? -1 : x->slice < y->slice;
	return x->slice < y->slice ? -1 : x->slice > y->slice;
}

static void thread_out(unsigned long long pid, unsigned long long tid)
{
	unsigned long long t0, last = 0;
	struct ev *ev;
	size_t i, n = 0;

	if (!nsl)
		return;
	word(3 | 3 << 4 | 1 << 16); /* thread index 1, as a new slot */
	word(pid);
	word(tid);
	t0 = sl[0].start;
	for (i = 0; i < nsl; i++)
		if (!sl[i].instant && sl[i].end > last)
			last = sl[i].end;
	ev = xmallocarray(2 * nsl, sizeof(*ev));
	for (i = 0; i < nsl; i++) {
		if (sl[i].instant) {
			ev[n].ts = sl[i].start;
			ev[n].end = 3;
			ev[n++].slice = i;
			continue;
		}
		if (sl[i].start == sl[i].end) {
			ev[n].ts = sl[i].start;
			ev[n].end = 2;
			ev[n++].slice = i;
			continue;
		}
		if (sl[i].start != t0) {
			ev[n].ts = sl[i].start;
			ev[n].end = 0;
			ev[n++].slice = i;
		}
		if (sl[i].end != last) {
			ev[n].ts = sl[i].end;
			ev[n].end = 1;
			ev[n++].slice = i;
		}
	}
	qsort(ev, n, sizeof(*ev), by_time);
	for (i = 0; i < n; i++) {
		if (ev[i].end == 3) {
			instant(ev[i].slice);
			continue;
		}
		if (ev[i].end != 1)
			begin(ev[i].slice, 0);
		if (ev[i].end)
			end(ev[i].slice);
	}
	/* the start_events deque, then clear_callstack */
	for (i = 0; i < nsl; i++)
		if (sl[i].start == t0 && sl[i].start != sl[i].end &&
		    !sl[i].instant)
			begin(i, 1);
	for (i = nsl; i-- > 0;)
		if (sl[i].end == last && sl[i].start != sl[i].end &&
		    !sl[i].instant)
			end(i);
	free(ev);
	for (i = 0; i < nsl; i++)
		free(sl[i].name);
	nsl = 0;
}

int main(int argc, char **argv)
{
	char line[8192];
	unsigned long long cur_pid = 0, cur_tid = 0;
	int have = 0;

	mt_set_progname(argv[0]);
	if (argc != 1)
		die(MT_EXIT_USAGE, "usage: fxt-mtrace < slices > file.fxt");
	word(0x0016547846040010ull); /* magic */
	word(0 | 4 << 4 | 1 << 16 | 12ull << 52); /* provider 0 */
	stream("jane_tracing", 12);
	word(0 | 1 << 4 | 2 << 16); /* provider section 0 */
	word(2 | 2 << 4 | 1 << 16 | 7ull << 32); /* string 1 */
	stream("process", 7);
	word(1 | 4 << 4); /* init, magic-trace's 4 words */
	word(1000000000);
	word(0);
	word(1700000000000000000ull);
	cat = intern("");
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long pid, tid, start, e = 0;
		unsigned depth;
		char endtxt[32];
		int k = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llu %llu %llu %31s %u %n", &pid, &tid, &start,
			   endtxt, &depth, &k) < 5 || !k ||
		    (strcmp(endtxt, "i") && sscanf(endtxt, "%llu", &e) != 1))
			die(MT_EXIT_DATA, "bad line (every slice must end): %s", line);
		if (!have || pid != cur_pid || tid != cur_tid) {
			thread_out(cur_pid, cur_tid);
			cur_pid = pid;
			cur_tid = tid;
			have = 1;
			/* the process, then the thread with its process */
			word(7 | 2 << 4 | 1 << 16 | (unsigned long long)intern("p") << 24);
			word(pid);
			word(7 | 4 << 4 | 2 << 16 | (unsigned long long)intern("t") << 24 |
			     1ull << 40);
			word(tid);
			word(8 | 2 << 4 | 1 << 16);
			word(pid);
		}
		if (nsl == slcap) {
			slcap = slcap ? slcap * 2 : 256;
			sl = xrealloc(sl, slcap, sizeof(*sl));
		}
		sl[nsl].start = start;
		sl[nsl].instant = !strcmp(endtxt, "i");
		sl[nsl].end = sl[nsl].instant ? start : e;
		sl[nsl].depth = depth;
		sl[nsl].name = xstrdup(line + k);
		nsl++;
	}
	thread_out(cur_pid, cur_tid);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
