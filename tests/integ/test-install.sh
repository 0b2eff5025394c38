#!/usr/bin/env bash
# test-install.sh - `make install` as a packager and a user meet it: the GNU
# tree under DESTDIR with PREFIX, programs that run from that tree and find
# their helper (lazaret-escalate in PREFIX/libexec/lazaret, inside a real
# sandbox) and their data (--theme light from PREFIX/share/lazaret in the real
# workbench in tmux), man pages that pass `mandoc -T lint`, bash completion
# loaded the way bash-completion loads it, `make uninstall` leaving nothing.
source "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip "make not installed"
command -v mandoc >/dev/null || skip "mandoc not installed: run scripts/setup-host"

# --- the tree: make install into a staging root, the binaries of this build
S=$T/stage P=/opt/lz
timeout 300 make -C "$LZ_SRC" -s --no-print-directory install BUILD="$LZ_BUILD" \
	DESTDIR="$S" PREFIX="$P" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "make install failed"; }
want="bin/lazaret
bin/lazaret-workbench
libexec/lazaret/lazaret-escalate
libexec/lazaret/lazaret-exec
libexec/lazaret/lazaret-statx.so
libexec/lazaret/setup-host
share/bash-completion/completions/lazaret
share/bash-completion/completions/lazaret-workbench
share/lazaret/kits/claude/kit.yaml
share/lazaret/kits/codex/kit.yaml
share/lazaret/kits/shell/kit.yaml
share/lazaret/packages
share/lazaret/presets/anthropic
share/lazaret/presets/github
share/lazaret/presets/npm
share/lazaret/presets/openai
share/lazaret/presets/pypi
share/lazaret/surface.tsv
share/lazaret/themes/default.yaml
share/lazaret/themes/high-contrast.yaml
share/lazaret/themes/light.yaml
share/man/man1/lazaret-escalate.1
share/man/man1/lazaret-workbench.1
share/man/man1/lazaret.1
share/man/man5/lazaret.yaml.5"
[ -x "$LZ_BUILD/lazaret-sidecar" ] && want=$(printf '%s\nlibexec/lazaret/lazaret-sidecar' "$want" | LC_ALL=C sort)
assert_eq "$(cd "$S$P" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort)" "$want" \
	"make install DESTDIR PREFIX: the GNU tree, nothing else"
[ -z "$(find "$S" -path "$S$P" -prune -o ! -type d -print)" ] || fail "files outside DESTDIR/PREFIX"
assert_eq "$(stat -c %a "$S$P/bin/lazaret" "$S$P/libexec/lazaret/lazaret-escalate" "$S$P/share/man/man1/lazaret.1")" \
	"755
755
644" "modes: programs 755, data 644"
cmp -s "$S$P/bin/lazaret" "$LZ_BUILD/lazaret" || fail "installed lazaret is not this build's"
assert_eq "$(readlink "$S$P/share/bash-completion/completions/lazaret-workbench")" lazaret \
	"lazaret-workbench's completion is the same file"

# the test user runs the staged tree: it must be theirs to read
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$S"
I=$S$P/bin
assert_contains "$(as_user "$I/lazaret" --version)" "lazaret version " "installed lazaret runs"
assert_contains "$(as_user "$I/lazaret-workbench" --version)" "lazaret-workbench " "installed workbench runs"
if [ "$(id -u)" -eq 0 ]; then	# the fix names the installed setup-host, not a source tree's
	out=$("$I/lazaret" status 2>&1 || true)
	assert_contains "$out" "prepare the host once with 'sudo $S$P/libexec/lazaret/setup-host')" \
		"root refused, with the installed setup-host as the fix"
fi
# setup-host runs from PREFIX/libexec/lazaret with its list in PREFIX/share/lazaret
assert_eq "$(as_user "$S$P/libexec/lazaret/setup-host" --packages)" "$("$LZ_SRC/scripts/setup-host" --packages)" \
	"the installed setup-host reads the same package list"

# allow_egress presets from PREFIX/share/lazaret/presets (no source tree near $S$P)
mkdir -p "$T/pre"
printf 'profiles:\n  web:\n    image: x\n    allow_egress: ["@npm", "@pypi"]\n' >"$T/pre/c.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/pre"
out=$(as_user "$I/lazaret" config check "$T/pre/c.yaml" --profile web -w "$T/pre")
assert_contains "$out" '- "registry.npmjs.org:443"  # from @npm' "@npm found in the installed PREFIX/share/lazaret/presets"
assert_contains "$out" '- "files.pythonhosted.org:443"  # from @pypi' "@pypi too"
# kits from PREFIX/share/lazaret/kits, a user's own kit shadowing a shipped one
out=$(as_user "$I/lazaret" config check "$T/pre/c.yaml" --profile claude -w "$T/pre")
assert_contains "$out" "# kit: \"$S$P/share/lazaret/kits/claude/kit.yaml\"" "the claude kit found in PREFIX/share/lazaret/kits"
mkdir -p "$T/home/config/lazaret/kits/claude"
printf 'command: [mine]\nimage: {debian: [git]}\n' >"$T/home/config/lazaret/kits/claude/kit.yaml"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/config"
out=$(as_user "$I/lazaret" config check "$T/pre/c.yaml" --profile claude -w "$T/pre")
assert_contains "$out" "# kit: \"$T/home/config/lazaret/kits/claude/kit.yaml\"" "the user's kit shadows the shipped one"

