#!/usr/bin/env bash
# test-cli.sh - the lazaret command line as a user meets it: help, version,
# usage errors like git's, config check and domain on real files.
source "$(dirname "$0")/lib.sh"

out=$(lz --help); assert_contains "$out" "usage: lazaret" "--help prints usage"
assert_contains "$out" "domain" "--help lists commands"
out=$(lz --version); assert_contains "$out" "lazaret version " "--version"

set +e
out=$(lz frobnicate 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "unknown subcommand exits 1 (git)"
assert_contains "$out" "'frobnicate' is not a lazaret command" "unknown subcommand message"
assert_not_contains "$out" "most similar" "nothing close to frobnicate: no suggestion"
# git's "did you mean": a swap, a missing letter, a prefix; hidden commands never
set +e
out=$(lz stauts 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "mistyped subcommand exits 1"
assert_eq "$out" "lazaret: 'stauts' is not a lazaret command. See 'lazaret --help'.

The most similar command is
	status" "did you mean status"
out=$(lz st 2>&1 || true)
assert_contains "$out" "The most similar commands are
	status
	stop" "a prefix of two commands names both"
out=$(lz coordinatr 2>&1 || true)
assert_not_contains "$out" "most similar" "a hidden command is never suggested"
out=$(lz config chek 2>&1 || true)
assert_contains "$out" "The most similar command is
	check" "did you mean for config's subcommand"

# lazaret help CMD is lazaret CMD --help, byte for byte, for every command
for c in run status ls stop audit image doctor config domain; do
	assert_eq "$(lz help $c)" "$(lz $c --help)" "lazaret help $c = lazaret $c --help"
done
assert_eq "$(lz help)" "$(lz --help)" "lazaret help = lazaret --help"
set +e
out=$(lz help frobnicate 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "help for an unknown command exits 1"
if [ "$(id -u)" -eq 0 ]; then	# help needs no rights: root gets it too
	out=$("$T/bin/lazaret" help run); assert_contains "$out" "usage: lazaret run" "help as root"
	out=$("$T/bin/lazaret" ls --help); assert_contains "$out" "usage: lazaret ls" "--help as root"
	set +e; "$T/bin/lazaret" ls >/dev/null 2>&1; rc=$?; set -e
	assert_eq "$rc" 1 "but the command itself still refuses root"
	set +e; out=$("$T/bin/lazaret" run sh -h 2>&1); rc=$?; set -e
	assert_eq "$rc" 1 "run CMD -h as root: -h is CMD's, root is refused"
	assert_contains "$out" "refusing to run as root" "and says why"
	set +e; "$T/bin/lazaret" coordinator --help >/dev/null 2>&1; rc=$?; set -e
	assert_eq "$rc" 1 "a hidden command gets no help as root"
fi
set +e
out=$(lz --bogus 2>&1); rc=$?
set -e
assert_eq "$rc" 129 "unknown global option exits 129"
assert_contains "$out" "unknown option: --bogus" "unknown option named"
set +e
out=$(lz domain --nope 2>&1); rc=$?
set -e
assert_eq "$rc" 129 "unknown subcommand option exits 129"
assert_contains "$out" "usage: lazaret domain" "subcommand usage shown"

# domain: the hash is sha256("<profile>:<canonical workspace>")[:12]
mkdir -p "$T/ws dir"; ln -s "$T/ws dir" "$T/wslink"
[ "$(id -u)" -ne 0 ] || chown -R "$LZ_USER" "$T/ws dir"
canon=$(realpath "$T/ws dir")
want=$(printf '%s' "default:$canon" | sha256sum | cut -c1-12)
out=$(lz domain --workspace "$T/ws dir"); assert_contains "$out" "domain_hash:       $want" "domain hash matches sha256sum"
out=$(lz domain --workspace "$T/wslink"); assert_contains "$out" "$want" "symlinked workspace, same domain"
out=$(cd "$T" && lz domain --workspace "./ws dir/../ws dir"); assert_contains "$out" "$want" "relative and .. workspace, same domain"
out=$(lz domain --workspace "$T/ws dir" --json)
assert_contains "$out" "\"domain_hash\":\"$want\"" "--json output"
assert_contains "$out" "\"container\":\"lazaret-default-$want\"" "container name derived"
echo "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "--json is not valid JSON"

# config check: the embedded default when no file exists
out=$(lz config check); assert_contains "$out" "valid" "embedded default is valid"
assert_contains "$out" "localhost/lazaret-default" "embedded default profile image"

# a bad config: error names file, line and key; exit 1; nothing created on disk
cat > "$T/bad.yaml" <<'YAML'
data_root: /tmp/lz-should-not-exist-$$
profiles:
  web:
    image: [not, a, string]
YAML
set +e
out=$(lz --config "$T/bad.yaml" config check --profile web 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "invalid config exits 1"
assert_contains "$out" "$T/bad.yaml:4: profiles.web.image" "error names file, line and key"
[ ! -e "/tmp/lz-should-not-exist-\$\$" ] || fail "invalid config created data_root"

cat > "$T/inj.yaml" <<'YAML'
profiles:
  "a;rm -rf ~":
    image: x
YAML
set +e
out=$(lz config check "$T/inj.yaml" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "profile name with shell metacharacters refused"
assert_contains "$out" "inj.yaml:2" "injection error names the line"
# options after operands (git, podman): FILE first, then --profile
set +e
out=$(lz config check "$T/bad.yaml" --profile web 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "config check FILE --profile P: parsed, the file is invalid"
assert_contains "$out" "$T/bad.yaml:4: profiles.web.image" "the option after FILE was taken"
two_profiles_config "$T/two.yaml"
out=$(lz config check "$T/two.yaml" --profile ml-gpu -w "$T/ws dir")
assert_contains "$out" "valid" "config check FILE --profile P -w DIR"
assert_contains "$out" "ml-gpu" "resolved for the profile given after FILE"
out=$(lz domain --workspace "$T/ws dir" --json); out2=$(lz domain --json --workspace "$T/ws dir")
assert_eq "$out" "$out2" "options in any order"
set +e
out=$(lz config check -- --profile 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "after --, --profile is the FILE operand"
assert_contains "$out" "--profile" "the error names the file '--profile'"

# presets and the profile's grants file (grants/P.list next to the config):
# expanded and merged, each marked with where it came from; a grants file
# Lazaret did not write (mode, MAC) is refused and left out, an unknown
# preset is an error naming file and line
mkdir -p "$T/pg"
cat > "$T/pg/c.yaml" <<'YAML'
profiles:
  claude:
    image: localhost/lazaret-default:latest
    allow_egress: ["@anthropic", "@npm", "pypi.org:443"]
YAML
chown -R "$LZ_USER" "$T/pg"
lz --config "$T/pg/c.yaml" debug grant claude api.github.com:443
out=$(lz config check "$T/pg/c.yaml" --profile claude -w "$T/ws dir")
assert_contains "$out" '- "api.anthropic.com:443"  # from @anthropic' "@anthropic expanded from PREFIX/share/lazaret/presets"
assert_contains "$out" '- "registry.npmjs.org:443"  # from @npm' "@npm expanded"
assert_contains "$out" '- "pypi.org:443"
      - "api.github.com:443"  # from grants/claude.list' "the grants file merged after the YAML's entries, marked"
assert_contains "$out" "network: sidecar" "presets and grants give the profile the sidecar"
assert_contains "$(tail -1 "$T/pg/grants/claude.list")" "# lazaret-mac: " "the grants file ends with its MAC line"
chmod 0620 "$T/pg/grants/claude.list"
set +e; out=$(lz config check "$T/pg/c.yaml" --profile claude -w "$T/ws dir" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "a grants file writable by others is refused"
assert_contains "$out" "claude.list: security: writable by group or others; refused" "says why"
assert_not_contains "$out" '"api.github.com:443"' "its grants are left out"
chmod 0600 "$T/pg/grants/claude.list"
as_user sed -i 's/^api.github.com:443$/api.github.com:443\n10.0.0.0\/8/' "$T/pg/grants/claude.list"
set +e; out=$(lz config check "$T/pg/c.yaml" --profile claude -w "$T/ws dir" 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "a grants file edited outside Lazaret is refused"
assert_contains "$out" "claude.list: security: not written by your Lazaret (its MAC does not match" "says why"
assert_not_contains "$out" '"10.0.0.0/8"' "the edited entry is left out"
sed -i 's/@npm/@nmp/' "$T/pg/c.yaml"
set +e; out=$(lz config check "$T/pg/c.yaml" --profile claude 2>&1); rc=$?; set -e
assert_eq "$rc" 1 "an unknown preset fails the config"
assert_contains "$out" "$T/pg/c.yaml:4: profiles.claude.allow_egress[1]: unknown preset '@nmp'; did you mean @npm?" "names file, line, key and the near preset"

# the profile names, for bash completion (hidden)
assert_eq "$(lz --config "$T/two.yaml" config profiles)" "web
ml-gpu" "config profiles lists the file's profiles in order"
assert_eq "$(lz config profiles)" "default" "the embedded default's profile"
set +e; out=$(lz --config "$T/bad.yaml" config profiles 2>&1); rc=$?; set -e
assert_eq "$rc:$out" "1:" "a broken config: no profiles, no noise"

# ls with no domain: the header alone, or an empty JSON array (a socket
# directory of its own: other tests' domains live in the shared one)
printf 'escalation:\n  socket_dir: %s\nprofiles:\n  default:\n    image: x\n' "$T/sock" > "$T/ls.yaml"
lz() { as_user lazaret --config "$T/ls.yaml" "$@"; }
out=$(lz ls)
assert_eq "$out" "DOMAIN  PROFILE  STATE  SESSIONS  UPTIME  MEM  CPU  FLOWS  BLOCKED  PENDING  UNREVIEWED  WORKSPACE" "ls header, aligned"
assert_eq "$(lz ls --json)" "[]" "ls --json with no domain"
as_user mkdir -m 0700 "$T/sock"
assert_eq "$(lz ls --json)" "[]" "ls --json with an empty socket directory"
echo "cli: all checks passed"
