/*
 * Command lines, for the tools (tool tier: libmttool.a, like die.h): the
 * options and the operand every filter shares, the end of every tool's
 * option switch, finding a program as execvp(3) would, and printing a
 * command line so that a shell reads back the same words. The caller owns
 * struct mt_filter_io; the names in it point into argv.
 */
#ifndef MT_CMDLINE_H
#define MT_CMDLINE_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* getopt_long's values for --help and --version in every tool's option
 * table: above any character and any tool's own enum. */
enum { MT_OPT_HELP = 0x10000, MT_OPT_VERSION };

/*
 * getopt_long(3) for the tools, with the house's messages: returns what it
 * returns, but for a bad option (unknown, ambiguous, missing or unwanted
 * value) prints one line naming it, with the nearest option's name when
 * one is close ("unknown option '--bakend'; did you mean '--backend'?"),
 * then the usage (usage_fail: exit MT_EXIT_USAGE). getopt's own message,
 * which names the program by its full path, is not printed.
 */
int mt_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *longopts, const char *usage);

/*
 * The default case of a tool's option switch, c being what getopt_long
 * returned: MT_OPT_HELP prints usage on standard output and exits 0
 * (usage_ok), MT_OPT_VERSION prints the version (version_ok), anything
 * else is a bad command line (usage_fail: usage on stderr, MT_EXIT_USAGE).
 */
_Noreturn void mt_option_default(int c, const char *usage);

/*
 * A filter's command line: its own options, then -o FILE (--output),
 * -v (--verbose), --help and --version, and at most one operand, the
 * input: a file, or standard input for none or "-". Its long option table
 * ends with MT_FILTER_LONGOPTS (in this order: getopt_long lists the
 * candidates of an ambiguous abbreviation in table order), and main reads
 *
 *	struct mt_filter_io io = { 0 };
 *
 *	while ((c = getopt_long(argc, argv, "o:v", longopts, NULL)) != -1) {
 *		switch (c) {
 *		case OPT_MINE: ...; break;
 *		default: mt_filter_option(&io, c, USAGE);
 *		}
 *	}
 *	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
 */
#define MT_FILTER_LONGOPTS \
	{ "output", required_argument, NULL, 'o' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "help", no_argument, NULL, MT_OPT_HELP }, \
	{ "version", no_argument, NULL, MT_OPT_VERSION }

/* Zeroed before the options, filled by the two calls below. */
struct mt_filter_io {
	const char *out_name; /* -o FILE; NULL: standard output */
	int verbose;          /* -v */
	const char *in_name;  /* the input for messages: its file, or "<stdin>" */
	int in_fd;            /* the input, open */
};

/*
 * The default case of a filter's option switch: 'o' (-o FILE, from
 * optarg) and 'v' go into io, the rest to mt_option_default.
 */
void mt_filter_option(struct mt_filter_io *io, int c, const char *usage);

/*
 * After the options, given the n operands left (argc - optind, argv +
 * optind): more than one is a bad command line (usage_fail). Opens the
 * input (open_input_or_die: dies naming a file that cannot be opened),
 * then sends standard output to io->out_name when there is one
 * (output_to_or_die, which dies when it is the input).
 */
void mt_filter_open_or_die(struct mt_filter_io *io, int n, char **operands,
			   const char *usage);

/* The duration s (a number and a unit: ns, us, ms, s) of option opt, in
 * ns; dies (usage) naming both when it is not one. */
uint64_t mt_duration_arg(const char *s, const char *opt);

/*
 * The path of the executable regular file that execvp(3) would run for
 * name: name itself when it holds a '/', else the first PATH directory
 * that has it (an empty entry is the current directory; no PATH:
 * /usr/local/bin:/usr/bin:/bin). Malloced; NULL when there is none, with
 * errno: for a name with a '/', EISDIR (a directory), EACCES (not an
 * executable regular file) or stat(2)'s (ENOENT...); in PATH, EACCES
 * when an entry has a file of that name that is not executable, else
 * ENOENT; ENOMEM when memory ran out.
 */
char *mt_which(const char *name);

/* Print s to f as a shell reads it back as one word: as it is when it
 * holds only characters no shell treats specially, else single-quoted. */
void mt_shell_quote(FILE *f, const char *s);

#endif
