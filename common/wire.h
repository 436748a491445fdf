/*
 * Little-endian field access for the stream format (docs/format.md).
 * Callers check bounds before calling; these only assemble bytes.
 */
#ifndef MT_WIRE_H
#define MT_WIRE_H

#include <stdint.h>

static inline uint16_t mt_get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t mt_get24(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline uint32_t mt_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t mt_get64(const unsigned char *p)
{
	return (uint64_t)mt_get32(p) | (uint64_t)mt_get32(p + 4) << 32;
}

static inline void mt_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void mt_put24(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
}

static inline void mt_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static inline void mt_put64(unsigned char *p, uint64_t v)
{
	mt_put32(p, (uint32_t)v);
	mt_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
