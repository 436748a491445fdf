/*
 * libmtplug.so: a library loaded with dlopen after the patch backend
 * started (tests/progs/dlopener, attachme's "load"): plug_run calls
 * plug_leaf twice and plug_jumper once. plug_jumper jumps past the first
 * instruction of plug_target (as glibc's mempcpy jumps into memmove): a
 * patch of plug_target's entry would put that jump in the middle of its
 * own jmp, so plug_target must be left alone, which takes reading the
 * library's every function for branches when it is mapped.
 *
 * Build -O1 -fno-inline -fPIC -shared: the calls must stay real calls.
 */
unsigned long plug_target(unsigned long k);
unsigned long plug_jumper(unsigned long k);

/* plug_target(k) = 2k; plug_jumper(k) = 2(k + 1) */
__asm__(".text\n"
	".globl plug_target\n"
	".type plug_target, @function\n"
	".p2align 4\n"
	"plug_target:\n"
	".cfi_startproc\n"
	"	mov %rdi, %rax\n"
	"plug_target_body:\n"
	"	add %rax, %rax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size plug_target, .-plug_target\n"
	".globl plug_jumper\n"
	".type plug_jumper, @function\n"
	".p2align 4\n"
	"plug_jumper:\n"
	".cfi_startproc\n"
	"	lea 1(%rdi), %rax\n"
	"	jmp plug_target_body\n"
	".cfi_endproc\n"
	".size plug_jumper, .-plug_jumper\n");

__attribute__((noinline)) unsigned long plug_leaf(unsigned long k)
{
	__asm__ volatile("" ::: "memory");
	return k * 5 + 3;
}

__attribute__((noinline)) unsigned long plug_run(unsigned long k)
{
	unsigned long r = plug_leaf(k) + plug_leaf(k + 1);

	r += plug_jumper(k) - 2 * (k + 1); /* 0 */
	__asm__ volatile("" ::: "memory");
	return r;
}
