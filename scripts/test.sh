#!/usr/bin/env bash
# test.sh is `make test`: every check and test of the project.
#
#   1. scripts/check-hosts.sh      no tracked file names a registry/mirror host
#      scripts/check-tracked.sh    no build artifact (binary, huge file) tracked
#      scripts/check-refs.sh       no dead path, make target or article citation
#      scripts/pgtest-selftest.sh  pgtest.sh finds the machine's own apt source
#      scripts/check-generate.sh   generated code (ent, gqlgen) is up to date
#      scripts/web.sh check        `make web` reproduces the committed console
#      scripts/web.sh size         the chat's JavaScript is within its budget
#   2. go vet ./...
#      (then, before the Go tests: buildah, skopeo, podman and runc for
#      TestImage, which builds `make image` and runs it)
#   3. a PostgreSQL 15 + pgvector server: RAGCHAT_TEST_DATABASE_URL when set,
#      otherwise a throwaway cluster (scripts/pgtest.sh ensure + start) that
#      is always stopped at the end, also on failure or Ctrl-C
#   4. make migration's tool on an unchanged schema writes nothing
#      go test -race -count=1 -timeout 30m -json ./... with the backend
#      suites on PostgreSQL, then the same suites on SQLite without -race
#      (go_tests), each pass summarized by internal/tools/testsummary, which
#      also fails the run when no test ran on the pass's backend
#   5. and 6. run beside step 4 (side_tests), their log printed after it:
#      clients/node: npm ci && npm test, when clients/node/package.json exists;
#      clients/ts (@ragchat/client): npm ci, graphql-codegen (src/gql must
#      be what is committed), the type check, the vite build, then vitest
#      (its merge tests and one test against a real `ragchat serve`)
#   6. the web console: vitest unit tests, then the browser tests with
#      Debian's chromium against real `ragchat serve` processes
#      (scripts/web.sh unit, e2e); the static checks already checked that
#      `make web` reproduces the committed assets (scripts/web.sh check)
#
# The static checks run first so that they fail fast, before any install.
# Environment:
#   RAGCHAT_TEST_DATABASE_URL  use this server instead of a throwaway cluster
#   RAGCHAT_TEST_JSON          where to keep the raw `go test -json` output
#   GOTESTFLAGS                extra flags for go test (e.g. -run TestPrivacy)
#   GOTESTP                    test binaries run at once (go test -p; default
#                              twice the CPUs, at least 4)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'test: %s\n' "$*" >&2; }

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
GOTESTP=${GOTESTP:-$((cpus * 2 > 4 ? cpus * 2 : 4))}

static_checks() {
	local t0=$SECONDS
	scripts/check-hosts.sh
	scripts/check-tracked.sh
	scripts/check-refs.sh
	scripts/pgtest-selftest.sh
	scripts/check-generate.sh
	scripts/web.sh check
	scripts/web.sh size
	say "go vet ./..."
	go vet ./...
	say "static checks: $((SECONDS - t0)) s"
}

# ensure_cgo makes sure the race detector can build: -race needs cgo, and
# the go command disables cgo when it finds no C compiler.
ensure_cgo() {
	[[ $(go env CGO_ENABLED) == 1 ]] && return 0
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		say "installing a C compiler for go test -race"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null
	fi
	[[ $(go env CGO_ENABLED) == 1 ]] || {
		say "ERROR: go test -race needs cgo and a C compiler (gcc); install gcc or set CC"
		exit 1
	}
}

# ensure_image_tools installs what TestImage (cmd/ragchat/image_test.go)
# builds and runs the container image with: buildah, skopeo, podman, and
# runc (crun refuses hybrid cgroup hierarchies; the test picks runc).
ensure_image_tools() {
	local missing=()
	for tool in buildah skopeo podman runc; do
		command -v "$tool" >/dev/null || missing+=("$tool")
	done
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		say "installing ${missing[*]} for the container image test"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
			say "WARNING: could not install ${missing[*]}; TestImage will skip what needs them"
	else
		say "WARNING: ${missing[*]} not installed; TestImage will skip what needs them"
	fi
}

