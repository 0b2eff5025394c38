#!/usr/bin/env bash
# test-drift.sh - configuration drift is visible (issue 10, item 3), on podman
# + runsc: a run that joins a sandbox started from another configuration is
# told exactly what differs (env by name, never by value; limits; volumes;
# the network mode and network.ask_timeout) and
# how to apply it; --replace restarts the sandbox with the new one; an unset
# env:VAR is warned about at run.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

config() { # FOO-value memory
	lz_config <<YAML
profiles:
  default:
    image: localhost/lazaret-default:latest
    env:
      FOO: $1
      TOKEN: env:LZ_DRIFT_UNSET_$$
    limits: {memory: $2}
YAML
}
config one 1g
lz_domain ws
lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }

(rc=0; lz run -w "$repo" -- sleep 200 </dev/null >/dev/null 2>"$T/first.err" || rc=$?; echo $rc >"$T/first.rc") &
wait_for 40 sessions_are 1 || fail "first session did not start"
assert_contains "$(cat "$T/first.err")" "host variable LZ_DRIFT_UNSET_$$ is unset; TOKEN is not passed" \
	"run warns about an unset env:VAR"

# --- same configuration: no word about drift
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_not_contains "$err" "another configuration" "no drift, no warning"

# --- changed configuration: joined as it is, told what differs and how to apply it
config two 2g
out=$(lz run -w "$repo" -- sh -c 'echo FOO=$FOO' </dev/null 2>"$T/err")
err=$(cat "$T/err")
assert_eq "$out" "FOO=one" "the run joins the running sandbox (its FOO)"
assert_contains "$err" "domain $hash runs with another configuration than yours" "drift is reported"
assert_contains "$err" "profiles.default.env.FOO: a different value" "names the variable"
assert_not_contains "$err" "two" "never shows a value"
assert_contains "$err" "profiles.default.limits.memory: running 1g, yours 2g" "names the limit"
assert_contains "$err" "'lazaret run --replace'" "says how to apply it"

# --- --replace: the sandbox restarts from the new configuration
out=$(lz run --replace -w "$repo" -- sh -c 'echo FOO=$FOO' </dev/null 2>"$T/err")
assert_eq "$out" "FOO=two" "--replace runs the new configuration"
assert_contains "$(cat "$T/err")" "replacing: domain $hash" "--replace says what it replaced"
wait
assert_eq "$(cat "$T/first.rc")" 143 "the replaced sandbox's session ended"
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_not_contains "$err" "another configuration" "after --replace the configuration agrees"

# --- the network mode and how long a new destination is held are compared too
netconfig() { # ask_timeout
	lz_config <<YAML
network:
  ask_timeout: $1
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar
    env:
      FOO: two
    limits: {memory: 2g}
YAML
}
# A domain ends half a second after its last session and client: a live
# session keeps it there while the configuration changes under it.
live_session() { # what
	(lz run -w "$repo" -- sleep 200 </dev/null >/dev/null 2>&1 || true) &
	wait_for 40 sessions_are 1 || fail "the session $1 did not start"
}
live_session "before the network change"
netconfig 5
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_contains "$err" "profiles.default.network: running none, yours sidecar" "names the network mode"
lz run --replace -w "$repo" -- true </dev/null >/dev/null 2>"$T/rep.err" || fail "--replace with the sidecar failed: $(cat "$T/rep.err")"
live_session "with the sidecar"
netconfig 20
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_contains "$err" "network.ask_timeout: running 5s, yours 20s" "names network.ask_timeout"
lz stop -w "$repo" >/dev/null
# --- an image retagged under the running sandbox is a difference (its id,
# read from podman's storage files while the sandbox keeps the image mounted)
TAG=localhost/lztest-drift-$$:1
lz_on_exit "as_user podman rmi -f $TAG"
as_user podman tag localhost/lazaret-default:latest "$TAG"
lz_config <<YAML
profiles:
  default:
    image: $TAG
YAML
lz run --replace -w "$repo" -- true </dev/null >/dev/null 2>&1 || fail "--replace onto the tag failed"
(lz run -w "$repo" -- sleep 200 </dev/null >/dev/null 2>&1 || true) &
wait_for 40 sessions_are 1 || fail "session on the tag did not start"
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_not_contains "$err" "another configuration" "same image, no drift"
mkdir -p "$T/relabel"
printf 'FROM %s\nLABEL lztest.drift=%s\n' "$TAG" "$$" >"$T/relabel/Containerfile"
chmod -R a+rX "$T/relabel"
as_user podman build -q -t "$TAG" "$T/relabel" >/dev/null ||
	fail "cannot build a relabelled image"
err=$(lz run -w "$repo" -- true </dev/null 2>&1 >/dev/null)
assert_contains "$err" "profiles.default.image (its image id): running" "a rebuilt image under the same tag is reported"
lz stop -w "$repo" >/dev/null
wait || true

# --- the workbench says it too, in its status line, when a tab joins
if [ -x "$T/bin/lazaret-workbench" ] && command -v tmux >/dev/null; then
	source "$(dirname "$0")/lib-wb.sh"
	config three 2g
	(lz run -w "$repo" -- sleep 200 </dev/null >/dev/null 2>&1 || true) &
	wait_for 40 sessions_are 1 || fail "session for the workbench did not start"
	config four 2g
	"${TM[@]}" new-session -d -s wb -x 200 -y 30 "$(wb_line -w "$repo")"
	wait_for 30 pane_has "not running your configuration" || show_fail "the workbench did not say the configuration differs"
	assert_contains "$(pane)" "profiles.default.env.FOO: a different value" "the workbench names the variable"
	lz stop -w "$repo" >/dev/null
	wait || true
else
	note "no workbench or tmux here: its drift line is not checked"
fi
echo "test-drift: all passed"
