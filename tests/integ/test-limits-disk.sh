#!/usr/bin/env bash
# test-limits-disk.sh - the disk bound has no blind spot (issue 24 item 2), in
# the real sandbox: bytes the agent writes count whatever the modes of the
# directories that hold them. A directory made mode 000 before anything is
# written into it (root in the sandbox writes through it) once hid 400 MiB
# from a 300 MiB bound, in the writable layer and in the agent's checkout
# alike; both are stopped now like a plain writer.
source "$(dirname "$0")/lib.sh"
need_stack
need_default_image

lz_config <<'YAML'
profiles:
  default:
    image: localhost/lazaret-default:latest
    limits: {disk: 200m}
YAML
sessions_are() { lz status -w "$repo" 2>/dev/null | grep -q "sessions:    $1\$"; }
status_has() { lz status -w "$repo" 2>/dev/null | grep -qF -- "$1"; }


# Each case in a workspace of its own: what the first wrote stays in its
# Domain Root (/var is a State Anchor directory), and a domain that starts
# past its bound is stopped at its first walk, before any writer.
hidden_writer() { # workspace where: a mode-000 directory there, 300 MiB written into it
	local dir=$2
	lz_domain "$1"
	lz_on_exit "timeout 10 pkill -KILL -u $LZ_USER -f -- '--workspace $canon'"
	lz run -w "$repo" -- sleep 120 </dev/null >/dev/null 2>&1 &
	wait_for 40 sessions_are 1 || fail "the domain did not start ($dir)"
	lz_hold || fail "no holding client ($dir)"
	set +e
	out=$(lz run -w "$repo" -- sh -c "mkdir -p $dir && chmod 000 $dir &&
		dd if=/dev/zero of=$dir/big bs=1M count=300 2>/dev/null && echo written && sleep 60; echo survived" \
		</dev/null 2>&1)
	set -e
	assert_contains "$out" "written" "300 MiB written under the mode-000 $dir"
	assert_not_contains "$out" "survived" "the writer under $dir was stopped"
	assert_contains "$out" "lazaret: disk limit 200m reached" "the user's terminal says why ($dir)"
	wait_for 10 status_has "stopped:     disk limit 200m reached" || fail "status does not show the disk limit ($dir)"
	assert_contains "$(lz audit -w "$repo")" "limit.disk" "the audit trail records it ($dir)"
	# stopped while the hold keeps the coordinator up (it goes 0.5 s after its
	# last client, on a loaded machine before a stop sent after the hold ends)
	lz stop -w "$repo" >/dev/null
	timeout 10 pkill -u "$LZ_USER" -f "hold.py $sock" || true
}

# the container's writable layer
hidden_writer ws-var /var/hide
# the agent's checkout (the Domain Root's worktree)
hidden_writer ws-checkout /workspace/hide
echo "test-limits-disk: all passed"
