#!/usr/bin/env bash
# check-generate.sh runs `go generate ./...` (the ordered steps of the root
# generate.go) and fails, listing the files, when generated code was stale:
# a file under ent/, graph/, resolvers/ or another gqlgen output path (or
# gqlgen.yml itself, which entgql rewrites) changed, appeared or
# disappeared. It also fails on a go:generate directive outside the root
# generate.go.
#
# It compares checksums of tracked and untracked (not ignored) files taken
# before and after generation, so it works in a dirty working tree as well
# as in a clean CI clone. It does not undo the regeneration.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# watched_paths prints the paths generation may write: the fixed ones and
# every filename/dir named in gqlgen.yml (exec, model, resolver, federation).
watched_paths() {
	printf '%s\n' ent graph resolvers gqlgen.yml
	if [[ -f gqlgen.yml ]]; then
		sed -n -E 's/^[[:space:]]+(filename|dir):[[:space:]]*"?([^"#[:space:]]+)"?.*$/\2/p' gqlgen.yml
	fi
}

# snapshot prints "checksum  path" for every existing tracked or untracked
# file under the watched paths, sorted by path.
snapshot() {
	local paths=()
	mapfile -t paths < <(watched_paths | sort -u)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard -- "${paths[@]}"
	else
		local existing=()
		local p
		for p in "${paths[@]}"; do [[ -e $p ]] && existing+=("$p"); done
		((${#existing[@]} == 0)) || find "${existing[@]}" -type f -print0
	fi | sort -zu | while IFS= read -r -d '' f; do
		# Tracked files deleted from the work tree are listed by git too.
		if [[ -f $f ]]; then sha256sum -- "$f"; else echo "deleted  $f"; fi
	done
}

# Every go:generate step lives in the root generate.go, in order (ent
# first, then gqlgen); a directive elsewhere would run in whatever order
# `go generate ./...` visits packages.
stray=$(git grep -l -E '^//go:generate' -- '*.go' ':!generate.go' 2>/dev/null || true)
if [[ -n $stray ]]; then
	echo "check-generate: FAIL: go:generate directives outside the root generate.go:"
	printf '  %s\n' $stray
	exit 1
fi

before=$(mktemp)
after=$(mktemp)
log=$(mktemp)
trap 'rm -f "$before" "$after" "$log"' EXIT

snapshot >"$before"
printf 'check-generate: go generate ./... ... '
start=$SECONDS
if ! go generate ./... >"$log" 2>&1; then
	echo "FAILED"
	cat "$log"
	exit 1
fi
echo "ok ($((SECONDS - start))s)"
snapshot >"$after"

if ! cmp -s "$before" "$after"; then
	echo "check-generate: FAIL: generated code is out of date; these files changed after 'go generate ./...':"
	awk '
		$1 == "deleted" { next }
		{ path = substr($0, index($0, "  ") + 2) }
		FILENAME == ARGV[1] { old[path] = $1; next }
		{ new[path] = $1 }
		END {
			for (p in new) {
				if (!(p in old)) print "  added:   " p
				else if (old[p] != new[p]) print "  changed: " p
			}
			for (p in old) if (!(p in new)) print "  removed: " p
		}' "$before" "$after" | sort -k2
	echo "Run 'make generate' and commit the result."
	exit 1
fi
# gqlgen writes a panicking stub for every resolver it cannot bind; none
# may be committed.
if stubs=$(grep -rn 'panic(fmt.Errorf("not implemented' resolvers/); then
	echo "check-generate: unimplemented resolver stubs:" >&2
	echo "$stubs" >&2
	exit 1
fi
echo "check-generate: generated code is up to date"
