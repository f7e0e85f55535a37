#!/usr/bin/env bash
# web.sh builds and tests the web console (web/), which `ragchat serve`
# embeds from internal/webui/dist.
#
#   scripts/web.sh build     `make web`: npm ci, graphql-codegen (web/src/gql)
#                            and vite build (internal/webui/dist)
#   scripts/web.sh check     build, then fail when web/src/gql or
#                            internal/webui/dist differ from what is
#                            committed: the committed assets must be what
#                            the committed sources build, byte for byte
#   scripts/web.sh size      the gzipped sizes of the chat, admin and
#                            GraphiQL parts of the committed build, from
#                            Vite's manifest; fails when the chat exceeds
#                            its budget of 250 KB gzipped or loads the
#                            admin part statically (web/scripts/bundle-size.js)
#   scripts/web.sh unit      the vitest unit tests
#   scripts/web.sh e2e [FILE…]  the browser tests (web/e2e, or only the
#                            given files, relative to web/) with Debian's
#                            chromium, installed with apt when missing,
#                            against real `ragchat serve` processes
#
# npm uses the machine's own registry configuration; no file names a
# registry host. Browser builds are never downloaded: playwright-core
# drives the system chromium.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'web: %s\n' "$*" >&2; }

need_npm() {
	command -v npm >/dev/null || {
		say "ERROR: npm is not installed (apt-get install nodejs npm)"
		exit 1
	}
}

deps() {
	need_npm
	(cd web && npm ci --no-audit --no-fund --loglevel=error)
}

build() {
	deps
	say "graphql-codegen and vite build"
	(cd web && npm run --silent codegen && npm run --silent build)
}

# snapshot prints "checksum  path" for every file (tracked, or untracked
# and not ignored) of the build's outputs.
snapshot() {
	git ls-files -z --cached --others --exclude-standard -- web/src/gql internal/webui/dist |
		sort -zu | while IFS= read -r -d '' f; do
		if [[ -f $f ]]; then sha256sum -- "$f"; else echo "deleted  $f"; fi
	done
}

check() {
	local before after
	before=$(mktemp)
	after=$(mktemp)
	snapshot >"$before"
	build >/dev/null
	snapshot >"$after"
	# New files (a new hashed asset) are untracked until committed: list
	# the directory as well.
	if ! cmp -s "$before" "$after" || [[ -n $(git status --porcelain -- web/src/gql internal/webui/dist) ]]; then
		say "FAIL: the committed console assets are not what 'make web' builds:"
		diff "$before" "$after" >&2 || true
		git status --porcelain -- web/src/gql internal/webui/dist >&2
		say "run 'make web' and commit web/src/gql and internal/webui/dist"
		rm -f "$before" "$after"
		exit 1
	fi
	rm -f "$before" "$after"
	say "the committed console assets are reproduced byte for byte"
}

# chromium_path prints the system chromium, installing Debian's package
# when it is missing and we may (root with apt), as pgtest.sh does for
# PostgreSQL.
chromium_path() {
	local c
	for c in chromium chromium-browser; do
		if command -v "$c" >/dev/null; then
			command -v "$c"
			return 0
		fi
	done
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		say "installing Debian's chromium for the browser tests"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
		command -v chromium
		return 0
	fi
	say "ERROR: the browser tests need chromium (apt-get install chromium)"
	return 1
}

size() {
	command -v node >/dev/null || {
		say "ERROR: node is not installed (apt-get install nodejs npm)"
		exit 1
	}
	say "bundle sizes (gzipped) of internal/webui/dist"
	node web/scripts/bundle-size.js "$@"
}

unit() {
	[[ -d web/node_modules ]] || deps
	(cd web && npx vitest run)
}

e2e() {
	[[ -d web/node_modules ]] || deps
	local chromium shots
	chromium=$(chromium_path)
	shots=${RAGCHAT_WEB_SCREENSHOTS:-$(mktemp -d "${TMPDIR:-/tmp}/ragchat-web-shots.XXXXXX")}
	say "browser tests with $chromium; screenshots in $shots"
	# Each file starts its own servers on free ports and fresh databases, so
	# files may run side by side: RAGCHAT_WEB_E2E_CONCURRENCY of them at once
	# (default 1).
	local files=("$@")
	((${#files[@]})) || files=(e2e/)
	(cd web && CHROMIUM_PATH=$chromium RAGCHAT_WEB_SCREENSHOTS=$shots \
		node --test --test-concurrency="${RAGCHAT_WEB_E2E_CONCURRENCY:-1}" --test-reporter=spec "${files[@]}")
	say "screenshots of each step: $shots"
}

case ${1:-} in
build) build ;;
check) check ;;
size)
	shift
	size "$@"
	;;
unit) unit ;;
e2e)
	shift
	e2e "$@"
	;;
*)
	echo "usage: scripts/web.sh build|check|size|unit|e2e" >&2
	exit 2
	;;
esac
