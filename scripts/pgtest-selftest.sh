#!/usr/bin/env bash
# pgtest-selftest.sh checks how scripts/pgtest.sh finds the machine's own
# Debian archive (`pgtest.sh apt-source`), against fixture apt directories:
# the deb822 .sources format, the one-line sources.list format, disabled and
# deb-src-only entries, and a release that no source serves. It uses made-up
# example hosts, never a real mirror.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME RELEASE WANT: runs apt-source on $etc and compares its output.
check() {
	local name=$1 release=$2 want=$3 got rc=0
	got=$(PGTEST_APT_ETC=$etc PGTEST_RELEASE=$release scripts/pgtest.sh apt-source 2>/dev/null) || rc=$?
	[[ $rc -ne 0 ]] && got="<exit $rc>"
	if [[ $got != "$want" ]]; then
		printf 'pgtest-selftest: FAIL %s: got %q, want %q\n' "$name" "$got" "$want" >&2
		fail=1
	fi
}

etc=$tmp/oneline
mkdir -p "$etc/sources.list.d"
cat >"$etc/sources.list" <<'LIST'
# a comment
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/k/one.gpg] http://one.example/debian bookworm main contrib
deb http://two.example/debian/ bookworm-updates main
LIST
check "one-line with options" bookworm "http://one.example/debian /k/one.gpg"
check "one-line without keyring" bookworm-updates "http://two.example/debian -"
check "one-line, no such release" trixie "<exit 1>"

etc=$tmp/deb822
mkdir -p "$etc/sources.list.d"
cat >"$etc/sources.list.d/a.sources" <<'SOURCES'
Types: deb
URIs: http://sec.example/debian-security
Suites: bookworm-security
Signed-By: /k/sec.gpg

Types: deb
URIs: http://off.example/debian
Suites: bookworm
Enabled: no

Types: deb-src
URIs: http://srconly.example/debian
Suites: bookworm

Types: deb deb-src
# a comment
URIs: http://main.example/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /k/main.gpg
SOURCES
check "deb822 skips disabled and deb-src-only stanzas" bookworm "http://main.example/debian /k/main.gpg"
check "deb822 security suite" bookworm-security "http://sec.example/debian-security /k/sec.gpg"
check "deb822, no such release" trixie "<exit 1>"

etc=$tmp/empty
mkdir -p "$etc/sources.list.d"
check "no sources at all" bookworm "<exit 1>"

if ((fail)); then
	exit 1
fi
printf 'pgtest-selftest: ok (apt-source finds the archive from deb822 and one-line sources)\n' >&2
