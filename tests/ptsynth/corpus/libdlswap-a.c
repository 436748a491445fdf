/* dlswap's first library (corpus/dlswap.c) */
int swap_a(int x);
int swap_a(int x)
{
	return x * 3 + 1;
}
