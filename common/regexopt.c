#include "die.h"
#include "err.h"
#include "regex.h"
#include "banned.h"

void mt_regex_option(struct mt_regex *r, const char *opt, const char *pattern)
{
	char msg[MT_REGEX_MSG_SIZE];
	size_t at = 0;
	int err = mt_regex_compile(r, pattern, &at, msg, sizeof(msg));

	if (err == MT_ENOMEM)
		die(MT_EXIT_SYSTEM, "out of memory");
	if (err)
		die(MT_EXIT_USAGE, "%s %s: at offset %zu: %s", opt, pattern, at, msg);
}
