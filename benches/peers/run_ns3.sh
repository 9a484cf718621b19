#!/bin/sh
# Builds benches/peers/ns3_dumbbell.cc against Debian's ns-3 (apt-get install
# libns3-dev g++ pkg-config) and runs it, then runs dcbsim's own benchmark of the same
# scenario, so the two speeds are measured side by side on one machine.
#
#   benches/peers/run_ns3.sh [REPEATS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
repeats=${1:-3}
out=${TMPDIR:-/tmp}/dcbsim-peers
mkdir -p "$out"
modules="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
if ! pkg-config --exists $modules; then
    echo "run_ns3.sh: ns-3 not found by pkg-config; install it with: apt-get install libns3-dev g++ pkg-config" >&2
    exit 2
fi
echo "ns-3 $(pkg-config --modversion ns3-core)"
# Debian's .pc files carry a stray "-I/usr;" and name libgsl.so, which only libgsl-dev
# provides: take the headers from /usr/include and the ns-3 libraries alone (they bring
# their own dependencies).
libs=$(pkg-config --libs $modules | tr ' ' '\n' | grep -v 'libgsl' | tr '\n' ' ')
g++ -O3 -std=c++17 -I/usr/include "$here/ns3_dumbbell.cc" -o "$out/ns3_dumbbell" $libs
i=0
while [ "$i" -lt "$repeats" ]; do
    "$out/ns3_dumbbell"
    i=$((i + 1))
done
cd "$root"
cargo build --release --quiet -p dcbsim-bench
./target/release/dcbsim-bench python/dcbsim/scenarios/bench/dumbbell_10g.toml --repeat "$repeats"
