#!/bin/sh
# Names that are not clean UTF-8: invalid bytes (stray, truncated,
# overlong, surrogate, above U+10FFFF), control bytes, quotes and
# backslashes, next to valid multibyte UTF-8 that must survive. --json
# output loads with python3's json module (strict UTF-8) and gives back
# each name with every ill-formed subpart replaced by one U+FFFD (Python's
# errors="replace" follows the same Unicode practice as the Perfetto UI's
# TextDecoder), the rest unchanged; control characters and
# U+2028/U+2029 appear only escaped. FXT gives back the same names as
# strict UTF-8 (slices and thread names, cut at 200 bytes on a character).
. "$MT_TOP/tests/lib.sh"

cat >gen.py <<'EOF'
import sys
names = [
    b"plain",
    b"stray \xff byte",
    b"cut \xc3(",
    b"overlong \xc0\xaf and \xe0\x80\xaf",
    b"surrogate \xed\xa0\x80",
    b"too big \xf4\x90\x80\x80",
    b"ends in a part \xe2\x82",
    b"three parts \xf0\x9f\x98 \xe2\x82 \xf0\x9f",
    b"ctl \x01\x09\x0a\x1f\x7f end",
    b"c1 \xc2\x80\xc2\x85\xc2\x9f end",
    b"js \xe2\x80\xa8\xe2\x80\xa9 end",
    b'quote " and \\ backslash \\" both',
    "valid é € 𝄞 日本語 ä".encode(),
    "κόσμε".encode() + b"\x80" + "…".encode(),
]
def expect(b):
    return b.decode("utf-8", errors="replace")
def asm(b):
    out = ""
    for c in b:
        if c == 0x22 or c == 0x5c:
            out += "\\" + chr(c)
        elif 0x20 <= c < 0x7f:
            out += chr(c)
        else:
            out += "\\x%02x" % c
    return out
# a thread name of 198 ASCII bytes and a 4-byte character: cut before it
comm = b"w" * 198 + "𝄞".encode() + b"\xff"
with open("names.txt", "w") as f:
    f.write('THREAD pid=9 tid=9 comm="%s" time=-\n' % asm(comm))
    for i, n in enumerate(names):
        f.write("SPAN start=1.%09d end=1.%09d pid=9 tid=9 depth=0 "
                "kind=function flags=- address=0x401000 name=\"%s\" "
                "dso=\"%s\"\n" % (10 * i, 10 * i + 5, asm(n), asm(n)))
with open("want.txt", "w", encoding="utf-8") as f:
    for n in names:
        f.write(repr(expect(n)) + "\n")
with open("comm.txt", "w", encoding="utf-8") as f:
    f.write(repr(expect(comm)) + "\n")
with open("comm-cut.txt", "w", encoding="utf-8") as f:
    f.write(repr("w" * 198) + "\n")
EOF
python3 gen.py
mt-asm names.txt >names.mt

# JSON: loads, every name (and dso) as expected
mt-fxt --json --dso names.mt >names.json
python3 - names.json >got <<'EOF'
import json, sys
with open(sys.argv[1], "rb") as f:
    events = json.load(f)["traceEvents"]
for e in events:
    if e["ph"] == "X":
        assert e["args"]["dso"] == e["name"], e
        print(repr(e["name"]))
EOF
same_file want.txt got
python3 - names.json >got <<'EOF'
import json, sys
with open(sys.argv[1], "rb") as f:
    events = json.load(f)["traceEvents"]
for e in events:
    if e["ph"] == "M" and e["name"] == "thread_name":
        print(repr(e["args"]["name"]))
EOF
same_file comm.txt got
# control characters and JavaScript line ends only escaped
python3 - names.json <<'EOF' || fail "a control character is not escaped"
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [hex(ord(c)) for c in text if c != "\n" and (ord(c) < 0x20 or
       0x7f <= ord(c) <= 0x9f or c in "\u2028\u2029")]
sys.exit(1 if bad else 0)
EOF
grep -qF '"ctl \u0001\u0009\u000a\u001f\u007f end"' names.json ||
	fail "control bytes: $(grep ctl names.json)"
grep -qF '"quote \" and \\ backslash \\\" both"' names.json ||
	fail "quotes: $(grep quote names.json)"

# FXT: the same names, strict UTF-8 (fxt-check escapes \, \n, \t, \xNN)
mt-fxt --dso names.mt >names.fxt
fxt-check names.fxt >check || { cat check >&2; fail "fxt-check found problems"; }
cat >unescape.py <<'EOF'
import re, sys
def unescape(s):
    return re.sub(r"\\(\\|n|t|x[0-9a-f]{2})", lambda m: {"\\": "\\",
        "n": "\n", "t": "\t"}.get(m.group(1)) or chr(int(m.group(1)[1:], 16)), s)
raw = sys.stdin.buffer.read()
for line in raw.decode("utf-8").split("\n")[:-1]:  # strict: fails on bad UTF-8
    print(repr(unescape(line.split(" ", int(sys.argv[1]))[-1])))
EOF
fxt-check --slices names.fxt 2>/dev/null | python3 unescape.py 5 >got
same_file want.txt got
fxt-check --names names.fxt 2>/dev/null | grep '^thread ' | python3 unescape.py 3 >got
same_file comm-cut.txt got
