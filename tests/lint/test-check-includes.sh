#!/usr/bin/env bash
# tests/lint/test-check-includes.sh - make check: scripts/check-includes passes
# on this tree, and on a temp copy it names each planted violation of the
# folder rules and each planted include cycle (file:line, what, which rule)
# and exits 1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/lz-check-includes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

"$top/scripts/check-includes" "$top" >"$tmp/out" 2>&1 ||
	{ echo "FAIL: the tree itself does not pass:"; cat "$tmp/out"; exit 1; }

# plant FILE LINE EXPECTED: add LINE at the end of FILE in a fresh copy, run
# the check there, expect exit 1 and EXPECTED as a line of its output (~TEXT:
# a line containing TEXT; @N@ is the planted line's number).
plant() {
	local file=$1 line=$2 want=$3 w=$tmp/tree rc=0 n
	rm -rf "$w"; mkdir -p "$w"
	(cd "$top" && cp -a app widgets vterm backend escalate "$w"/)
	[ -d "$top/sidecar" ] && cp -a "$top/sidecar" "$w"/
	mkdir -p "$(dirname "$w/$file")"
	printf '%s\n' "$line" >>"$w/$file"
	n=$(wc -l <"$w/$file")
	want=${want//@N@/$n}
	timeout 60 "$top/scripts/check-includes" "$w" >"$tmp/out" 2>&1 || rc=$?
	if [ "${want#\~}" != "$want" ]; then	# ~TEXT: a part of a line
		grep -qF -- "${want#\~}" "$tmp/out" || rc=99
	elif ! grep -qxF -- "$want" "$tmp/out"; then
		rc=99
	fi
	if [ "$rc" -ne 1 ]; then
		echo "FAIL: $file + '$line': exit $rc, wanted exit 1 and: $want"
		sed 's/^/    | /' "$tmp/out"
		fails=$((fails + 1))
	else
		echo "ok    $file + '$line'"
	fi
}

plant widgets/theme.c '#include "coord/coord.h"' \
	'widgets/theme.c:@N@: includes backend/coord/coord.h: widgets/ never reaches backend/ beyond backend/common/'
plant vterm/term-sb.c '#include "widget.h"' \
	'vterm/term-sb.c:@N@: includes widgets/widget.h: vterm/ never reaches widgets/ or app/'
plant vterm/term.h '#include <wb/core/wb-state.h>' \
	'vterm/term.h:@N@: includes app/wb/core/wb-state.h: vterm/ never reaches widgets/ or app/'
plant backend/common/base/paths.c '#include "store/store.h"' \
	'backend/common/base/paths.c:@N@: includes backend/store/store.h: backend/common/ reaches no other backend folder, nor app/, widgets/, vterm/'
plant backend/common/wire/proto.c '#include "../../coord/lock.h"' \
	'backend/common/wire/proto.c:@N@: includes backend/coord/lock.h: backend/common/ reaches no other backend folder, nor app/, widgets/, vterm/'
plant backend/common/base/err.h '#include "term.h"' \
	'backend/common/base/err.h:@N@: includes vterm/term.h: backend/common/ reaches no other backend folder, nor app/, widgets/, vterm/'
plant backend/coord/screen.c '#include "wb/core/wb-tab.h"' \
	'backend/coord/screen.c:@N@: includes app/wb/core/wb-tab.h: backend/ never reaches app/ or widgets/'
plant backend/store/audit.c '#include "theme.h"' \
	'backend/store/audit.c:@N@: includes widgets/theme.h: backend/ never reaches app/ or widgets/'
plant escalate/escalate.c '#include "coord/lock.h"' \
	'escalate/escalate.c:@N@: includes backend/coord/lock.h: escalate/ and sidecar/ reach only backend/common/'
plant sidecar/sidecar.c '#include "term.h"' \
	'sidecar/sidecar.c:@N@: includes vterm/term.h: escalate/ and sidecar/ reach only backend/common/'
# the layers of backend/common/ and the rooms above it
plant backend/common/base/paths.c '#include "config.h"' \
	'backend/common/base/paths.c:@N@: includes backend/common/config/config.h: common/base/ reaches no other common library'
plant backend/common/wire/proto.c '#include "sign.h"' \
	'backend/common/wire/proto.c:@N@: includes backend/common/trust/sign.h: common/wire/ reaches only common/base/ and common/policy/'
plant backend/common/policy/grant.c '#include "proto.h"' \
	'backend/common/policy/grant.c:@N@: includes backend/common/wire/proto.h: common/policy/ reaches only common/base/'
plant backend/host/proc.c '#include "store/store.h"' \
	'backend/host/proc.c:@N@: includes backend/store/store.h: backend/host/ is below every backend part: it reaches only backend/common/'
plant backend/sandbox/podman/podman.c '#include "coord/coord.h"' \
	'backend/sandbox/podman/podman.c:@N@: includes backend/coord/coord.h: no backend part reaches up into backend/coord/ (the runner and the control server are in backend/host/)'
# the sub-rooms of backend/sandbox/: runsc, rootless, image, sentry < podman, mounts
plant backend/sandbox/sentry/sentry.c '#include "sandbox/podman/podman.h"' \
	'backend/sandbox/sentry/sentry.c:@N@: includes backend/sandbox/podman/podman.h: sandbox/sentry/ reaches no other sandbox sub-room'
plant backend/sandbox/podman/rexec.c '#include "sandbox/mounts/overlay.h"' \
	'backend/sandbox/podman/rexec.c:@N@: includes backend/sandbox/mounts/overlay.h: sandbox/podman/ reaches only runsc/ and rootless/ among the sandbox sub-rooms'
plant backend/sandbox/driver.c '#include "sandbox/rootless/pause.h"' \
	'backend/sandbox/driver.c:@N@: includes backend/sandbox/rootless/pause.h: the root files of backend/sandbox/ (driver, limits) reach none of its sub-rooms'
plant backend/net/net-image.c '#include "doctor/doctor.h"' \
	'backend/net/net-image.c:@N@: includes backend/doctor/doctor.h: backend/doctor/ is above what it checks: nothing in backend/ reaches it'
plant app/client/client.c '#include "wb/wb.h"' \
	'app/client/client.c:@N@: includes app/wb/wb.h: app/client/ is shared by the fronts: it reaches none of them'
plant app/wb/core/wb-tab.c '#include "cli/cli-table.h"' \
	'app/wb/core/wb-tab.c:@N@: includes app/cli/cli-table.h: app/wb/ never reaches app/cli/ (what both need is in app/client/)'
plant app/steps/cmd-step.c '#include "cli/commands.h"' \
	'app/steps/cmd-step.c:@N@: includes app/cli/commands.h: app/steps/ never reaches app/cli/ or app/wb/'
# the cycle term.c <-> term-sb.c that term-cell.h broke, planted back
l=$(grep -n '^#include "term-sb.h"' "$top/vterm/term.c" | cut -d: -f1)
plant vterm/term-sb.c '#include "term.h"' \
	"vterm/term.c:$l: includes vterm/term-sb.h: no two modules include each other (vterm/term-sb.c:@N@ includes vterm/term.h)"

# x-int.h belongs to module x: coord-int.h includes session.h, so session.c
# including coord-int.h is a cycle coord <-> session.
plant backend/coord/session.c '#include "coord/coord-int.h"' \
	'~: no two modules include each other (backend/coord/session.c:@N@ includes backend/coord/coord-int.h)'

# What is allowed stays allowed: common from anywhere, own folder, system headers.
w=$tmp/tree; rm -rf "$w"; mkdir -p "$w"
(cd "$top" && cp -a app widgets vterm backend escalate "$w"/)
printf '#include "err.h"\n#include <stdio.h>\n#include <term.h>\n' >>"$w/widgets/theme.c"
printf '#include "xmalloc.h"\n' >>"$w/escalate/escalate.c"
printf '#include "term-snap.h"\n' >>"$w/backend/host/proc.c"
if ! "$top/scripts/check-includes" "$w" >"$tmp/out" 2>&1; then
	echo "FAIL: allowed includes flagged:"; sed 's/^/    | /' "$tmp/out"; fails=$((fails + 1))
else
	echo "ok    allowed includes pass"
fi

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "check-includes: all planted violations caught"
