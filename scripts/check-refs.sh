#!/usr/bin/env bash
# check-refs.sh fails on dead references for newcomers:
#   - a repository path named in a comment or document (resolvers/sourceauth.go,
#     docs/ENGINE.md, scripts/pgtest.sh, ...) that does not exist;
#   - a citation of the source articles ("seed 000 §12") instead of the
#     docs/ENGINE.md design basis (Dn) that holds their substance;
#   - a `make TARGET` that the Makefile does not define.
# Generated code (ent/, graph/) and lock files are skipped.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'check-refs: %s\n' "$*" >&2; }

mapfile -t files < <(git ls-files -- '*.go' '*.md' '*.sh' '*.yml' '*.yaml' '*.graphqls' '*.js' '*.ts' '*.tsx' 'Makefile' |
	grep -v -E '^(ent/[^s]|ent/schema/.*_test|graph/)' | grep -v -E '(^|/)node_modules/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)

bad=0

# 1. Repository paths: words that start with a top-level directory of the
#    repository (or name a root file) and end in a known extension.
tops=$(git ls-files | cut -d/ -f1 | sort -u | grep -v -E '^\.' | paste -sd'|')
while IFS=: read -r file line ref; do
	ref=${ref%%#*}
	[[ -e $ref ]] && continue
	# Globs and templates (ent/*_create.go, {name}.resolvers.go) are patterns.
	[[ $ref == *'*'* || $ref == *'{'* || $ref == *'…'* ]] && continue
	say "$file:$line names $ref, which does not exist"
	bad=1
done < <(grep -n -o -E "(^|[^A-Za-z0-9_./-])(${tops})/[A-Za-z0-9_./*{}-]+\.(go|md|sh|graphqls|yml|yaml|js|json|sql|tmpl)(#[A-Za-z0-9_-]+)?" "${files[@]}" 2>/dev/null |
	sed -E 's/^([^:]+):([0-9]+):[^A-Za-z0-9]?/\1:\2:/')

# 2. Citations of the source articles.
if out=$(grep -n -i -E "seeds? ?[0-9]{3}|seed [0-9]+ §|§ ?[0-9]+(\.[0-9]+)?" "${files[@]}" | grep -v -E '^scripts/check-refs\.sh:'); then
	say "cite docs/ENGINE.md (Dn) instead of the source articles:"
	printf '%s\n' "$out" >&2
	bad=1
fi

# 3. make targets named in documents and comments.
targets=$(grep -o -E '^[a-z][a-z-]*:' Makefile | tr -d : | sort -u)
while IFS=: read -r file line target; do
	target=${target#make }
	grep -qx -- "$target" <<<"$targets" && continue
	say "$file:$line runs 'make $target', which the Makefile does not define"
	bad=1
done < <(grep -n -o -E '`make [a-z][a-z-]*' "${files[@]}" | sed -E 's/`//')

if ((bad)); then
	say "FAILED"
	exit 1
fi
say "ok: ${#files[@]} files, no dead references"
