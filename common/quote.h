/*
 * Showing bytes that came from outside (input lines, names from a trace, an
 * HTTP request) in a message, so that nothing in them reaches a terminal as
 * a control sequence.
 */
#ifndef MT_QUOTE_H
#define MT_QUOTE_H

#include <stddef.h>

/*
 * Write into dst (cap bytes; cap >= 8) the n bytes of src as printable
 * ASCII: bytes 0x20-0x7e stay as they are except the backslash and the
 * double quote, which become \\ and \"; tab, newline and carriage return
 * become \t \n \r; every other byte (controls, DEL, and every byte of 0x80
 * and above, UTF-8 or not) becomes \xHH. When the quoted text does not fit,
 * it is cut at a whole escape and "..." ends it. dst is always
 * NUL-terminated. Returns dst, so that a call can stand in a printf
 * argument list.
 */
char *mt_quote(char *dst, size_t cap, const void *src, size_t n);

/*
 * As mt_quote, but only controls (bytes below 0x20, 0x7f) and bytes of
 * 0x80 and above are escaped; backslashes and quotes stay, so that text
 * already quoted passes unchanged. For a whole message, as a last guard.
 */
char *mt_quote_controls(char *dst, size_t cap, const void *src, size_t n);

/* mt_quote of a NUL-terminated string. */
char *mt_quote_str(char *dst, size_t cap, const char *s);

/* How large a dst mt_quote needs for n bytes, never cut: 4 * n + 1. */
#define MT_QUOTE_SIZE(n) (4 * (size_t)(n) + 1)

#endif
