/*
 * perf script lines that are not branches: the location that ends a
 * sample, synthesized events (marks), uprobe hits, decoder errors,
 * PERF_RECORD_* lines and lines without an event column. The line itself,
 * its header and branches are common/perfline.c's.
 */
#include <string.h>

#include "err.h"
#include "perfline.h"
#include "perflex.h"
#include "stream.h"
#include "banned.h"

/* ---- the location at the end of non-branch samples ---- */

/*
 * Non-branch samples end with "[ADDR] IP sym+0xoff (dso)". The IP is taken
 * as the first address-looking token at or after p: callers pass p past any
 * text of their own that could hold hex-looking words.
 */
void mt_pl_trailing_loc(const char *p, const char *end,
			struct mt_perf_line *out)
{
	const char *q = p, *after;
	struct tok a, b;

	while (next_tok(&q, end, &a)) {
		if (!is_lhex(a.p, a.len) || a.len > 16)
			continue;
		after = q;
		if (next_tok(&q, end, &b) && is_lhex(b.p, b.len) &&
		    b.len <= 16) {
			/* ADDR IP */
			a = b;
			after = q;
		}
		parse_hex(a.p, a.len, &out->loc.ip);
		mt_perf_parse_sym(after, (size_t)(end - after), &out->loc);
		out->has_loc = 1;
		return;
	}
}

/* ---- synthesized events ---- */

static const struct {
	const char *name;
	uint8_t kind;
} synth_events[] = {
	{ "cbr", MT_MARK_CBR },         { "psb", MT_MARK_PSB },
	{ "ptwrite", MT_MARK_PTWRITE }, { "mwait", MT_MARK_POWER },
	{ "pwre", MT_MARK_POWER },      { "exstop", MT_MARK_POWER },
	{ "pwrx", MT_MARK_POWER },      { "evt", MT_MARK_EVTRACE },
	{ "iflag", MT_MARK_EVTRACE },   { "transactions", MT_MARK_GENERIC },
};

/* After "KEY" in [p, end), the next token; text_end is moved past it. */
static int value_after(const char *p, const char *end, const char *key,
		       struct tok *v, const char **text_end)
{
	const char *k = find(p, end, key, strlen(key));

	if (!k)
		return 0;
	k += strlen(key);
	if (!next_tok(&k, end, v))
		return 0;
	*text_end = k;
	return 1;
}

void mt_pl_parse_mark(const char *p, const char *end, struct mt_perf_line *out)
{
	const char *text, *text_end;
	uint16_t flags = 0;
	uint8_t kind;
	struct tok v;

	mt_pl_parse_flags(&p, end, &kind, &flags);
	text = skip_ws(p, end);
	text_end = text;
	switch (out->mark_kind) {
	case MT_MARK_CBR:
		if (value_after(text, end, "freq:", &v, &text_end))
			parse_dec(v.p, v.len, &out->mark_value);
		/* "MHz", then "(159%)" or "( 28%)" */
		{
			const char *q = find(text_end, end, "%)", 2);
			const char *mhz = find(text_end, end, "MHz", 3);

			if (q && (!mhz || q - mhz < 16))
				text_end = q + 2;
			else if (mhz)
				text_end = mhz + 3;
		}
		break;
	case MT_MARK_PSB:
		if (value_after(text, end, "offs:", &v, &text_end))
			parse_hex(v.p, v.len, &out->mark_value);
		break;
	case MT_MARK_PTWRITE:
		if (value_after(text, end, "payload:", &v, &text_end))
			parse_hex(v.p, v.len, &out->mark_value);
		break;
	default: {
		/* "key: value" pairs up to the address columns */
		const char *q = text;
		struct tok t;

		while (next_tok(&q, end, &t)) {
			if (t.p[t.len - 1] == ':') {
				next_tok(&q, end, &t);
				text_end = q;
				continue;
			}
			if (is_lhex(t.p, t.len) && t.p - text_end >= 2)
				break; /* padded address column */
			text_end = q;
		}
		break;
	}
	}
	out->mark_text.p = text;
	out->mark_text.len = (size_t)(text_end - text);
	while (out->mark_text.len && is_ws(text[out->mark_text.len - 1]))
		out->mark_text.len--;
	mt_pl_trailing_loc(text_end, end, out);
}

/* ---- uprobes ---- */

void mt_pl_parse_probe(const char *p, const char *end,
		       struct mt_perf_line *out)
{
	const char *colon = memchr(out->event_name.p, ':', out->event_name.len);
	const char *name = colon ? colon + 1 : out->event_name.p;
	size_t nlen = (size_t)(out->event_name.p + out->event_name.len - name);

