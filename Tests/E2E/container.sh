# Sourced by the end-to-end tests (bash): systemd booted as PID 1 of a throw-away container on the host's own tree,
# and the test's bookkeeping. The host's PID 1 need not be systemd (../shared notes: systemd-nspawn with
# --register=no --keep-unit, in a mount namespace and cgroups of its own).
#
# Set before sourcing: name (the container's; its cgroups and work directory are named after it and the test's
# PID) and tag (what say() prints first). Provides say, pass, fail, elapsed and the counts passed and failed; alive
# and wait_gone; container_prepare (sets work, a fresh directory), container_boot NSPAWN-OPTION... (boots, sets
# leader, exits the test if the container does not come up), in_container COMMAND..., teardown [report], and
# cgroups, litter_before and host_litter for the check that nothing is left on the host.

say() { printf '%s: %s\n' "$tag" "$*"; }
elapsed() { printf '%d.%03ds' $((($(date +%s%N) - $1) / 1000000000)) $(((($(date +%s%N) - $1) / 1000000) % 1000)); }
passed=0
failed=0
pass() { passed=$((passed + 1)); say "ok   - $*"; }
fail() { failed=$((failed + 1)); say "FAIL - $1"; shift; local line; for line in "$@"; do say "         $line"; done; }

# A process counts as gone once it is a zombie: this host's PID 1 may not reap what nspawn leaves behind.
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
wait_gone() {  # PID SECONDS
    local deadline=$(($(date +%s) + $2))
    while alive "$1"; do [ "$(date +%s)" -ge "$deadline" ] && return 1; sleep 0.05; done
}

# nspawn runs with --keep-unit, i.e. in the cgroup it is started in, and creates its supervisor/payload cgroups
# below it. Give it cgroups of its own, named after this script's PID, so that nothing lands in the host's root
# cgroup and whatever survives can be found and killed. This host has a hybrid layout (a named v1 "systemd"
# hierarchy plus the unified one); a pure cgroup2 host has just the one.
cgroup_roots() {
    if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then echo /sys/fs/cgroup; return; fi
    [ "$(stat -fc %T /sys/fs/cgroup/systemd 2>/dev/null)" = cgroupfs ] && echo /sys/fs/cgroup/systemd
    [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] && echo /sys/fs/cgroup/unified
    return 0
}
reap_cgroup() {  # kill whatever is left in the tree, then remove it bottom-up
    local dir=$1 processes
    [ -e "$dir/cgroup.kill" ] && echo 1 >"$dir/cgroup.kill" 2>/dev/null
    processes=$(find "$dir" -name cgroup.procs -exec cat {} + 2>/dev/null)
    # shellcheck disable=SC2086 # one PID a word
    [ -n "$processes" ] && kill -KILL $processes 2>/dev/null
    for _ in $(seq 50); do
        find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
        [ -d "$dir" ] || return 0
        sleep 0.1
    done
    return 1
}
# What nspawn could leave in the host's /run and /tmp if it were not confined; compared after the run.
host_litter() { ls -d /run/systemd/nspawn /tmp/nspawn-* 2>/dev/null; }

# Once the test knows it can run: the leftovers of a run that was SIGKILLed (so its trap never ran) removed (its
# container, cgroups and work directory outlive it, all named after its PID), and this run's named.
container_prepare() {
    local dir owner root
    for dir in $(cgroup_roots | sed "s|\$|/$name.*|") /tmp/"$name".*; do
        [ -d "$dir" ] || continue
        owner=${dir#*/"$name".}
        owner=${owner%%.*}
        case $owner in '' | *[!0-9]*) continue ;; esac
        alive "$owner" && continue
        say "removing the leftovers of an earlier run: $dir"
        case $dir in
        /tmp/*) rm -rf "$dir" ;;
        *) reap_cgroup "$dir" || say "could not remove $dir" ;;
        esac
    done
    litter_before=$(host_litter)
    cgroups=""
    for root in $(cgroup_roots); do cgroups="$cgroups $root/$name.$$"; done
    work=$(mktemp -d "/tmp/$name.$$.XXXXXX")
}
nspawn=""
leader=""
cgroups=""

teardown() {
    local t
    t=$(date +%s%N)
    if [ -n "$nspawn" ] && alive "$nspawn"; then
        kill -TERM "$nspawn" 2>/dev/null  # nspawn halts the container in order
        wait_gone "$nspawn" 20 || kill -KILL "$nspawn" 2>/dev/null
    fi
    [ -n "$nspawn" ] && wait "$nspawn" 2>/dev/null
    if [ -n "$leader" ] && alive "$leader"; then  # nspawn is gone but its container lives on: halt its PID 1
        kill -s RTMIN+4 "$leader" 2>/dev/null
        wait_gone "$leader" 10
    fi
    local dir
    for dir in $cgroups; do [ -d "$dir" ] && { reap_cgroup "$dir" || say "could not remove $dir"; }; done
    nspawn=""
    leader=""
    [ -n "${1:-}" ] && say "container stopped in $(elapsed "$t")"
}

# The container, with the NSPAWN-OPTIONs given (what to bind in, --volatile=). A private mount namespace with a
# tmpfs on /run/systemd keeps nspawn's bookkeeping (/run/systemd/nspawn/) out of the host's /run; there is no
# machined to register with (--register=no).
container_boot() {  # NSPAWN-OPTION...
    local boot_started child state=""
    boot_started=$(date +%s%N)
    # shellcheck disable=SC2016 # expanded by that sh
    unshare --mount --propagation private -- sh -c '
        for dir in $1; do mkdir -p "$dir" && echo $$ >"$dir/cgroup.procs" || exit 1; done
        shift
        mount -t tmpfs -o mode=0755 tmpfs /run/systemd || exit 1
        exec systemd-nspawn "$@" -- systemd.firstboot=no' \
        sh "$cgroups" --quiet --directory=/ --boot --machine="$name" --register=no --keep-unit --private-network \
        --console=read-only --link-journal=no "$@" </dev/null >"$work/console.log" 2>&1 &
    nspawn=$!

    # The container's PID 1: the child of nspawn whose PID in its own namespace is 1.
    for _ in $(seq 200); do
        # shellcheck disable=SC2013 # PIDs, space-separated
        for child in $(cat /proc/"$nspawn"/task/*/children 2>/dev/null); do
            grep -qE '^NSpid:.*[[:space:]]1$' "/proc/$child/status" 2>/dev/null && leader=$child
        done
        [ -n "$leader" ] && break
        alive "$nspawn" || break
        sleep 0.05
    done
    if [ -z "$leader" ]; then
        fail "container boots" "systemd-nspawn exited or never started PID 1:" "$(tail -n 20 "$work/console.log")"
        exit 1
    fi
    for _ in $(seq 300); do
        state=$(in_container systemctl is-system-running 2>/dev/null)
        case $state in running | degraded) break ;; esac
        sleep 0.1
    done
    case $state in
    running | degraded) pass "container boots ($state in $(elapsed "$boot_started"))" ;;
    *)
        fail "container boots" "is-system-running: '$state'" "$(tail -n 20 "$work/console.log")"
        exit 1
        ;;
    esac
}
in_container() { timeout 30 nsenter --target "$leader" --all "$@"; }