# --- man pages: lint clean, found through MANPATH, rendered
for m in "$S$P"/share/man/man*/*; do
	out=$(timeout 30 mandoc -T lint -W warning "$m" 2>&1) || fail "mandoc -T lint $(basename "$m"): $out"
done
note "ok: mandoc -T lint -W warning: the 4 man pages are clean"
for m in lazaret lazaret-workbench lazaret-escalate lazaret.yaml; do
	assert_eq "$(MANPATH="$S$P/share/man" timeout 30 man -w "$m")" \
		"$(ls "$S$P"/share/man/man*/"$m".[15])" "man -w $m finds the installed page"
done
out=$(MANPATH="$S$P/share/man" MANWIDTH=80 timeout 30 man lazaret 2>/dev/null | col -b)
assert_contains "$out" "lazaret run -- make test" "man lazaret renders its examples"
# every command of lazaret --help has its entry in lazaret(1)
cmds=$(as_user "$I/lazaret" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1 }')
for c in $cmds; do
	grep -q "^\.Cm $c\b\|^\.It Cm $c\b" "$S$P/share/man/man1/lazaret.1" || fail "lazaret(1) lacks command $c"
done
note "ok: lazaret(1) documents every command lazaret --help lists"

# --- bash completion, loaded by bash-completion from the installed tree
two_profiles_config "$T/two.yaml"
cat >"$T/comp.sh" <<'SH'
# (run by bash -i) the completion bash-completion would load for lazaret
. /usr/share/bash-completion/bash_completion
__load_completion lazaret || { echo "no completion loaded"; exit 1; }
__load_completion lazaret-workbench
complete -p lazaret lazaret-workbench
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
	"$(complete -p "$1" | sed 's/.* -F \([^ ]*\) .*/\1/')"; echo "$*|${COMPREPLY[*]}"; }
