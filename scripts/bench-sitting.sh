#!/usr/bin/env bash
# bench-sitting.sh runs one benchmark sitting as docs/BENCHMARKS.md
# ("Method") asks: several builds of ragchat, alternated (A B C, then
# C B A, ...), each run on a fresh PostgreSQL cluster, with the load
# average recorded before and after each run, and a run that starts above
# the quiet threshold marked DISCARD.
#
#   scripts/bench-sitting.sh [-n REPEATS] [-o OUTDIR] LABEL=BINDIR... [-- BENCH FLAGS]
#
# Each BINDIR holds a `ragchat` binary and, from cmd/ragchat-bench on, the
# `ragchat-bench` built from the same commit; without one the harness is
# `ragchat bench` (the subcommand it was before). BENCH FLAGS go to the
# harness after --database-url and --out (default: --only
# floor,ws,ttft,wire,throughput,stmts,context --concurrency 1,50 --rounds
# 10). Results: OUTDIR/NN-LABEL.md (the report), .log (its stderr) and
# OUTDIR/status.tsv (label, start, end, load before and after, exit status,
# verdict).
#
# Environment:
#   QUIET_LOAD   the 1-minute load average a run must start under (1.5)
#   QUIET_WAIT   seconds to wait for it before starting anyway (600)
#   PGSTAT=1     load pg_stat_statements, with track_planning, in each cluster (for
#                ragchat-bench --profile-dir)
#   SQLITE=1     no cluster: the harness's default, a temporary SQLite
#                database (the embedded default of `make run`)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

repeats=2
outdir=
while getopts n:o: opt; do
	case $opt in
	n) repeats=$OPTARG ;;
	o) outdir=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
builds=()
while (($#)) && [[ $1 != -- ]]; do
	builds+=("$1")
	shift
done
[[ ${1:-} == -- ]] && shift
flags=("$@")
((${#flags[@]})) || flags=(--only floor,ws,ttft,wire,throughput,stmts,context --concurrency 1,50 --rounds 10)
((${#builds[@]})) || {
	echo "usage: scripts/bench-sitting.sh [-n REPEATS] [-o OUTDIR] LABEL=BINDIR... [-- BENCH FLAGS]" >&2
	exit 2
}
outdir=${outdir:-$(mktemp -d /tmp/bench-sitting-XXXX)}
mkdir -p "$outdir"
quiet=${QUIET_LOAD:-1.5}
wait_max=${QUIET_WAIT:-600}
load1() { cut -d' ' -f1 /proc/loadavg; }
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

printf 'label\tstart\tend\tload before\tload after\texit\tverdict\n' >"$outdir/status.tsv"
n=0
for ((r = 1; r <= repeats; r++)); do
	order=("${builds[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[i]}"); done
	fi
	for b in "${order[@]}"; do
		label=${b%%=*} dir=${b#*=}
		n=$((n + 1))
		waited=0
		while above "$(load1)" "$quiet" && ((waited < wait_max)); do
			sleep 10
			waited=$((waited + 10))
		done
		data=$(mktemp -d /tmp/bench-sitting-pg-XXXX)
		db=()
		if [[ ${SQLITE:-} != 1 ]]; then
			conf=
			[[ ${PGSTAT:-} == 1 ]] && conf=$'shared_preload_libraries = \'pg_stat_statements\'\npg_stat_statements.track_planning = on'
			url=$(PGTEST_CONF=$conf scripts/pgtest.sh start "$data" 2>/dev/null)
			psql -X -q "$url" -c 'CREATE DATABASE bench' >/dev/null
			db=(--database-url "${url/\/postgres\?/\/bench?}")
		fi
		base=$outdir/$(printf %02d "$n")-$label
		before=$(load1) start=$(date -u +%T)
		rc=0
		if [[ -x $dir/ragchat-bench ]]; then
			"$dir/ragchat-bench" --server-bin "$dir/ragchat" "${db[@]}" --out "$base.md" "${flags[@]}" >/dev/null 2>"$base.log" || rc=$?
		else
			"$dir/ragchat" bench "${db[@]}" --out "$base.md" "${flags[@]}" >/dev/null 2>"$base.log" || rc=$?
		fi
		after=$(load1) end=$(date -u +%T)
		if [[ ${SQLITE:-} != 1 ]]; then
			scripts/pgtest.sh stop "$data" >/dev/null 2>&1 || true
		fi
		rm -rf "$data"
		verdict=ok
		above "$before" "$quiet" && verdict=DISCARD
		((rc == 0)) || verdict=FAILED
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$start" "$end" "$before" "$after" "$rc" "$verdict" | tee -a "$outdir/status.tsv"
	done
done
echo "bench-sitting: reports and status.tsv in $outdir"
