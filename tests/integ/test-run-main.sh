#!/usr/bin/env bash
# test-run-main.sh - `make run` as root, the README's main command, as a user
# meets it (scripts/run-main in a private tmux server): it installs Lazaret
# (make install, here PREFIX in the test's directory), opens the workbench
# as the unprivileged user on the demo workspace, and on detach prints how to
# come back; the printed command, typed as is, brings the tab back.
# The host is already prepared (LAZARET_SKIP_SETUP=1: setup-host is not rerun
# under other tests); the user's real environment is used, as make run does.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "make run installs as root: run as root"
[ -x "$T/bin/lazaret-workbench" ] || skip "no lazaret-workbench built"
command -v tmux >/dev/null || skip "tmux not installed"
need_stack
need_default_image
state=$LZ_RUNDIR/lazaret/workbench.tabs
[ ! -e "$state" ] || skip "$LZ_USER has detached workbench tabs ($state); not touching them"

P=$T/prefix demo=$T/demo
TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
lz_on_exit "${TM[*]} kill-server"
pane() { "${TM[@]}" capture-pane -p -t "$1"; }
pane_has() { pane "$1" | grep -qF -- "$2"; }
# the demo domain lives in the user's real data directory: removed at the end
lz_on_exit "rm -f '$state'"
lz_on_exit "runuser -u $LZ_USER -- rm -rf $LZ_HOME/.local/share/lazaret/domains/\$(printf '%s' default:$demo | sha256sum | cut -c1-12)"
lz_on_exit "as_user '$P/bin/lazaret' stop -w '$demo'"

"${TM[@]}" new-session -d -s rm -x 100 -y 30 -c "$LZ_SRC" \
	"PREFIX=$P LAZARET_DEMO=$demo LAZARET_USER=$LZ_USER LAZARET_SKIP_SETUP=1 LAZARET_BUILD=$LZ_BUILD scripts/run-main; echo rm-rc=\$?; sleep 600"
# a new user's first start shows the tour (one that dismissed it before, not):
# q closes it, as its last line says
seen() { pane_has rm "/workspace#" || pane_has rm "Welcome to lazaret-workbench"; }
wait_for 120 seen || { pane rm; fail "make run as root: no shell and no tour in the workbench"; }
if pane_has rm "Welcome to lazaret-workbench"; then
	"${TM[@]}" send-keys -t rm q
fi
wait_for 30 pane_has rm "/workspace#" || { pane rm; fail "make run as root: no shell in the workbench"; }
assert_contains "$(pane rm | head -1)" "0:default demo running" "the workbench runs on the demo workspace"
for f in bin/lazaret bin/lazaret-workbench libexec/lazaret/lazaret-escalate share/lazaret/themes/light.yaml \
	share/man/man1/lazaret.1; do
	[ -e "$P/$f" ] || fail "make run did not install $f"
done
assert_eq "$(stat -c %U "$demo")" "$LZ_USER" "the demo workspace is the user's"
note "ok: make run installed Lazaret in PREFIX and runs as $LZ_USER"

"${TM[@]}" send-keys -t rm C-a d
wait_for 30 pane_has rm "rm-rc=0" || { pane rm; fail "no clean exit after the detach"; }
out=$(pane rm)
assert_contains "$out" "Come back with:
  sudo -iu $LZ_USER $P/bin/lazaret-workbench attach" "it ends with how to come back"
come=$(printf '%s\n' "$out" | grep -oE "su - $LZ_USER -c '[^']+'" || true)
command -v sudo >/dev/null && come="sudo -iu $LZ_USER $P/bin/lazaret-workbench attach"
[ -n "$come" ] || fail "no come-back command for a machine without sudo"

# typed as printed: the tab comes back with its shell
"${TM[@]}" new-session -d -s back -x 100 -y 30 "$come; echo back-rc=\$?; sleep 600"
wait_for 30 pane_has back "0:default demo" || { pane back; fail "'$come' did not bring the tab back"; }
"${TM[@]}" send-keys -t back 'echo back-$((6*7))' Enter
wait_for 10 pane_has back "back-42" || { pane back; fail "the restored tab's shell does not answer"; }
note "ok: '$come' brings the tab back"
"${TM[@]}" send-keys -t back C-a x y
wait_for 30 pane_has back "back-rc=" || { pane back; fail "closing the last tab did not end the workbench"; }
echo "run-main: all checks passed"