c lazaret ""
c lazaret st
c lazaret help do
c lazaret status --
c lazaret --config "$CFG" run -p ""
c lazaret run -p ""
c lazaret run -m ""
c lazaret image ""
c lazaret config check --p
c lazaret-workbench --theme ""
c lazaret-workbench ""
SH
LZ_ENV=(XDG_DATA_DIRS="$S$P/share" CFG="$T/two.yaml" PATH="$I:/usr/bin:/bin")
comp=$(as_user bash --norc -i "$T/comp.sh" 2>/dev/null)
LZ_ENV=()
assert_contains "$comp" "complete -o filenames -F _lazaret lazaret" "bash-completion loads it from PREFIX/share/bash-completion"
assert_contains "$comp" "complete -o filenames -F _lazaret_workbench lazaret-workbench" "and lazaret-workbench's"
assert_contains "$comp" "lazaret |$(echo $cmds) help" "every command of lazaret --help, and help"
assert_contains "$comp" "lazaret st|status stop" "subcommands by prefix"
assert_contains "$comp" "lazaret help do|doctor domain" "help completes commands"
assert_contains "$comp" "lazaret status --|--help --json --profile --workspace" "a command's options"
assert_contains "$comp" "run -p |web ml-gpu" "profile names from --config FILE on the line"
assert_contains "$comp" "lazaret run -p |default" "profile names from the config in effect"
assert_contains "$comp" "lazaret run -m |isolated direct" "modes"
assert_contains "$comp" "lazaret image |build build-default ls" "image subcommands"
assert_contains "$comp" "lazaret config check --p|--profile" "config check options"
assert_contains "$comp" "lazaret-workbench --theme |default high-contrast light" "installed theme names"
assert_contains "$comp" "lazaret-workbench |attach" "workbench attach"
# every option a command's --help shows is completed, short and long
cat >"$T/opts.sh" <<'SH'
. "$1"; shift
COMP_WORDS=(lazaret "$@" -); COMP_CWORD=$(($# + 1)); _lazaret; echo "${COMPREPLY[*]}"
SH
for c in run status ls stop audit domain doctor "config check" "image build" "image build-default" "image ls"; do
	got=" $(as_user bash --norc "$T/opts.sh" "$S$P/share/bash-completion/completions/lazaret" $c) "
	for o in $(as_user "$I/lazaret" $c --help | grep -E '^(usage:| +-)' | grep -oE -- '(^|[][ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d '[], ' | sort -u); do
		case $got in *" $o "*) ;; *) fail "completion of '$c -' lacks $o: [$got]" ;; esac
	done
done
note "ok: the completion knows every option of every command's --help"

# --- run from the tree: the coordinator finds PREFIX/libexec/lazaret/lazaret-escalate
if command -v podman >/dev/null && as_user podman info >/dev/null 2>&1; then
	need_default_image
	lz_domain ws
	out=$(as_user "$I/lazaret" run -T -w "$repo" -- lazaret-escalate --version </dev/null 2>&1) ||
		fail "lazaret run from the installed tree: $out"
	assert_contains "$out" "lazaret-escalate" "the sandbox got the installed lazaret-escalate"
	# (the staged bin/ has no lazaret-escalate: only PREFIX/libexec/lazaret can serve)

	# --- the workbench's --theme light from PREFIX/share/lazaret/themes
	if [ -x "$I/lazaret-workbench" ] && command -v tmux >/dev/null; then
		TM=(timeout 10 tmux -L "lz$$" -f /dev/null)
		lz_on_exit "${TM[*]} kill-server"
		mkdir -p "$T/home/state/lazaret" && : >"$T/home/state/lazaret/tour-seen"
		[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/home/state"
		bar() { # theme: the tab bar's first line, colours included
			local n=$1; shift
			# a returning user: the first start's tour was dismissed
			LZ_ENV=(LAZARET_WORKBENCH_STATE="$T/wb-$n.tabs" XDG_STATE_HOME="$T/home/state")
			"${TM[@]}" new-session -d -s "$n" -x 80 -y 24 -c "$T" \
				"$(as_user_line "$I/lazaret-workbench" -w "$repo" "$@") 2>$T/wb-$n.err; sleep 600"
			LZ_ENV=()
			wait_for 60 sh -c "${TM[*]} capture-pane -p -t $n | grep -q '/workspace#'" ||
				{ "${TM[@]}" capture-pane -p -t "$n"; fail "no shell in the workbench ($*)"; }
			"${TM[@]}" capture-pane -pe -t "$n" -S 0 -E 0
			"${TM[@]}" send-keys -t "$n" C-a d
		}
		light=$(bar light --theme light)
		file=$(bar file --theme "$LZ_SRC/themes/light.yaml")
		dflt=$(bar dflt --theme default)
		[ ! -s "$T/wb-light.err" ] || fail "--theme light from the installed tree: $(cat "$T/wb-light.err")"
		assert_eq "$light" "$file" "--theme light is the installed light.yaml, colour for colour"
		[ "$light" != "$dflt" ] || fail "--theme light drew the default theme"
		note "ok: --theme light found in PREFIX/share/lazaret/themes"
		# a mistyped --theme: an error before the screen starts, naming the installed ones
		"${TM[@]}" new-session -d -s typo -x 80 -y 24 -c "$T" \
			"$(as_user_line "$I/lazaret-workbench" -w "$repo" --theme ligth) 2>$T/wb-typo.err; echo wb-rc=\$?; sleep 600"
		wait_for 10 sh -c "${TM[*]} capture-pane -p -t typo | grep -q 'wb-rc='" || fail "--theme ligth did not stop"
		assert_contains "$("${TM[@]}" capture-pane -p -t typo)" "wb-rc=1" "--theme ligth exits 1"
		assert_contains "$(cat "$T/wb-typo.err")" 'theme "ligth" not found; known themes: default, high-contrast, light' \
			"a mistyped theme names the installed ones"
	else
		note "no workbench or tmux: the --theme check did not run"
	fi
else
	note "rootless podman does not work here: the installed-tree sandbox checks did not run"
	[ "${LAZARET_MUST_WORK:-0}" != 1 ] || fail "LAZARET_MUST_WORK=1 and no podman"
fi

# --- uninstall: nothing of Lazaret's left
timeout 120 make -C "$LZ_SRC" -s --no-print-directory uninstall BUILD="$LZ_BUILD" \
	DESTDIR="$S" PREFIX="$P" >"$T/uninstall.log" 2>&1 || { cat "$T/uninstall.log"; fail "make uninstall failed"; }
assert_eq "$(find "$S" ! -type d)" "" "make uninstall removes every file it installed"
[ ! -e "$S$P/share/lazaret" ] && [ ! -e "$S$P/libexec/lazaret" ] || fail "Lazaret's own directories left"
note "ok: make uninstall leaves no file and no lazaret directory"
echo "install: all checks passed"
