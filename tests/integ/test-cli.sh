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
assert_eq "$rc" 129 "unknown subcommand exits 129"
assert_contains "$out" "'frobnicate' is not a lazaret command" "unknown subcommand message"
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
echo "cli: all checks passed"
