#!/usr/bin/env bash
# tests/lint/test-check-cycles.sh - make check: scripts/check-cycles names a
# call circle planted between two objects of one folder (a calls b, b calls a),
# lets pass one across folders and one named in KNOWN_CIRCLES, and says when an
# entry of KNOWN_CIRCLES is no longer a circle; a part's sub-rooms are one part,
# and a call up its FLOORS is named; an object whose source is gone is left out.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/lz-check-cycles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
cc_o() {	# cc_o OBJ SOURCE-TEXT
	mkdir -p "$(dirname "$tmp/b/obj/$1")" "$(dirname "$tmp/src/$1")"
	printf '%s\n' "$2" >"$tmp/src/${1%.o}.c"
	cc -std=c17 -c -o "$tmp/b/obj/$1" "$tmp/src/${1%.o}.c"
}
expect() {	# expect NAME RC WANT-TEXT [ENV...]
	local name=$1 want_rc=$2 want=$3 rc=0; shift 3
	env CHECK_CYCLES_SRC="$tmp/src" "$@" "$top/scripts/check-cycles" "$tmp/b" >"$tmp/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want_rc" ] || { [ -n "$want" ] && ! grep -qF -- "$want" "$tmp/out"; }; then
		echo "FAIL: $name: exit $rc (wanted $want_rc) and: $want"; sed 's/^/    | /' "$tmp/out"
		fails=$((fails + 1))
	else
		echo "ok    $name"
	fi
}
cc_o part/a.o 'int b_one(void); int a_one(void); int a_one(void) { return b_one(); }'
cc_o part/b.o 'int b_one(void); int c_one(void); int b_one(void) { return c_one(); }'
cc_o part/c.o 'int c_one(void); int c_one(void) { return 1; }'
cc_o other/d.o 'int a_one(void); int d_one(void); int d_one(void) { return a_one(); }'
expect "one way is no circle" 0 "" KNOWN_CIRCLES=
cc_o part/c.o 'int a_one(void); int c_one(void); int c_one(void) { return a_one(); }'
expect "a -> b -> c -> a is named" 1 \
	"part: a.c b.c c.c: call circle (a.c -> b.c: b_one, b.c -> c.c: c_one, c.c -> a.c: a_one)" KNOWN_CIRCLES=
expect "a known circle passes" 0 "" KNOWN_CIRCLES="part:a.c,b.c,c.c"
expect "a smaller known entry does not cover it" 1 "call circle" KNOWN_CIRCLES="part:a.c,b.c"
cc_o part/c.o 'int c_one(void); int c_one(void) { return 1; }'
expect "an entry no longer needed is said" 0 \
	"check-cycles: part:a.c,b.c,c.c is no longer a circle: drop it from KNOWN_CIRCLES" KNOWN_CIRCLES="part:a.c,b.c,c.c"
# a part's sub-rooms are one part: a circle across them is named, file by sub-room
rm -rf "$tmp/b"
cc_o top/part/x/a.o 'int b_one(void); int a_one(void); int a_one(void) { return b_one(); }'
cc_o top/part/y/b.o 'int b_one(void); int b_one(void) { return 1; }'
expect "one way across sub-rooms is no circle" 0 "" KNOWN_CIRCLES= FLOORS=
expect "a call up a floor is named" 1 \
	"top/part: x/a.c -> y/b.c: b_one: a lower floor calls up (x<y)" KNOWN_CIRCLES= FLOORS="top/part:x<y"
expect "a call down a floor passes" 0 "" KNOWN_CIRCLES= FLOORS="top/part:y<x"
cc_o top/part/y/b.o 'int a_two(void); int b_one(void); int b_one(void) { return a_two(); }'
cc_o top/part/x/c.o 'int a_one(void); int a_two(void); int a_two(void) { return a_one(); }'
expect "a circle across sub-rooms is named" 1 \
	"top/part: x/a.c x/c.c y/b.c: call circle" KNOWN_CIRCLES= FLOORS=
# an object whose source is gone (a file moved into a sub-room) is stale, not code
rm "$tmp/src/top/part/x/c.c"
expect "a stale object's calls are not counted" 0 "" KNOWN_CIRCLES= FLOORS=
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "check-cycles: planted circles caught"
