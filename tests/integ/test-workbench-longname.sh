#!/usr/bin/env bash
# test-workbench-longname.sh - long names show who receives them (issue 24
# item 5): tmux, real podman + runsc, the real sidecar holding a DNS query
# for a 238-character name under evil.test. At 160 and at 80 columns, the
# Egress list's request, the Audit list's line, the status line's message
# and the request view each keep the name's start and its registrable
# domain: the middle goes, never the end. The query never leaves the
# router's namespace (the name is outside the policy).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
[ -x "$T/bin/lazaret-sidecar" ] || fail "no lazaret-sidecar in $LZ_BUILD: run make"

lz_domain lname
lz_config <<YAML
network: {ask_timeout: 120}
profiles:
  default:
    image: localhost/lazaret-default:latest
    network: sidecar      # no allow_egress: every name asks
YAML
side=lazaret-net-$hash
lz_on_exit "as_user podman rm -f -t0 $side"

# 238 characters in labels of at most 63: api.github.com, a's, evil.test
name=api.github.com
while [ $(( ${#name} + 51 )) -le $(( 238 - 10 )) ]; do name+=.$(printf 'a%.0s' $(seq 50)); done
pad=$(( 238 - 10 - ${#name} - 1 ))
name+=.$(printf 'b%.0s' $(seq $pad)).evil.test
[ ${#name} -eq 238 ] || fail "the test's name is ${#name} characters, not 238"

row() { pane | grep -F -- "$1" | head -1; }
check_rows() { # cols
	local r
	wait_for 10 pane_has "? dns A api.github" || show_fail "$1 columns: no request in the Egress list"
	r=$(row "? dns A api.github")
	assert_contains "$r" "evil.test" "$1 columns: the Egress list's request ends with its domain"
	r=$(pane | grep -E '(egress|network) .*dns A' | head -1)	# its middle may go too
	[ -n "$r" ] || show_fail "$1 columns: no line in the Audit list"
	assert_contains "$r" "evil.test" "$1 columns: the Audit list's line ends with its domain"
}

"${TM[@]}" new-session -d -s wb -x 160 -y 50 -c "$T" "$(wb_line -w "$repo")"
wait_for 90 pane_has "/workspace#" || show_fail "no shell prompt"
type_line "clear; timeout 100 bash -c 'exec 3<>/dev/tcp/$name/443'; echo q-rc=\$?"
wait_for 10 pane_has "? dns A api.github.com" || show_fail "no request for the long name"
check_rows 160

# the request view: the destination line keeps its end too
"${TM[@]}" send-keys -t wb C-a Tab
wait_for 5 pane_has "PANEL" || show_fail "prefix Tab did not focus the panel"
"${TM[@]}" send-keys -t wb Enter
wait_for 5 pane_has "Network request" || show_fail "Enter opened no view"
r=$(row "Destination:")
assert_contains "$r" "api.github.com" "160 columns: the view's destination starts with the name's start"
assert_contains "$r" "evil.test" "160 columns: the view's destination ends with its domain"

"${TM[@]}" resize-window -t wb -x 80 -y 40
wait_for 5 sh -c "[ \$($(printf '%q ' "${TM[@]}") display -p -t wb '#{window_width}') = 80 ]" || fail "tmux did not resize"
wait_for 5 sh -c "$(printf '%q ' "${TM[@]}") capture-pane -p -t wb | grep -F 'Destination:' | grep -qF 'evil.test'" ||
	show_fail "80 columns: the view's destination lost its domain"
note "ok: 80 columns: the view's destination ends with its domain"
wait_for 5 pane_has "Esc: later" || show_fail "the view did not arm"
"${TM[@]}" send-keys -t wb Escape
wait_for 5 pane_lacks "Network request" || show_fail "Esc did not close the view"
# narrow, the panel goes over the tab when asked for
pane_has "? dns A api.github" || "${TM[@]}" send-keys -t wb C-a s
check_rows 80

"${TM[@]}" send-keys -t wb C-a d
wait_for 10 pane_has "wb-rc=0" || show_fail "the workbench did not detach"
note "all ok"
