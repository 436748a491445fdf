/*
 * tests/progs/coldjcc.c: code that its FDE alone cannot tell from a
 * function. sign() returns -1, 0 or 1; its rare case, -1, is a part of its
 * own (sign.cold, in .text.unlikely, with an FDE whose frame is already
 * popped: what a profile-guided build such as Debian's python3 has by the
 * hundred), entered only by sign's conditional jump. Its zero case is a
 * conditional tail call of zero(), a function that main also calls. In a
 * stripped copy both are FILE+0xOFFSET, and only what enters them says
 * which is a function: sign.cold no call enters, zero a call does.
 * Prints the sum of sign(i) for i in [-N, N) and of zero() N times.
 *   coldjcc [N]   (1000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "banned.h"

long sign(long v);
long zero(void);

__asm__(".text\n"
	".globl sign\n"
	".type sign, @function\n"
	"sign:\n"
	".cfi_startproc\n"
	"	test %rdi, %rdi\n"
	"	js sign.cold\n"
	"	jz zero\n"
	"	mov $1, %eax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sign, .-sign\n"
	".globl zero\n"
	".type zero, @function\n"
	".p2align 4\n"
	"zero:\n"
	".cfi_startproc\n"
	"	mov $0, %eax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size zero, .-zero\n"
	".section .text.unlikely, \"ax\", @progbits\n"
	".type sign.cold, @function\n"
	"sign.cold:\n"
	".cfi_startproc\n"
	"	mov $-1, %rax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size sign.cold, .-sign.cold\n"
	".text\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, s = 0, z = 0;

	if (n < 1)
		return 2;
	for (long i = -n; i < n; i++)
		s += sign(i);
	for (long i = 0; i < n; i++)
		z += zero();
	printf("%ld %ld\n", s, z);
	return 0;
}
