#!/bin/sh
# A file that is no mt stream: every tool that reads streams says what it
# is instead and which tool reads that (die_reader, mt_reader_looks_like),
# exit 1, nothing on standard output. Bytes that look like nothing known
# keep the plain message.
. "$MT_TOP/tests/lib.sh"

mt-mkstream >s.mt
mt-stacks s.mt >spans.mt
mt-fxt -o t.fxt spans.mt
gzip -c s.mt >s.mt.gz
printf '    prog 12/12 [000]     5.000000100:  branches\n' >perf.txt
printf 'PERFILE2\150\0\0\0\0\0\0\0' >perf.data
: >empty
printf '\211MTX\0\0\0\0\0\0\0\0\0\0\0\0' >other

# says FILE PHRASE: each tool's message for FILE ends with PHRASE
says() {
	for tool in mt-dump mt-stacks mt-fxt; do
		expect_exit 1 $tool "$1" >out 2>err
		[ ! -s out ] || fail "$tool $1 wrote to standard output"
		echo "$tool: $1: byte offset 0x0: not an mt stream (bad magic)$2" >want
		same_file want err
	done
}
says t.fxt ": it is an FXT trace; mt-slice reads FXT, Perfetto shows it"
says s.mt.gz ": it is gzip-compressed data; decompress it first (zcat)"
says perf.txt ": it is text; perf script output goes through mt-script-parse first"
says perf.data ": it is a perf.data file; mt-record -i decodes it"
says empty ": it is empty"
says other ""
cp "$(command -v mt-dump)" elf
says elf ": it is an ELF file"
# from standard input too
expect_exit 1 mt-dump <t.fxt 2>err
contains err "mt-dump: <stdin>: byte offset 0x0: not an mt stream (bad magic): it is an FXT trace"
