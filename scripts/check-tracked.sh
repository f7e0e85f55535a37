#!/usr/bin/env bash
# check-tracked.sh fails when git tracks a build artifact: an ELF binary
# (what `go build` writes here) or any file over 2 MiB. Built binaries
# belong in bin/ or a temporary directory, which .gitignore covers.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bad=0
large=$(git ls-files -z | xargs -0 -r stat -c '%s %n' -- 2>/dev/null | awk '$1 > 2 * 1024 * 1024 { print }')
if [[ -n $large ]]; then
	printf 'check-tracked: files over 2 MiB do not belong in the repository:\n%s\n' "$large" >&2
	bad=1
fi
# An ELF file starts with \x7fELF, which grep sees at the start of a line.
if elf=$(git ls-files -z | LC_ALL=C xargs -0 -r grep -l -a -m 1 $'^\x7fELF' -- 2>/dev/null); then
	printf 'check-tracked: executable binaries (build artifacts) are tracked:\n%s\n' "$elf" >&2
	bad=1
fi
if ((bad)); then
	exit 1
fi
printf 'check-tracked: ok\n' >&2
