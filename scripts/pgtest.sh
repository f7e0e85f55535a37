#!/usr/bin/env bash
# pgtest.sh manages throwaway PostgreSQL 15 + pgvector clusters for tests.
#
# Usage:
#   scripts/pgtest.sh ensure          install PostgreSQL 15 and pgvector if missing
#   scripts/pgtest.sh start DIR       init and start a cluster in DIR, print its URL
#   scripts/pgtest.sh stop DIR        fast-stop the cluster in DIR and remove DIR
#   scripts/pgtest.sh apt-source      print "URI KEYRING" of the machine's own apt
#                                     source for its release (where pgvector's
#                                     source package is fetched from)
#   scripts/pgtest.sh run CMD [ARG..] run CMD with RAGCHAT_TEST_DATABASE_URL set,
#                                     starting (and always stopping) a cluster
#                                     when the variable is not already set
#
# Status lines go to stderr, one per step; command output goes to a log file
# that is printed when a step fails. `start` prints only the URL on stdout.
#
# Environment:
#   PGTEST_PG_BINDIR        PostgreSQL 15 bin directory (default: Debian's)
#   PGTEST_CONF             extra postgresql.conf lines for `start` (e.g.
#                           shared_preload_libraries for benchmarks)
#   PGTEST_DEBIAN_MIRROR    archive URI for the pgvector source (default: the
#                           URI of the machine's own apt source for its release)
#   PGTEST_DEBIAN_KEYRING   keyring that signs that archive (default: that
#                           source's Signed-By, else Debian's archive keyring)
#   PGTEST_PGVECTOR_SUITE   Debian suite holding the pgvector source (trixie)
#   PGTEST_LOG              log file for `ensure` (default under $TMPDIR)
#   PGTEST_APT_ETC, PGTEST_RELEASE  read apt sources from another directory
#                           and for another release (tests of apt-source)
set -euo pipefail

readonly PG_MAJOR=15
readonly DEFAULT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
readonly PGVECTOR_SUITE=${PGTEST_PGVECTOR_SUITE:-trixie}
# MARKER marks a directory as one this script created, so `stop` never
# removes anything else.
readonly MARKER=.ragchat-pgtest

LOG=/dev/null

# status prints a one-line message on stderr.
status() { printf 'pgtest: %s\n' "$*" >&2; }

# die prints an error (and the log, when there is one) and exits.
die() {
	printf 'pgtest: ERROR: %s\n' "$*" >&2
	dump_log
	exit 1
}

dump_log() {
	if [[ -s $LOG ]]; then
		printf -- '---- %s (last 200 lines) ----\n' "$LOG" >&2
		tail -n 200 "$LOG" >&2
		printf -- '---- end of log ----\n' >&2
	fi
}

now_ms() { date +%s%3N; }

# step DESCRIPTION CMD [ARG...] runs CMD with its output in $LOG and prints
# one status line with the elapsed time; on failure it prints the log and exits.
step() {
	local desc=$1 start rc=0
	shift
	start=$(now_ms)
	printf '\n==== %s: %s\n' "$desc" "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1 </dev/null || rc=$?
	local ms=$(($(now_ms) - start))
	if ((rc != 0)); then
		printf 'pgtest: %s ... FAILED (exit %d)\n' "$desc" "$rc" >&2
		dump_log
		exit "$rc"
	fi
	printf 'pgtest: %s ... ok (%d.%01ds)\n' "$desc" $((ms / 1000)) $((ms % 1000 / 100)) >&2
}

is_root() { [[ $(id -u) -eq 0 ]]; }

# pg_bindir prints the directory holding initdb/pg_ctl of PostgreSQL 15.
pg_bindir() {
	if [[ -n ${PGTEST_PG_BINDIR:-} ]]; then
		echo "$PGTEST_PG_BINDIR"
	elif [[ -x /usr/lib/postgresql/$PG_MAJOR/bin/initdb ]]; then
		echo "/usr/lib/postgresql/$PG_MAJOR/bin"
	elif command -v initdb >/dev/null; then
		dirname "$(command -v initdb)"
	else
		echo "/usr/lib/postgresql/$PG_MAJOR/bin"
	fi
}

have_postgres() {
	local bin
	bin=$(pg_bindir)
	[[ -x $bin/initdb && -x $bin/pg_ctl && -x $bin/postgres ]] &&
		[[ $("$bin/postgres" --version) == *" $PG_MAJOR."* ]]
}

pg_config_bin() { echo "$(pg_bindir)/pg_config"; }

have_pgvector() {
	local pgc
	pgc=$(pg_config_bin)
	[[ -x $pgc ]] || return 1
	[[ -f $("$pgc" --sharedir)/extension/vector.control && -f $("$pgc" --pkglibdir)/vector.so ]]
}