# go_tests runs the Go tests in two passes. The first runs every test under
# the race detector, with the backend suites on PostgreSQL only; the second
# runs the same suites (testsummary -suites lists them) on SQLite without
# the race detector, which slows the SQLite driver's translated C about
# sixteen times (docs/TESTING.md). Each pass is summarized on its own and
# must run at least one test on its backend.
go_tests() {
	local tmp summary json rc=0 codes pkgs run t0
	tmp=$(mktemp -d)
	summary=$tmp/testsummary
	json=${RAGCHAT_TEST_JSON:-${TMPDIR:-/tmp}/ragchat-go-test.json}
	go build -o "$summary" ./internal/tools/testsummary || {
		say "ERROR: cannot build internal/tools/testsummary"
		return 1
	}
	# -p: test binaries running at once. The longest packages (internal/chat,
	# internal/server, cmd/ragchat) mostly wait on servers, databases and
	# timers (about 0.6 of a core each), so more of them than cores keeps
	# the cores busy (docs/TESTING.md). -vet=off: the static checks ran
	# go vet ./..., whose checks include the ones go test would run again.
	say "go test -race -count=1 -p $GOTESTP -timeout 30m ./..., backend suites on PostgreSQL (raw JSON: $json)"
	t0=$SECONDS
	set +e
	# shellcheck disable=SC2086 # GOTESTFLAGS is a list of flags
	RAGCHAT_TEST_BACKENDS=postgres go test -race -vet=off -count=1 -p "$GOTESTP" -timeout 30m -json ${GOTESTFLAGS:-} ./... 2>&1 |
		tee "$json" | "$summary" -backends postgres -suites "$tmp/suites"
	codes=("${PIPESTATUS[@]}")
	set -e
	say "Go tests on PostgreSQL: $((SECONDS - t0)) s"
	check_pass "${codes[@]}" || rc=1
	if [[ ! -s $tmp/suites ]]; then
		say "ERROR: no backend suite ran on PostgreSQL, so none can run on SQLite"
		rm -rf "$tmp"
		return 1
	fi
	mapfile -t pkgs < <(cut -d' ' -f1 "$tmp/suites" | sort -u)
	run="^($(cut -d' ' -f2 "$tmp/suites" | sort -u | paste -sd'|'))\$"
	say "go test -count=1 -p $GOTESTP of the $(wc -l <"$tmp/suites") backend suites on SQLite, without -race (raw JSON: $json.sqlite)"
	t0=$SECONDS
	set +e
	# shellcheck disable=SC2086 # GOTESTFLAGS is a list of flags
	RAGCHAT_TEST_BACKENDS=sqlite go test -vet=off -count=1 -p "$GOTESTP" -timeout 30m -json ${GOTESTFLAGS:-} -run "$run" "${pkgs[@]}" 2>&1 |
		tee "$json.sqlite" | "$summary" -backends sqlite
	codes=("${PIPESTATUS[@]}")
	set -e
	say "Go tests on SQLite: $((SECONDS - t0)) s"
	check_pass "${codes[@]}" || rc=1
	rm -rf "$tmp"
	return "$rc"
}

# check_pass fails when go test (the first status of the pipeline) or the
# summary (the third) failed.
check_pass() {
	local rc=0
	if (($1 != 0)); then
		say "go test exited with status $1"
		rc=1
	fi
	if (($3 != 0)); then
		rc=1
	fi
	return "$rc"
}

# node_tests runs the Node client's tests when that client exists. They get
# RAGCHAT_TEST_DATABASE_URL and, when set, RAGCHAT_TEST_SERVER_URL.
node_tests() {
	[[ -f clients/node/package.json ]] || return 0
	command -v npm >/dev/null || {
		say "ERROR: clients/node exists but npm is not installed"
		return 1
	}
	say "clients/node: npm ci && npm test"
	(cd clients/node && npm ci --no-audit --no-fund && npm test)
}

