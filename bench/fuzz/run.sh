#!/usr/bin/env bash
# Runs every libFuzzer target for long, one at a time, each under the shared CPU lock
# (/tmp/kp-cpu.lock) held only while that target runs. Goal: FUZZ_RUNS executions per target
# (10 million) with no crash. Prints one key=value line per target (executions, execs/s, peak
# RSS, crashes) and exits 1 if any target crashed; crashing inputs land in $OUT/<target>/.
#
#   bench/fuzz/run.sh                      # every target, 10 million executions each
#   FUZZ_SECONDS=60 bench/fuzz/run.sh      # at most 60 s per target instead
#   bench/fuzz/run.sh gotemplate quantity  # only these targets
#   RESUME=1 bench/fuzz/run.sh gotemplate  # carry on from where the last run of it stopped
#
# RESUME=1 keeps each target's working corpus and a count of the executions already made
# ($OUT/<target>/executions), runs only what is left to the goal and prints the sum, so a long
# campaign can be stopped (SIGINT) and taken up again. Crashing inputs found by any run stay in
# $OUT/<target>/artifacts and count as crashes until removed.
#
# ASan runs with malloc_context_size=0 (no allocation stack recorded per malloc) and a 16 MB
# quarantine unless ASAN_OPTIONS says otherwise: 1.5x the executions per second on the YAML
# parsers, which allocate per token. A use after free within one input is still caught; replay a
# crashing input with the defaults for its allocation and free stacks.
#
# The targets come from a clang build with KP_FUZZ=ON in $BUILD (default build-fuzz), configured
# and built here when it is missing (clang-14 comes from `scripts/setup.sh --fuzz`). The committed
# corpus (test/fuzz/corpus/<target>) is copied first, so what a run discovers stays in $OUT and
# never changes the source tree.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build-fuzz}
out=${OUT:-$build/fuzz-runs}
runs=${FUZZ_RUNS:-10000000}
seconds=${FUZZ_SECONDS:-0}
lock=${KP_CPU_LOCK:-/tmp/kp-cpu.lock}
resume=${RESUME:-0}
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0:quarantine_size_mb=16}

locked() { if [[ -e $lock || -w $(dirname "$lock") ]]; then flock "$lock" "$@"; else "$@"; fi; }

if [[ ! -f $build/build.ninja ]]; then
  command -v clang++-14 >/dev/null ||
    { echo "error=clang-14 missing: run scripts/setup.sh --fuzz as root" >&2; exit 2; }
  locked env CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja -DKP_FUZZ=ON \
    -DKP_PCH=OFF -DKP_WERROR=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
locked cmake --build "$build" -j2 --target fuzz_targets

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$root"/test/fuzz/corpus/*/; do targets+=("$(basename "$f")"); done
fi

crashed=0
for t in "${targets[@]}"; do
  binary=$build/fuzz/fuzz-$t
  [[ -x $binary ]] || { echo "target=$t error=missing-binary"; crashed=1; continue; }
  work=$out/$t
  before=0
  if [[ $resume == 1 && -f $work/executions ]]; then
    before=$(<"$work/executions")
  else
    rm -rf "$work"
  fi
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -n "$root/test/fuzz/corpus/$t"/* "$work/corpus/"
  left=$((runs - before))
  if ((left <= 0)); then
    echo "target=$t executions=0 total_executions=$before crashes=$(find "$work/artifacts" -type f | wc -l) exit=0"
    continue
  fi
  max_len=65536
  [[ $t == nocloud_iso ]] && max_len=131072
  limits=(-runs="$left" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
          -artifact_prefix="$work/artifacts/")
  ((seconds > 0)) && limits+=(-max_total_time="$seconds")
  status=0
  locked "$binary" "${limits[@]}" "$work/corpus" >"$work/log" 2>&1 || status=$?
  executed=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || true)
  found=$(find "$work/artifacts" -type f | wc -l)
  total=$((before + ${executed:-0}))
  echo "$total" >"$work/executions"
  echo "target=$t executions=${executed:-0} total_executions=$total execs_per_s=${rate:-0}" \
       "peak_rss_mb=${rss:-0} crashes=$found exit=$status"
  # 72 is libFuzzer's exit status for an interrupted run (SIGINT): stopped, not crashed.
  if (((status != 0 && status != 72) || found > 0)); then
    crashed=1
    grep -m3 -E 'ERROR|SUMMARY|deadly|property broken' "$work/log" | sed "s/^/  $t: /" || true
  fi
done
exit $crashed
