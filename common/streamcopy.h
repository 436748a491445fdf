/*
 * Copying records from a stream being read into a stream being written,
 * each string re-interned by the writer: what one stream's ids mean is
 * given by its own STRING records, so a record moved to another stream
 * (streams joined into one, records merged from several) takes the
 * writer's ids for the same texts.
 */
#ifndef MT_STREAMCOPY_H
#define MT_STREAMCOPY_H

#include <stdint.h>

#include "stream.h"

/* The reader's ids already interned by the writer (0: not yet). */
struct mt_copier {
	uint32_t *map;
	size_t cap;
	struct mt_loc *frames; /* a SAMPLE's frames, renumbered */
	size_t frames_cap;
};

void mt_copier_init(struct mt_copier *c);
void mt_copier_release(struct mt_copier *c);

/*
 * Writes rec, just read from r, to w with the writer's string ids.
 * A STRING record writes nothing (the reader's definition is noted; the
 * writer defines its own when a record uses the text), nor does END (the
 * writer ends its stream itself); records of unknown type are copied as
 * they are (docs/format.md section 5: they refer to no string id).
 * Returns 0 or an MT_E* code (MT_EUNDEFSTR: an id the reader never
 * defined).
 */
int mt_copy_record(struct mt_writer *w, const struct mt_reader *r,
		   struct mt_copier *c, const struct mt_record *rec);

/* One of the reader's string ids as the writer's (0 stays 0). */
int mt_copy_string(struct mt_writer *w, const struct mt_reader *r,
		   struct mt_copier *c, uint32_t id, uint32_t *out);

#endif