# ts_client_tests builds and tests the TypeScript client package when it
# exists; its generated operation types must be what is committed.
ts_client_tests() {
	[[ -f clients/ts/package.json ]] || return 0
	command -v npm >/dev/null || {
		say "ERROR: clients/ts exists but npm is not installed"
		return 1
	}
	say "clients/ts: npm ci, codegen, typecheck, build, vitest"
	(cd clients/ts && npm ci --no-audit --no-fund --loglevel=error && npm run --silent codegen >/dev/null) || return 1
	if [[ -n $(git status --porcelain -- clients/ts/src/gql) ]]; then
		say "ERROR: clients/ts/src/gql is not what graphql-codegen generates; run npm run codegen in clients/ts and commit it"
		git status --porcelain -- clients/ts/src/gql >&2
		return 1
	fi
	(cd clients/ts && npm run --silent typecheck && npm run --silent build >/dev/null && npx vitest run)
}

# web_tests runs the console's unit tests and its browser tests; they get
# RAGCHAT_TEST_DATABASE_URL, so the servers they start use PostgreSQL.
web_tests() {
	say "web: vitest, then the browser tests"
	scripts/web.sh unit && scripts/web.sh e2e
}

# side_tests runs the JavaScript clients' tests and, beside them, the
# console's. They all run beside the Go tests: they mostly wait on servers
# and a browser, so they share the machine's cores instead of taking turns.
side_tests() {
	local rc=0 t0=$SECONDS web_log web_pid
	web_log=$(mktemp)
	web_tests >"$web_log" 2>&1 &
	web_pid=$!
	node_tests || rc=1
	ts_client_tests || rc=1
	say "clients: $((SECONDS - t0)) s"
	wait "$web_pid" || rc=1
	cat "$web_log"
	rm -f "$web_log"
	say "clients and console: $((SECONDS - t0)) s"
	return "$rc"
}

# migration_check runs `make migration`'s tool with an unchanged schema: it
# must work and write nothing (TestMigrationsMatchSchema checks the reverse:
# that migrations/ reaches the Ent schema).
migration_check() {
	say "make migration (unchanged schema writes nothing)"
	local before after
	before=$(find migrations -type f | sort)
	go run ./internal/tools/migrationdiff -name make_test_check -dir migrations || return 1
	after=$(find migrations -type f | sort)
	if [[ $before != "$after" ]]; then
		say "ERROR: the Ent schema changed without a migration; run make migration NAME=..."
		diff <(echo "$before") <(echo "$after") >&2 || true
		return 1
	fi
}

# build_test_binaries builds ragchat and the commands the tests start
# (fake model, NATS server, OpenID issuer, ragchat-bench) once, into
# RAGCHAT_TEST_BIN_DIR: the Go tests (internal/testbin) and the JavaScript
# ones (clients/node/lib/gobin.js) use them instead of linking a copy per
# test process, which took about 5 s of CPU each time.
build_test_binaries() {
	RAGCHAT_TEST_BIN_DIR=$(mktemp -d)
	export RAGCHAT_TEST_BIN_DIR
	trap 'rm -rf "$RAGCHAT_TEST_BIN_DIR"' EXIT
	say "go build the commands the tests start, into $RAGCHAT_TEST_BIN_DIR"
	go build -o "$RAGCHAT_TEST_BIN_DIR/" ./cmd/ragchat ./cmd/ragchat-bench \
		./internal/tools/fakemodel ./internal/tools/natsserver ./internal/tools/oidcissuer
}

# db_tests runs the tests that need the database; pgtest.sh run provides it.
db_tests() {
	[[ -n ${RAGCHAT_TEST_DATABASE_URL:-} ]] || {
		say "ERROR: RAGCHAT_TEST_DATABASE_URL is not set"
		exit 1
	}
	ensure_cgo
	ensure_image_tools
	local rc=0 side_log side_pid
	migration_check || rc=1
	build_test_binaries || return 1
	side_log=$(mktemp)
	say "the clients and the console run beside the Go tests; their log ($side_log) follows the Go summary"
	side_tests >"$side_log" 2>&1 &
	side_pid=$!
	go_tests || rc=1
	say "waiting for the clients and the console"
	wait "$side_pid" || rc=1
	cat "$side_log"
	rm -f "$side_log"
	if ((rc != 0)); then
		say "FAILED"
	else
		say "all tests passed"
	fi
	return "$rc"
}

case ${1:-all} in
all)
	static_checks
	exec scripts/pgtest.sh run "$0" db-tests
	;;
db-tests) db_tests ;;
*)
	echo "usage: scripts/test.sh [all|db-tests]" >&2
	exit 2
	;;
esac
