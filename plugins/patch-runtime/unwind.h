/*
 * The wrappers of the stack walkers (unwind.c).
 */
#ifndef MT_PATCH_UNWIND_H
#define MT_PATCH_UNWIND_H

#include <stdint.h>

/*
 * A wrapper for the next copy of walker kind (enum mtp_fkind, not
 * MTP_FK_TRACE): its address, the redirect for mtp_patch(), with *contp
 * where mtp_patch() is to put the copy's relocated entry; 0 when kind has
 * no wrapper or all MTP_WALKER_COPIES are taken.
 */
uint64_t mtp_walker_slot(uint32_t kind, uint64_t **contp);

/* After a dlopen (rt.c): the libraries it mapped, if any, offered to
 * mt-record and their functions prepared. */
void mtp_loaded(void);

/* Every copy free again (mtp_attach(), a session before undone). */
void mtp_walker_reset(void);

#endif
