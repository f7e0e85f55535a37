#!/usr/bin/env bash
# check-hosts.sh fails when a tracked file names a package registry or mirror
# host. The hosts are not listed here (that would name them): they are read
# from this machine's own configuration, the same places the scripts take
# them from:
#   - apt: the URIs of every configured source (scripts/pgtest.sh apt-source
#     reads the same files), from apt-get indextargets and /etc/apt;
#   - Go: GOPROXY and GOSUMDB (go env);
#   - npm: the configured registry (npm config get registry).
# A file may still name an example host, localhost, or a service a user
# configures (a model endpoint, an identity provider).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'check-hosts: %s\n' "$*" >&2; }

# host_of prints the host part of each URL-ish word on stdin.
host_of() {
	sed -E -n 's#^[a-z+]+://([^/:@ ]*@)?([^/: ]+).*#\2#p; t; s#^([A-Za-z0-9.-]+\.[A-Za-z]{2,})(/.*)?$#\1#p'
}

configured_hosts() {
	{
		if command -v apt-get >/dev/null; then
			apt-get indextargets --format '$(REPO_URI)' 2>/dev/null || true
		fi
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n -E 's/^URIs:[[:space:]]*//p' | tr ' \t' '\n\n'
		if [[ -f /etc/apt/sources.list ]]; then
			grep -E '^[[:space:]]*deb' /etc/apt/sources.list | grep -oE '[a-z+]+://[^ ]+' || true
		fi
		if command -v go >/dev/null; then
			go env GOPROXY | tr ',|' '\n\n'
			go env GOSUMDB | tr ' ' '\n' | head -n 1
		fi
		if command -v npm >/dev/null; then
			npm config get registry 2>/dev/null || true
		fi
	} | grep -v -E '^(|off|direct|none|undefined)$' | host_of | sort -u
}

mapfile -t hosts < <(configured_hosts)
if ((${#hosts[@]} == 0)); then
	say "no registry or mirror configured on this machine; nothing to check"
	exit 0
fi

found=0
for h in "${hosts[@]}"; do
	# Word-bounded, case-insensitive; go.sum and lock files hold module and
	# package names, not hosts, but are checked too.
	if out=$(git ls-files -z | xargs -0 grep -n -I -i -F -w -- "$h" 2>/dev/null); then
		say "a tracked file names the configured registry/mirror host '$h':"
		printf '%s\n' "$out" | head -n 20 >&2
		found=1
	fi
done
if ((found)); then
	say "FAILED: read hosts from the machine's configuration instead (see scripts/pgtest.sh apt_source_of_release)"
	exit 1
fi
say "ok: no tracked file names any of ${#hosts[@]} configured registry/mirror hosts"
