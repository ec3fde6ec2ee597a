#!/bin/sh
# Regenerates deploy/link/alarmd.order, the link order of the packaged alarmd, from a profile of
# the daemon at work:
#
#   deploy/link/make-order.sh [--scratch-path DIR]
#
# 1. Builds alarmd and alarmctl as deploy/build-deb.sh does (deploy/swift-build-release), in
#    DIR (default .build-deb/build, build-deb.sh's own, so nothing is compiled twice), alarmd
#    with a link map.
# 2. Runs deploy/link/daemon-workload.sh twice with the daemon under valgrind --tool=callgrind
#    (about 3 minutes), callgrind's counters dumped after each phase: --benchmark (the daemon
#    benchmark's conditions and requests), then as a service (info logging, watchdog, more
#    requests, an alert with snooze and stop, a timer, a restart on the stored alarms).
# 3. deploy/link/order-from-profile.py turns the executed addresses into the ordering file, in
#    tiers: what the benchmark's daemon ran up to its idle, then what the service's start,
#    requests, idle and restart added (all of which an idle daemon that has answered requests
#    keeps resident), then what only the alert ran (resident once an alarm has rung), then what
#    only the shutdowns ran. Measured, listing the shutdown too packs the idle daemon better:
#    the daemon runs some functions natively that it did not run under valgrind (an await that
#    suspends or not changes which partial functions of an async function run), and these sit
#    next to the ones listed.
#
# Then rebuild (deploy/build-deb.sh) and commit the new file with the code it was made from.
# Regenerate after changes that move the daemon's work to other functions (new request paths,
# renamed types, other dependencies, another Swift toolchain): a stale file is no error, the
# binary only packs less well (an unknown name is skipped; a new hot function stays where the
# default order puts it). The idle RSS line of `alarm-benchmarks --only daemon` shows it.
# Needs valgrind (apt-get install valgrind) and python3.
set -eu

source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$source_dir/.build-deb/build
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch-path) scratch=${2:?--scratch-path needs a directory}; shift 2 ;;
        --scratch-path=*) scratch=${1#*=}; shift ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "make-order.sh: unknown argument \"$1\" (see --help)" >&2; exit 64 ;;
    esac
done
for tool in valgrind callgrind_control python3 strip; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "make-order.sh: $tool is missing (apt-get install valgrind python3)" >&2
        exit 69
    }
done

mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
work=$scratch/order-profile
rm -rf "$work"
mkdir -p "$work"

build() { "$source_dir/deploy/swift-build-release" --package-path "$source_dir" --scratch-path "$scratch" "$@"; }
build --product alarmctl
bin_dir=$(build --show-bin-path)
# alarmd with a link map (symbols as the ordering file names them: not demangled). The copy is what gets profiled (a later build cannot replace it), its
# symbols kept and its DWARF 5 debug information removed (valgrind 3.19 cannot read it).
rm -f "$bin_dir/alarmd"  # linked again, so the map is written even if nothing changed
build --product alarmd -Xlinker "-Map=$work/alarmd.map" -Xlinker --no-demangle
[ -f "$work/alarmd.map" ] || { echo "make-order.sh: the link wrote no map ($work/alarmd.map)" >&2; exit 70; }
strip --strip-debug -o "$work/alarmd" "$bin_dir/alarmd"
cp "$bin_dir/alarmctl" "$work/alarmctl"

# When a phase ends: dump callgrind's counters (callgrind.out.N, N = 1, 2, ...), then zero them.
cat >"$work/dump-phase" <<'EOF'
#!/bin/sh
exec callgrind_control --dump="$1" "$2" >/dev/null 2>&1
EOF
chmod +x "$work/dump-phase"
profile() {  # profile NAME [--benchmark]: the workload with alarmd under callgrind, in $work/NAME
    mkdir -p "$work/$1"
    "$source_dir/deploy/link/daemon-workload.sh" ${2:-} --alarmctl "$work/alarmctl" --dir "$work/$1" \
        --at-phase "$work/dump-phase" -- \
        valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no --demangle=no \
        --callgrind-out-file="$work/$1/callgrind.out.%p" --log-file="$work/$1/valgrind.log" "$work/alarmd"
}
profile benchmark --benchmark
profile service

# The dumps by phase (callgrind.out.PID.N; at exit, callgrind.out.PID: the shutdown).
phase_file() {  # phase_file RUN TRIGGER: the dumps of RUN whose trigger ends with TRIGGER, comma-separated
    files=$(grep -lE "^desc: Trigger: (dump )?$2\$" "$work/$1"/callgrind.out.* | paste -s -d, -)
    [ -n "$files" ] || { echo "make-order.sh: no callgrind dump \"$2\" in $work/$1" >&2; exit 1; }
    echo "$files"
}
benchmark=$(phase_file benchmark start),$(phase_file benchmark requests),$(phase_file benchmark idle)
service=$(phase_file service start),$(phase_file service requests),$(phase_file service idle),$(phase_file service restart)
alert=$(phase_file service alert)
shutdown=$(phase_file benchmark 'Program termination'),$(phase_file service 'Program termination')

commit=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$source_dir" status --porcelain --untracked-files=no -- Sources Package.swift Package.resolved 2>/dev/null)" ] ||
    commit="$commit with uncommitted changes"
order=$work/alarmd.order
{
    cat <<EOF
# deploy/link/alarmd.order: lld's --symbol-ordering-file for the packaged alarmd (passed by
# deploy/swift-build-release). One symbol a line; lld puts the section of each listed symbol
# first in .text, in this order, and skips names the program does not have. Generated by
# deploy/link/make-order.sh (do not edit): the functions alarmd executed under callgrind in
# deploy/link/daemon-workload.sh on the simulated board: first those the daemon benchmark's
# work ran (start, schedules, lists, idle), then those a service's start, requests, idle and
# restart with stored alarms added (info logging, watchdog, more requests, the store read
# back), then those only the alert, snooze and stop ran, then those of the shutdowns; then
# larger precompiled sections.
# Made from commit $commit with $(swift --version 2>/dev/null | head -n 1), $(valgrind --version).
EOF
    python3 "$source_dir/deploy/link/order-from-profile.py" "$work/alarmd.map" "$work/alarmd" \
        "$benchmark" "$service" "$alert" "$shutdown"
} >"$order"
cp "$order" "$source_dir/deploy/link/alarmd.order"
echo "make-order.sh: wrote deploy/link/alarmd.order ($(grep -vc '^#' "$order") symbols); profile in $work" >&2
