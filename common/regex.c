#include <string.h>

#include "err.h"
#include "regex.h"
#include "banned.h"

int mt_regex_compile(struct mt_regex *r, const char *pattern, size_t *at,
		     char *msg, size_t size)
{
	int code;
	PCRE2_SIZE off;

	mt_regex_release(r);
	r->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code,
			      &off, NULL);
	if (!r->re) {
		*at = (size_t)off;
		if (size) {
			/* cut short (still NUL-terminated) when it does not fit */
			msg[0] = '\0';
			pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, size);
		}
		return MT_ESYNTAX;
	}
	r->md = pcre2_match_data_create_from_pattern(r->re, NULL);
	if (!r->md) {
		mt_regex_release(r);
		return MT_ENOMEM;
	}
	return 0;
}

int mt_regex_match_len(const struct mt_regex *r, const char *s, size_t len)
{
	return pcre2_match(r->re, (PCRE2_SPTR)s, len, 0, 0, r->md, NULL) >= 0;
}

int mt_regex_match(const struct mt_regex *r, const char *s)
{
	return mt_regex_match_len(r, s, strlen(s));
}

void mt_regex_release(struct mt_regex *r)
{
	pcre2_match_data_free(r->md);
	pcre2_code_free(r->re);
	r->re = NULL;
	r->md = NULL;
}
