#include "threadname.h"
#include "banned.h"

int mt_thread_name_due(struct mt_thread_name *t, uint32_t name)
{
	if (t->seen && (!name || name == t->name))
		return 0;
	t->seen = 1;
	t->name = name;
	return 1;
}
