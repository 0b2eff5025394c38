#!/usr/bin/env bash
# test-deb.sh - the Debian package as a user meets it: `make deb`'s package
# installed on this machine with `apt-get install ./lazaret_*.deb`, then
# lazaret --version, man -w, the bash completion as bash-completion loads it,
# a sandbox run by the installed /usr/bin/lazaret (its lazaret-escalate from
# /usr/libexec/lazaret), and a purge that leaves nothing. The machine is
# restored in a trap: the package is purged however the test ends.
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "installs a package: run as root"
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
	skip "dpkg-deb/dpkg-shlibdeps missing: run scripts/setup-host"
# one test-deb at a time on this machine (several worktrees run their suites)
exec 9>/run/lock/lazaret-test-deb.lock
timeout 900 flock 9 || fail "another test-deb held the lock for 15 minutes"
if dpkg-query -W -f='${db:Status-Status}' lazaret 2>/dev/null | grep -qvx not-installed; then
	skip "a lazaret package is already installed here; not touching it"
fi
for f in /usr/bin/lazaret /usr/bin/lazaret-workbench /usr/libexec/lazaret /usr/share/lazaret; do
	[ ! -e "$f" ] || skip "$f exists outside any package; not overwriting it"
done

version=$("$LZ_BUILD/lazaret" --version | awk '{ print $3 }')
deb=$T/lazaret_${version}_$(dpkg --print-architecture).deb
timeout 600 "$LZ_SRC/scripts/make-deb" "$LZ_BUILD" "$version" "$deb" >"$T/deb.log" 2>&1 ||
	{ cat "$T/deb.log"; fail "make-deb failed"; }
info=$(dpkg-deb -f "$deb" Package Version Depends Recommends)
assert_contains "$(dpkg-deb -c "$deb")" "./usr/libexec/lazaret/lazaret-exec" "the package has the coordinator's lazaret-exec"
assert_contains "$(dpkg-deb -c "$deb")" "./usr/libexec/lazaret/lazaret-statx.so" "the package has the statx shim"
assert_contains "$info" "Version: $version" "the package has this build's version"
# Depends: the libraries linked, and scripts/packages' run and image roles
deps=", $(dpkg-deb -f "$deb" Depends),"
for p in libuv1 libvterm0 libsqlite3-0 $(sed -n 's/^\(run\|image\):[[:space:]]*//p' "$LZ_SRC/scripts/packages"); do
	[[ $deps =~ ", $p"[\ ,] ]] || fail "Depends lacks $p: $deps"
done
note "ok: Depends has the linked libraries and every run/image package of scripts/packages"

lz_on_exit "DEBIAN_FRONTEND=noninteractive timeout 300 apt-get purge -y -o DPkg::Lock::Timeout=300 lazaret"
out=$(DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -o DPkg::Lock::Timeout=300 --no-install-recommends "$deb" </dev/null 2>&1) ||
	fail "apt-get install $deb: $out"
assert_eq "$(dpkg-query -W -f='${Version} ${db:Status-Status}' lazaret)" "$version installed" "apt-get install ./lazaret_*.deb"
assert_eq "$(/usr/bin/lazaret --version)" "lazaret version $version" "lazaret --version from /usr/bin"
assert_eq "$(command -v lazaret-workbench)" /usr/bin/lazaret-workbench "lazaret-workbench on PATH"
for m in lazaret:1 lazaret-workbench:1 lazaret-escalate:1 lazaret.yaml:5; do
	assert_eq "$(timeout 30 man -w "${m%:*}")" "/usr/share/man/man${m#*:}/${m%:*}.${m#*:}.gz" "man -w ${m%:*}"
done
MANWIDTH=80 timeout 30 man lazaret.yaml 2>/dev/null | grep -q "auto_approve" || fail "man lazaret.yaml does not render"
printf 'profiles:\n  web:\n    image: x\n    allow_egress: ["@github"]\n' >"$T/pre.yaml"
chown "$LZ_USER" "$T/pre.yaml"
assert_contains "$(as_user /usr/bin/lazaret config check "$T/pre.yaml" --profile web -w "$T")" \
	'- "codeload.github.com:443"  # from @github' "@github from the package's /usr/share/lazaret/presets"
[ -f /usr/share/bash-completion/completions/lazaret ] || fail "no bash completion installed"
comp=$(timeout 30 bash --norc -i -c '. /usr/share/bash-completion/bash_completion
	__load_completion lazaret; complete -p lazaret
	COMP_WORDS=(lazaret im); COMP_CWORD=1; _lazaret; echo "im|${COMPREPLY[*]}"' 2>/dev/null)
assert_contains "$comp" "complete -o filenames -F _lazaret lazaret" "bash-completion loads the installed completion"
assert_contains "$comp" "im|image" "and it completes"

# the installed programs at work: a sandbox, its escalation client from /usr/libexec/lazaret
if command -v podman >/dev/null && as_user podman info >/dev/null 2>&1; then
	need_default_image
	lz_domain ws
	out=$(as_user /usr/bin/lazaret run -T -w "$repo" -- lazaret-escalate --version </dev/null 2>&1) ||
		fail "lazaret run from the package: $out"
	assert_contains "$out" "lazaret-escalate" "the package's lazaret runs a sandbox with its lazaret-escalate"
	as_user /usr/bin/lazaret stop -w "$repo" >/dev/null 2>&1 || true
else
	[ "${LAZARET_MUST_WORK:-0}" != 1 ] || fail "LAZARET_MUST_WORK=1 and no podman"
	note "rootless podman does not work here: the sandbox check did not run"
fi

out=$(DEBIAN_FRONTEND=noninteractive timeout 300 apt-get purge -y -o DPkg::Lock::Timeout=300 lazaret 2>&1) ||
	fail "apt-get purge lazaret: $out"
st=$(dpkg-query -W -f='${db:Status-Status}' lazaret 2>/dev/null || true)
[ -z "$st" ] || [ "$st" = not-installed ] || fail "after the purge the package is '$st'"
note "ok: purged: dpkg no longer knows the package"
for f in /usr/bin/lazaret /usr/bin/lazaret-workbench /usr/libexec/lazaret /usr/share/lazaret \
	/usr/share/man/man1/lazaret.1.gz /usr/share/bash-completion/completions/lazaret /usr/share/doc/lazaret; do
	[ ! -e "$f" ] || fail "$f left after the purge"
done
note "ok: the purge leaves no file of the package"
echo "deb: all checks passed"