	if (nlen > 8 && !memcmp(name + nlen - 8, "__return", 8)) {
		nlen -= 8;
		out->probe_return = 1;
	}
	out->probe_func.p = name;
	out->probe_func.len = nlen;
	p = skip_ws(p, end);
	/* trace text: "(FUNC)" or "(FUNC <- RET)" */
	if (p < end && *p == '(') {
		const char *close = memchr(p, ')', (size_t)(end - p));
		const char *q = p + 1;
		struct tok t;

		if (close) {
			if (next_tok(&q, close, &t))
				parse_hex(t.p, t.len, &out->probe_func_addr);
			if (next_tok(&q, close, &t) && tok_is(&t, "<-")) {
				out->probe_return = 1;
				if (next_tok(&q, close, &t))
					parse_hex(t.p, t.len,
						  &out->probe_ret_addr);
			}
			p = close + 1;
		}
	}
	mt_pl_trailing_loc(p, end, out);
}

/* ---- decoder errors ---- */

/* " instruction trace error type 1 time 47170.086912826 cpu -1 pid 293415
 *   tid 293415 ip 0x7ffff7327730 code 7: Overflow packet" */
int mt_pl_parse_error(const char *p, const char *end, struct mt_perf_line *out,
		      const char **why)
{
	struct tok k, v;
	int have_code = 0;

	out->kind = MT_PL_ERROR;
	if (!next_tok(&p, end, &v) || parse_u32(v.p, v.len, &out->err_type)) {
		*why = "expected a number after 'error type'";
		return MT_ESYNTAX;
	}
	while (!have_code && next_tok(&p, end, &k)) {
		if (!next_tok(&p, end, &v))
			break;
		if (tok_is(&k, "time")) {
			if (!(v.len == 1 && v.p[0] == '0') &&
			    mt_perf_parse_time(v.p, v.len, &out->time))
				goto bad;
		} else if (tok_is(&k, "cpu")) {
			if (parse_u32(v.p, v.len, &out->cpu))
				goto bad;
		} else if (tok_is(&k, "pid")) {
			if (parse_u32(v.p, v.len, &out->pid))
				goto bad;
		} else if (tok_is(&k, "tid")) {
			if (parse_u32(v.p, v.len, &out->tid))
				goto bad;
		} else if (tok_is(&k, "ip")) {
			if (parse_hex(v.p, v.len, &out->err_ip))
				goto bad;
		} else if (tok_is(&k, "code")) {
			uint64_t code;

			if (v.len < 2 || v.p[v.len - 1] != ':' ||
			    parse_dec(v.p, v.len - 1, &code) || code > 0xffff)
				goto bad;
			out->err_code = (uint32_t)code;
			have_code = 1;
		} else if (!tok_is(&k, "machine_pid") && !tok_is(&k, "vcpu")) {
			goto bad;
		}
	}
	if (!have_code)
		goto bad;
	p = skip_ws(p, end);
	out->err_msg.p = p;
	out->err_msg.len = (size_t)(end - p);
	return 0;
bad:
	*why = "malformed decoder error line";
	return MT_ESYNTAX;
}

/* ---- PERF_RECORD_* lines (--show-task-events and friends) ---- */

int mt_pl_parse_record_line(const struct tok *rec, const char *p,
			    const char *end, struct mt_perf_line *out,
			    const char **why)
{
	static const char *const names[] = {
		"PERF_RECORD_MMAP2", "PERF_RECORD_MMAP", "PERF_RECORD_FORK",
		"PERF_RECORD_EXIT", "PERF_RECORD_SWITCH_CPU_WIDE",
		"PERF_RECORD_SWITCH", "PERF_RECORD_AUX",
		"PERF_RECORD_ITRACE_START", "PERF_RECORD_KSYMBOL",
		"PERF_RECORD_BPF_EVENT", "PERF_RECORD_TEXT_POKE",
		"PERF_RECORD_CGROUP", "PERF_RECORD_NAMESPACES",
		"PERF_RECORD_THROTTLE", "PERF_RECORD_UNTHROTTLE",
		"PERF_RECORD_LOST_SAMPLES", "PERF_RECORD_AUX_OUTPUT_HW_ID",
	};
	size_t i;

	if (starts_with(rec->p, rec->len, "PERF_RECORD_COMM")) {
		/* "PERF_RECORD_COMM[ exec]: COMM:PID/TID"; COMM may hold ':' */
		const char *c = memchr(rec->p, ':', (size_t)(end - rec->p));
		const char *last, *slash;
		uint32_t pid, tid;

		if (!c)
			goto bad;
		c = skip_ws(c + 1, end);
		last = NULL;
		for (const char *q = c; q < end; q++)
			if (*q == ':')
				last = q;
		if (!last)
			goto bad;
		slash = memchr(last, '/', (size_t)(end - last));
		if (!slash || parse_u32(last + 1, (size_t)(slash - last - 1), &pid))
			goto bad;
		{
			const char *te = slash + 1;

			while (te < end && is_digit(*te))
				te++;
			if (parse_u32(slash + 1, (size_t)(te - slash - 1), &tid))
				goto bad;
		}
		out->kind = MT_PL_COMM;
		out->pid = pid;
		out->tid = tid;
		out->comm.p = c;
		out->comm.len = (size_t)(last - c);
		return 0;
	}
	if (starts_with(rec->p, rec->len, "PERF_RECORD_LOST") &&
	    !starts_with(rec->p, rec->len, "PERF_RECORD_LOST_SAMPLES")) {
		struct tok v;

		out->kind = MT_PL_LOST;
		out->err_msg.p = rec->p;
		out->err_msg.len = (size_t)(end - rec->p);
		if (value_after(p, end, "lost", &v, &p))
			parse_dec(v.p, v.len, &out->err_count);
		return 0;
	}
	out->kind = MT_PL_SKIP;
	out->skip_reason = "other PERF_RECORD lines";
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (starts_with(rec->p, rec->len, names[i])) {
			out->skip_reason = names[i];
			break;
		}
	}
	return 0;
