/*
 * fxt-be: a second FXT writer for the tests, unlike mt-fxt in every way a
 * reader may trip on: begin/end pairs instead of complete events, the
 * 4-word initialization record magic-trace writes, a provider section
 * record, a string table of 4 slots re-registered round robin, some names
 * and threads inline, an int32 argument on some begins, process names as
 * kernel objects.
 *
 * usage: fxt-be < slices > file.fxt
 *
 * The input is fxt-check --slices output, "pid tid start end depth name"
 * a line, sorted by (pid, tid, start), parents first; an end of "-" is a
 * slice that never ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "fxt-words.h"
#include "xalloc.h"
#include "banned.h"

#define NSLOTS 4

static unsigned long long nev;
static unsigned slot_next;

/* An event on thread index ti (pid, tid inline every 5th event), name
 * inline every 3rd, else through a re-registered slot. */
static void event(unsigned type, unsigned ti, unsigned long long pid,
		  unsigned long long tid, unsigned long long ts,
		  const char *name, int arg)
{
	size_t len = name ? strlen(name) : 0, size = 2;
	unsigned long long nref = 0, tref = ti;

	nev++;
	if (len > 1000)
		len = 1000;
	if (nev % 5 == 0) {
		tref = 0;
		size += 2;
	}
	if (len && nev % 3 == 0) {
		nref = 0x8000 | len;
		size += words(len);
	} else if (len) {
		unsigned slot = 1 + slot_next++ % NSLOTS;

		word(2 | (words(len) + 1) << 4 | (unsigned long long)slot << 16 |
		     (unsigned long long)len << 32);
		stream(name, len);
		nref = slot;
	}
	if (arg)
		size += 2;
	word(4 | size << 4 | (unsigned long long)type << 16 |
	     (unsigned long long)(arg ? 1 : 0) << 20 | tref << 24 | nref << 48);
	word(ts);
	if (!tref) {
		word(pid);
		word(tid);
	}
	if (nref & 0x8000)
		stream(name, len);
	if (arg) {
		word(1 | 2 << 4 | (0x8000ull | 1) << 16 | (unsigned long long)nev << 32);
		stream("i", 1);
	}
}

struct open {
	unsigned long long end;
	int ends;
};

int main(int argc, char **argv)
{
	char line[8192];
	unsigned long long cur_pid = 0, cur_tid = 0;
	unsigned ti = 0;
	struct open *st = NULL;
	size_t n = 0, cap = 0;

	mt_set_progname(argv[0]);
	if (argc != 1)
		die(MT_EXIT_USAGE, "usage: fxt-be < slices > file.fxt");
	word(0x0016547846040010ull);                 /* magic */
	word(0 | 2 << 4 | 1 << 16 | 7ull << 20 | 2ull << 52); /* provider 7 */
	stream("be", 2);
	word(0 | 1 << 4 | 2 << 16 | 7ull << 20);     /* provider section 7 */
	word(1 | 4 << 4);                            /* init, magic-trace's */
	word(1000000000);
	word(0);                                     /* base ticks */
	word(1700000000000000000ull);                /* base time */
	for (;;) {
		unsigned long long pid = 0, tid = 0, start = 0;
		unsigned depth;
		char endtxt[32], *name = NULL;
		int k = 0, last = !fgets(line, sizeof(line), stdin);

		if (!last) {
			line[strcspn(line, "\n")] = '\0';
			if (sscanf(line, "%llu %llu %llu %31s %u %n", &pid, &tid,
				   &start, endtxt, &depth, &k) < 5 || !k)
				die(MT_EXIT_DATA, "bad line: %s", line);
			name = line + k;
		}
		if (last || pid != cur_pid || tid != cur_tid || !ti) {
			while (n)
				if (st[--n].ends)
					event(3, ti, cur_pid, cur_tid, st[n].end, NULL, 0);
			if (last)
				break;
			cur_pid = pid;
			cur_tid = tid;
			ti = ti % 255 + 1;
			word(3 | 3 << 4 | (unsigned long long)ti << 16);
			word(pid);
			word(tid);
			word(7 | 3 << 4 | 1 << 16 | (0x8000ull | 1) << 24); /* process */
			word(pid);
			stream("p", 1);
		}
		while (n && st[n - 1].ends && st[n - 1].end <= start) {
			n--;
			event(3, ti, pid, tid, st[n].end, NULL, 0);
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			st = xrealloc(st, cap, sizeof(*st));
		}
		st[n].ends = strcmp(endtxt, "-") != 0;
		st[n].end = st[n].ends ? strtoull(endtxt, NULL, 10) : 0;
		n++;
		event(2, ti, pid, tid, start, name, nev % 7 == 0);
	}
	free(st);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
