/* dlswap's second library, swap_a's layout (corpus/dlswap.c) */
int swap_b(int x);
int swap_b(int x)
{
	return x * 3 + 2;
}