bad:
	*why = "malformed PERF_RECORD_COMM line";
	return MT_ESYNTAX;
}

/* ---- synthesized events by name, lines without an event ---- */

int mt_pl_is_synth(struct mt_perf_line *out)
{
	size_t i;

	for (i = 0; i < sizeof(synth_events) / sizeof(synth_events[0]); i++) {
		if (strlen(synth_events[i].name) == out->event_name.len &&
		    !memcmp(out->event_name.p, synth_events[i].name,
			    out->event_name.len)) {
			out->mark_kind = synth_events[i].kind;
			return 1;
		}
	}
	return 0;
}

/*
 * A line without an event column that is not a branch: old perf printed
 * synthesized events and sample headers that way ("TIME:   tr end   cbr: 45
 * freq: 4500 MHz (118%) ...", "TIME: psb offs: 0x4be8 ...", "TIME: ").
 */
int mt_pl_no_event(const char *p, const char *end, struct mt_perf_line *out,
		   const char **why)
{
	static const struct {
		const char *key, *name;
		uint8_t kind;
	} keys[] = {
		{ "cbr:", "cbr", MT_MARK_CBR },
		{ "psb offs:", "psb", MT_MARK_PSB },
		{ "payload:", "ptwrite", MT_MARK_PTWRITE },
	};
	const char *q = p;
	uint16_t flags = 0;
	uint8_t kind;
	size_t i;

	int nflags;
	struct tok t;

	if (skip_ws(p, end) == end) {
		out->kind = MT_PL_SAMPLE;
		return 0;
	}
	nflags = mt_pl_parse_flags(&q, end, &kind, &flags);
	q = skip_ws(q, end);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (find(q, end, keys[i].key, strlen(keys[i].key))) {
			out->kind = MT_PL_MARK;
			out->mark_kind = keys[i].kind;
			out->event_name.p = keys[i].name;
			out->event_name.len = strlen(keys[i].name);
			mt_pl_parse_mark(p, end, out);
			return 0;
		}
	}
	if (nflags)
		goto bad; /* a branch cut short */
	if (*q == '(') {
		/* --call-trace: "(dso)   indented_name" */
		out->kind = MT_PL_SKIP;
		out->skip_reason = "--call-trace";
		return 0;
	}
	p = q;
	if (next_tok(&p, end, &t) && is_lhex(t.p, t.len)) {
		/* a sample printed without its event column, "IP sym (dso)";
		 * with text after the DSO, an instruction trace */
		const char *close = memrchr(p, ')', (size_t)(end - p));

		if (close && skip_ws(close + 1, end) != end) {
			out->kind = MT_PL_SKIP;
			out->skip_reason = "instruction trace";
			return 0;
		}
		out->kind = MT_PL_SAMPLE;
		mt_pl_trailing_loc(q, end, out);
		return 0;
	}
bad:
	*why = "a branch line needs 'FROM => TO'";
	return MT_ESYNTAX;
}


/* ---- for callers that have perf's values rather than its lines ---- */

int mt_perf_parse_synth(const char *name, size_t nlen, const char *text,
			size_t len, struct mt_perf_line *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = MT_PL_MARK;
	out->event_name.p = name;
	out->event_name.len = nlen;
	if (!mt_pl_is_synth(out))
		return MT_ESYNTAX;
	mt_pl_parse_mark(text, text + len, out);
	return 0;
}

void mt_perf_error_record(const struct mt_perf_line *l, struct mt_error *e)
{
	e->time = l->time;
	e->pid = l->pid;
	e->tid = l->tid;
	e->cpu = l->cpu;
	e->class = l->kind == MT_PL_LOST || l->err_code == 8 ? MT_ERRC_LOST :
							      MT_ERRC_DECODE;
	e->ip = l->err_ip;
	e->code = l->err_code;
	e->type = l->err_type;
	e->count = l->err_count;
	e->msg = 0;
}
