#!/usr/bin/env bash
# Run tests/test_lan.py N times (default 10) while one CPU-bound process runs on each core,
# and print how many runs passed. Needs root and iproute2 (the tests make their own namespaces).
#
#   scripts/lan_soak.sh [N] [TEST...]   (TEST: pytest ids instead of all of tests/test_lan.py)
set -u
cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(tests/test_lan.py)
cores=$(nproc)
burners=()
for _ in $(seq "$cores"); do
  python3 -c 'while True: pass' & burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null' EXIT
passed=0
for i in $(seq "$runs"); do
  if python -m pytest -q -n 0 -p no:cacheprovider "${tests[@]}" >"/tmp/lan_soak_$i.log" 2>&1; then
    passed=$((passed + 1)); echo "run $i: passed"
  else
    echo "run $i: FAILED (see /tmp/lan_soak_$i.log)"; tail -30 "/tmp/lan_soak_$i.log"
  fi
done
echo "${tests[*]} under load on $cores cores: $passed of $runs runs passed"
[ "$passed" -eq "$runs" ]
