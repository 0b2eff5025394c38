#!/usr/bin/env bash
# test-run-stream.sh - a big output stream through `lazaret run` (real podman
# + runsc): every byte arrives, in order, through pipes and through a
# terminal (where the coordinator reads its PTY in big pieces and holds the
# screen's feed back); a client that stops reading stops the sandbox's
# output instead of growing the coordinator; the screen a workbench gets on
# attach after a burst is the burst's end, scrollback included.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-wb.sh"
need_stack
need_default_image
lz_domain stream
N=700000	# lines of seq: 4.9 MB
want=$(seq 1 $N | sha256sum | cut -d' ' -f1)
want_crlf=$(seq 1 $N | sed 's/$/\r/' | sha256sum | cut -d' ' -f1)

# --- pipes: stdout as the program wrote it
got=$(as_user lazaret run -T -w "$repo" -- seq 1 $N | sha256sum | cut -d' ' -f1)
assert_eq "$got" "$want" "seq through pipes: every byte, in order"

# --- a terminal: the PTY's bytes (CR LF) as they were written, to a file
"${TM[@]}" new-session -d -s wb -x 80 -y 22 -c "$T" \
	"$(as_user_line lazaret run -w "$repo" -- seq 1 $N) >$T/tty.out; echo run-rc=\$?; sleep 600"
wait_for 120 pane_has "run-rc=" || show_fail "lazaret run on a terminal did not end"
assert_contains "$(pane)" "run-rc=0" "lazaret run on a terminal exits 0"
assert_eq "$(sha256sum <"$T/tty.out" | cut -d' ' -f1)" "$want_crlf" "seq through a terminal: every byte, in order"
"${TM[@]}" kill-session -t wb

# --- a client that stops reading: the sandbox's output stops, the
# coordinator does not grow (its queue to the client stays bounded)
"${TM[@]}" new-session -d -s wb -x 80 -y 22 -c "$T" \
	"$(as_user_line lazaret run -w "$repo" -- sh -c "yes 'a flood line of seventy-odd characters, again and again and again'"); echo run-rc=\$?; sleep 600"
wait_for 60 pane_has "again and again" || show_fail "no flood"
cpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= |
	awk -v m="coordinator --profile default --workspace $canon --mode" 'index($0, m) { print $1; exit }')
clpid=$(timeout 10 ps -u "$LZ_USER" -o pid=,args= | awk -v m="lazaret run -w $repo -- sh" 'index($0, m) { print $1; exit }')
[ -n "$cpid" ] && [ -n "$clpid" ] || fail "no coordinator ($cpid) or client ($clpid)"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$cpid/status"; }
kill -STOP "$clpid"
lz_on_exit "kill -CONT $clpid"
sleep 1	# the queues fill
r1=$(rss)
sleep 4	# a flood of ~20 MB/s would add ~80 MB here if nothing held it back
r2=$(rss)
note "coordinator RSS with a stopped client: $r1 kB, 4 s later $r2 kB"
[ $((r2 - r1)) -lt 8192 ] || fail "the coordinator grew by $((r2 - r1)) kB in 4 s with a stopped client"
# runuser, its parent, stopped itself when it saw the client stop
kill -CONT "$clpid" "$(ps -o ppid= -p "$clpid")"
"${TM[@]}" send-keys -t wb C-c
wait_for 20 pane_has "run-rc=130" || show_fail "^C did not end the flood"
note "ok: a stopped client holds the flood back; ^C ends it once the client runs again"
"${TM[@]}" kill-session -t wb

# --- attach after a burst: the workbench gets the burst's end, and the
# scrollback before it, in order
"${TM[@]}" new-session -d -s wb -x 80 -y 24 -c "$T" "$(wb_line -w "$repo")"
wait_for 60 pane_has "/workspace#" || show_fail "no workbench prompt"
"${TM[@]}" send-keys -t wb "seq -f 'S%gS' 1 300000; echo SNAP-\$((6*7))" Enter
wait_for 120 pane_has "SNAP-42" || show_fail "the burst did not end"
wb_reattach C-a 80 24
wait_for 30 pane_has "SNAP-42" || show_fail "attach did not bring the screen back"
tail_rows=$(pane | grep -E '^S[0-9]+S *$' | sed 's/ *$//' | tail -3 | tr '\n' ' ')
assert_eq "$tail_rows" "S299998S S299999S S300000S " "the attached screen ends with the burst's last lines"
"${TM[@]}" send-keys -t wb C-a '['
wait_for 5 pane_has "SCROLL" || show_fail "prefix [ did not enter scrollback mode"
"${TM[@]}" send-keys -t wb /
"${TM[@]}" send-keys -t wb -l S299700S
"${TM[@]}" send-keys -t wb Enter
wait_for 5 sh -c "${TM[*]} capture-pane -p -t wb | sed -n 2,3p | tr -d ' ' | tr '\n' ' ' | grep -qx 'S299700S S299701S '" ||
	show_fail "the scrollback the snapshot brought is not the burst's, in order"
note "ok: attach after a burst shows its end and the scrollback before it"
"${TM[@]}" send-keys -t wb q
"${TM[@]}" send-keys -t wb C-a x y
wait_for 20 pane_has "wb-rc=0" || show_fail "closing the tab did not end the workbench"