have_server_dev() {
	local pgc
	pgc=$(pg_config_bin)
	[[ -x $pgc && -f $("$pgc" --pgxs) && -f $("$pgc" --includedir-server)/postgres.h ]]
}

have_build_tools() { command -v make >/dev/null && command -v gcc >/dev/null; }

# release_codename prints the machine's Debian release (bookworm).
release_codename() {
	(
		# shellcheck disable=SC1091 # the machine's own file
		. /etc/os-release && echo "${VERSION_CODENAME:-}"
	)
}

# apt_source_of_release prints "URI KEYRING" of the machine's own apt source
# for its release suite, so that the pgvector source comes from whatever
# archive (mirror or proxy) this machine already uses. It asks apt first
# (apt-get indextargets), then reads deb822 .sources files and the one-line
# sources.list format. KEYRING is "-" when the source names none.
apt_source_of_release() {
	local codename uri= entry= file line= keyring=- etc=${PGTEST_APT_ETC:-/etc/apt}
	codename=${PGTEST_RELEASE:-$(release_codename)}
	[[ -n $codename ]] || return 1
	# 1. apt's own view: the Packages target of the release suite (skipped
	#    when PGTEST_APT_ETC points the parsers at another directory).
	[[ $etc == /etc/apt ]] && entry=$(apt-get indextargets --format '$(REPO_URI) $(SOURCESENTRY)' \
		"Release: $codename" "Identifier: Packages" 2>/dev/null | head -n 1) || true
	uri=${entry%% *}
	# 2. deb822 files: the first stanza whose Suites include the codename.
	if [[ -z $uri ]]; then
		for file in "$etc"/sources.list.d/*.sources; do
			[[ -f $file ]] || continue
			line=$(awk -v suite="$codename" '
				BEGIN { RS = ""; FS = "\n" }
				{
					uris = ""; suites = ""; signed = "-"; types = ""; enabled = "yes"
					for (i = 1; i <= NF; i++) {
						if ($i ~ /^#/) continue
						if ($i ~ /^URIs:/) { v = $i; sub(/^URIs:[ \t]*/, "", v); uris = v }
						else if ($i ~ /^Suites:/) { v = $i; sub(/^Suites:[ \t]*/, "", v); suites = " " v " " }
						else if ($i ~ /^Types:/) { v = $i; sub(/^Types:[ \t]*/, "", v); types = " " v " " }
						else if ($i ~ /^Enabled:/) { v = $i; sub(/^Enabled:[ \t]*/, "", v); enabled = v }
						else if ($i ~ /^Signed-By:[ \t]*\//) { v = $i; sub(/^Signed-By:[ \t]*/, "", v); signed = v }
					}
					if (enabled != "no" && types ~ / deb / && index(suites, " " suite " ") > 0 && uris != "") {
						split(uris, u, /[ \t]+/); print u[1], signed; exit
					}
				}' "$file")
			[[ -n $line ]] && break
		done
		uri=${line%% *}
		keyring=${line#* }
	else
		# The keyring of the entry apt reported (file:line).
		file=${entry#* }
		file=${file%:*}
		if [[ -f $file && $file == *.sources ]]; then
			keyring=$(awk -v uri="${uri%/}" '
				BEGIN { RS = ""; FS = "\n" }
				{
					hit = 0; signed = ""
					for (i = 1; i <= NF; i++) {
						if ($i ~ /^URIs:/) {
							v = $i; sub(/^URIs:[ \t]*/, "", v); n = split(v, u, /[ \t]+/)
							for (j = 1; j <= n; j++) { w = u[j]; sub(/\/$/, "", w); if (w == uri) hit = 1 }
						}
						if ($i ~ /^Signed-By:[ \t]*\//) { v = $i; sub(/^Signed-By:[ \t]*/, "", v); signed = v }
					}
					if (hit && signed != "") { print signed; exit }
				}' "$file")
		fi
	fi
	# 3. the one-line format: deb [options] URI SUITE COMPONENTS...
	if [[ -z $uri && -f $etc/sources.list ]]; then
		line=$(awk -v suite="$codename" '
			$1 == "deb" {
				signed = "-"; i = 2
				if ($2 ~ /^\[/) {
					for (; i <= NF; i++) {
						if ($i ~ /signed-by=/) { v = $i; sub(/.*signed-by=/, "", v); sub(/\]$/, "", v); signed = v }
						if ($i ~ /\]$/) { i++; break }
					}
				}
				if ($(i + 1) == suite) { print $i, signed; exit }
			}' "$etc/sources.list")
		uri=${line%% *}
		keyring=${line#* }
	fi
	[[ -n $uri ]] || return 1
	echo "${uri%/} ${keyring:--}"
}

apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends "$@"
}

# apt_src runs apt-get against a private state directory ($1) whose only
# source is the deb-src line for the pgvector suite, leaving the system's own
# package lists and caches untouched.
apt_src() {
	local state=$1
	shift
	apt-get \
		-o Dir::Etc::sourcelist="$state/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$state/lists" \
		-o Dir::Cache="$state/cache" \
		-o Dir::Etc::preferencesparts=- \
		-o APT::Sandbox::User=root \
		-o Acquire::Languages=none \
		"$@"
}

download_source() {
	local work=$1
	(cd "$work" && apt_src "$work/apt" source --download-only pgvector)
}

unpack_orig() {
	local work=$1 tarball
	tarball=$(find "$work" -maxdepth 1 -name 'pgvector_*.orig.tar.*' | head -n 1)
	[[ -n $tarball ]] || {
		echo "no pgvector orig tarball downloaded" >&2
		return 1
	}
	mkdir -p "$work/src"
	tar -xf "$tarball" -C "$work/src" --strip-components=1
}

build_pgvector() {
	local src=$1 pgc
	pgc=$(pg_config_bin)
	# with_llvm=no skips the JIT bitcode (clang) step, which tests do not need.
	make -C "$src" -j"$(nproc)" PG_CONFIG="$pgc" with_llvm=no
}

install_pgvector() {
	make -C "$1" install PG_CONFIG="$(pg_config_bin)" with_llvm=no
}

cmd_ensure() {
	if have_postgres && have_pgvector; then
		status "PostgreSQL $PG_MAJOR + pgvector present ($(pg_bindir))"
		return 0
	fi
	LOG=${PGTEST_LOG:-${TMPDIR:-/tmp}/ragchat-pgtest-ensure-$(id -u).log}
	: >"$LOG"
	local pkgs=()
	have_postgres || pkgs+=("postgresql-$PG_MAJOR")
	if ! have_pgvector; then
		have_server_dev || pkgs+=("postgresql-server-dev-$PG_MAJOR")
		have_build_tools || pkgs+=(make gcc libc6-dev)
	fi
	if ! is_root; then
		die "PostgreSQL $PG_MAJOR with pgvector is not installed ($(pg_bindir)) and installing it needs root. Run 'sudo scripts/pgtest.sh ensure', or set RAGCHAT_TEST_DATABASE_URL to a PostgreSQL $PG_MAJOR server that has pgvector."
	fi
	status "log: $LOG"
	if ((${#pkgs[@]} > 0)); then
		step "apt-get update" apt-get update
		step "apt-get install ${pkgs[*]}" apt_install "${pkgs[@]}"
	fi
	have_postgres || die "postgresql-$PG_MAJOR installed but no initdb in $(pg_bindir)"
	if have_pgvector; then
		return 0
	fi

	local work
	work=$(mktemp -d "${TMPDIR:-/tmp}/ragchat-pgvector.XXXXXX")
	# shellcheck disable=SC2064 # expand $work now
	trap "rm -rf '$work'" EXIT
	mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
	local archive=${PGTEST_DEBIAN_MIRROR:-} keyring=${PGTEST_DEBIAN_KEYRING:-} found
	if [[ -z $archive ]]; then
		found=$(apt_source_of_release) ||
			die "cannot find this machine's apt source for $(release_codename) (in apt-get indextargets, /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list); set PGTEST_DEBIAN_MIRROR to a Debian archive URI"
		archive=${found%% *}
		[[ -n $keyring ]] || keyring=${found#* }
	fi
	[[ -n $keyring && $keyring != - ]] || keyring=$DEFAULT_KEYRING
	status "pgvector source: the $PGVECTOR_SUITE suite of $archive (keyring $keyring)"
	printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "$archive" "$PGVECTOR_SUITE" \
		>"$work/apt/sources.list"
	step "fetch $PGVECTOR_SUITE source index (private apt state)" apt_src "$work/apt" update
	step "download pgvector source" download_source "$work"
	step "unpack pgvector" unpack_orig "$work"
	step "build pgvector ($(sed -n 's/^EXTVERSION = //p' "$work/src/Makefile"))" build_pgvector "$work/src"
	step "install pgvector" install_pgvector "$work/src"
	have_pgvector || die "pgvector installed but vector.control/vector.so not found via $(pg_config_bin)"
}

# as_owner runs a command as the cluster owner: the postgres user when this
# script runs as root (initdb refuses root), the current user otherwise.
as_owner() {
	if is_root; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
	local port i
	for i in $(seq 1 50); do
		port=$((20000 + RANDOM % 30000))
		port_in_use "$port" || {
			echo "$port"
			return 0
		}
	done
	return 1
}

write_conf() {
	local data=$1 sock=$2
	cat >>"$data/postgresql.conf" <<EOF

# ---- ragchat test settings (scripts/pgtest.sh): fast, not durable ----
# The port is passed by pg_ctl -o so that a start can retry another port.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
max_connections = 600
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 1GB
checkpoint_timeout = 30min
log_min_messages = warning
log_min_error_statement = panic
EOF
	if [[ -n ${PGTEST_CONF:-} ]]; then
		printf '%s\n' "$PGTEST_CONF" >>"$data/postgresql.conf"
	fi
}

cmd_start() {
	local dir=${1:?usage: pgtest.sh start DIR}
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	LOG=$dir/pgtest.log
	[[ -e $dir/data ]] && die "$dir/data already exists; stop that cluster first"
	have_postgres || die "PostgreSQL $PG_MAJOR binaries not found in $(pg_bindir); run scripts/pgtest.sh ensure"
	have_pgvector || die "pgvector is not installed for $(pg_config_bin); run scripts/pgtest.sh ensure"
	local sock=$dir/sock
	((${#sock} < 100)) || die "socket directory path too long for a unix socket: $sock"
	touch "$dir/$MARKER"
	mkdir -p "$sock"
	if is_root; then
		id postgres >/dev/null 2>&1 || die "user 'postgres' does not exist (initdb refuses root)"
		chown -R postgres: "$dir"
		runuser -u postgres -- test -w "$dir" || die "user postgres cannot write $dir (check parent directory permissions)"
	fi
	chmod 700 "$dir"
	: >"$LOG"
	[[ -w $LOG ]] || die "cannot write $LOG"
	if is_root; then chown postgres: "$LOG"; fi

	local bin
	bin=$(pg_bindir)
	step "initdb $dir/data" as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-locale --no-sync
	write_conf "$dir/data" "$sock"
	local port attempt start_ms
	start_ms=$(now_ms)
	for attempt in 1 2 3 4 5; do
		port=$(pick_port) || die "no free TCP port found on 127.0.0.1"
		if as_owner "$bin/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -o "-p $port" -w -t 60 -s >>"$LOG" 2>&1 </dev/null; then
			break
		fi
		# Lost a race for the port (or another failure): retry with a fresh port.
		printf 'pg_ctl start failed on port %s (attempt %d); server log:\n' "$port" "$attempt" >>"$LOG"
		cat "$dir/server.log" >>"$LOG" 2>/dev/null || true
		port=
	done
	[[ -n $port ]] || die "PostgreSQL did not start (see $dir/server.log)"
	local ms=$(($(now_ms) - start_ms))
	status "started PostgreSQL on 127.0.0.1:$port in $((ms / 1000)).$((ms % 1000 / 100))s (data $dir/data)"
	step "create extension vector in template1" \
		"$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d template1 \
		-c 'CREATE EXTENSION IF NOT EXISTS vector' \
		-c "SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector AS cosine_distance"
	echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

cmd_stop() {
	local dir=${1:?usage: pgtest.sh stop DIR}
	[[ -d $dir ]] || {
		status "nothing to stop in $dir"
		return 0
	}
	[[ -e $dir/$MARKER ]] || die "$dir was not created by pgtest.sh start; refusing to remove it"
	LOG=$dir/pgtest.log
	if [[ -f $dir/data/postmaster.pid ]]; then
		as_owner "$(pg_bindir)/pg_ctl" stop -D "$dir/data" -m fast -w -t 60 -s >>"$LOG" 2>&1 </dev/null ||
			status "pg_ctl stop failed (server already gone?); removing $dir anyway"
	fi
	rm -rf "$dir"
	status "stopped and removed $dir"
}

cmd_run() {
	(($# > 0)) || die "usage: pgtest.sh run CMD [ARG...]"
	if [[ -n ${RAGCHAT_TEST_DATABASE_URL:-} ]]; then
		status "using RAGCHAT_TEST_DATABASE_URL from the environment"
		"$@"
		return
	fi
	local self dir rc=0
	self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
	"$self" ensure
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ragchat-pg.XXXXXX")
	# Always stop the cluster, also on failure and on Ctrl-C.
	# shellcheck disable=SC2064 # expand $self and $dir now
	trap "'$self' stop '$dir'" EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	RAGCHAT_TEST_DATABASE_URL=$("$self" start "$dir")
	export RAGCHAT_TEST_DATABASE_URL
	"$@" || rc=$?
	return "$rc"
}

main() {
	local cmd=${1:-}
	shift || true
	case $cmd in
	ensure) cmd_ensure "$@" ;;
	apt-source) apt_source_of_release ;;
	start) cmd_start "$@" ;;
	stop) cmd_stop "$@" ;;
	run) cmd_run "$@" ;;
	*)
		sed -n '2,20s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
		exit 2
		;;
	esac
}

main "$@"
