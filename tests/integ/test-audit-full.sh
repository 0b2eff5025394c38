#!/usr/bin/env bash
# test-audit-full.sh - audit first, fail closed (issue 9), on a real full
# filesystem: data_root on a small tmpfs, filled while a session runs. Every
# auto-approved command that ran has its request and decision rows; once the
# store cannot write, nothing runs (exit 125 with the reason), the refusal
# is still recorded (the coordinator gives up its reserve), `lazaret audit
# --verify` says intact and the rows say what ran; with room again, commands
# run again.
source "$(dirname "$0")/lib.sh"
lz run --help >/dev/null 2>&1 || skip "this lazaret has no run command"
[ -x "$T/bin/lazaret-escalate" ] || skip "lazaret-escalate not built"
[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs as data_root needs root"
need_stack
need_default_image

fs=$T/fs; mkdir -p "$fs"
timeout 10 mount -t tmpfs -o size=24m,mode=0755 lztestfull "$fs"
lz_on_exit "umount -l '$fs'"
chown "$LZ_USER" "$fs"
mark=$T/marks; mkdir -p "$mark"; chown "$LZ_USER" "$mark"

lz_domain ws
mkdir -p "$T/home/config/lazaret"
{
	printf 'data_root: %s\nprofiles:\n  default:\n    image: localhost/lazaret-default:latest\n' "$fs"
	printf 'escalation:\n  auto_approve:\n'
	for i in 0 $(seq 1 12) again; do printf '    - "touch %s/ran-%s"\n' "$mark" "$i"; done
} >"$T/home/config/lazaret/config.yaml"
chown -R "$LZ_USER" "$T/home/config"
reserve=$fs/domains/$hash/state.db.reserve

# One session holds the domain; the requests come from a second one each.
lz run -T -w "$repo" -- sh -c 'lazaret-escalate -- touch '"$mark"'/ran-0 && echo escalated; sleep 120' \
	>"$T/run.out" 2>&1 &
runpid=$!
lz_on_exit "kill $runpid"
wait_for 60 grep -q escalated "$T/run.out" || { cat "$T/run.out"; fail "the first escalation failed"; }

# Fill the filesystem (as root: the user's quota does not matter on tmpfs).
dd if=/dev/zero of="$fs/fill" bs=64k >/dev/null 2>&1 || true
[ "$(df --output=avail -k "$fs" | tail -1 | tr -d ' ')" -eq 0 ] || fail "tmpfs not full"
note "ok: $fs is full"

refused=0 ran=()
for i in $(seq 1 12); do
	set +e
	out=$(as_user setsid -w lazaret run -T -w "$repo" -- lazaret-escalate -- touch "$mark/ran-$i" 2>&1); rc=$?
	set -e
	if [ -e "$mark/ran-$i" ]; then
		ran+=("$i")
		[ "$refused" -eq 0 ] || fail "ran-$i ran after a refusal"
	else
		assert_eq "$rc" 125 "ran-$i did not run: exit 125"
		assert_contains "$out" "the audit trail cannot be written" "and the agent is told why"
		refused=$((refused + 1))
	fi
done
[ "$refused" -gt 0 ] || fail "every request ran on a full disk"
note "ok: ${#ran[@]} ran while the WAL still had room, then $refused refused"

audit=$(lz audit -w "$repo")
for i in 0 "${ran[@]}"; do
	n=$(printf '%s\n' "$audit" | grep -c "touch $mark/ran-$i\b" || true)
	[ "$n" -ge 1 ] || fail "ran-$i ran but its request is not in the audit trail"
done
note "ok: every command that ran is in the audit trail"
assert_contains "$audit" "the audit trail cannot be written" "the refusal is recorded (in the reserve's room)"
assert_contains "$(lz audit -w "$repo" --verify)" "audit trail intact" "verify: intact, and it is the whole story"
[ ! -e "$reserve" ] || fail "the reserve ($reserve) was not given up for the refusal"

# Room again: the reserve comes back and commands run again.
rm -f "$fs/fill"
set +e; as_user setsid -w lazaret run -T -w "$repo" -- lazaret-escalate -- touch "$mark/ran-again"; rc=$?; set -e
assert_eq "$rc" 0 "with room again the next command runs"
[ -e "$mark/ran-again" ] || fail "ran-again did not run"
[ -s "$reserve" ] || fail "the reserve was not made again"
kill "$runpid" 2>/dev/null || true
