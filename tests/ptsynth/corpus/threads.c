/* Two threads besides main, each with calls of its own. */
#include <pthread.h>

static volatile int acc[2];

__attribute__((noinline)) static int square(int x)
{
	return x * x;
}

static void *worker(void *arg)
{
	int k = *(int *)arg;

	for (int i = 0; i < 5; i++)
		acc[k] += square(i + k);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int id[2] = { 0, 1 };

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, &id[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return acc[0] + acc[1] > 0 ? 0 : 1;
}
