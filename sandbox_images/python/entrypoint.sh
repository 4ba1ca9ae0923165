#!/bin/sh
# Prepare cgroups for the judge, run the sandbox self-test, then start the worker.
set -eu

# cgroup v2 (a private cgroup namespace): the container's root cgroup cannot both hold
# processes and delegate controllers ("no internal processes"). Move every process into a
# leaf, "worker", and delegate memory + pids from the root; the judge then creates its
# per-verdict slots under /sys/fs/cgroup/formalmarket-judge.
# Docker mounts the cgroup filesystem read-only; with CAP_SYS_ADMIN in a private cgroup
# namespace it can be remounted read-write (it then only shows the container's own subtree).
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ ! -w /sys/fs/cgroup/cgroup.subtree_control ]; then
    mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
fi
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then
    mkdir -p /sys/fs/cgroup/worker
    for pid in $(cat /sys/fs/cgroup/cgroup.procs); do
        echo "$pid" > /sys/fs/cgroup/worker/cgroup.procs 2>/dev/null || true
    done
    echo "+memory +pids" > /sys/fs/cgroup/cgroup.subtree_control
fi

# Refuse to start, loudly, when any sandbox layer is missing.
python -c "from judge.python import run_selftest; run_selftest(); print('python judge self-test: ok')"

exec "$@"
