#!/bin/bash
# local-cluster.sh - a one-host Slurm cluster in a folder of its own, from
# Debian's slurm-wlm and munge (scripts/setup.sh installs them), no systemd:
# munged, slurmctld and slurmd with their key, sockets, state, spool and
# logs under DIR, on free ports, one partition of this host's CPUs. The
# tests (tests/e2e/slurm.sh, tests/e2e/reframe.sh) run the cluster scripts
# on it; a site tries them the same way before its own cluster.
#
#   scripts/slurm/local-cluster.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   SLURM_CONF=DIR/slurm.conf sbatch ...
#   scripts/slurm/local-cluster.sh stop DIR    # cancels its jobs, stops the daemons
#
# Needs root (slurmd starts jobs as their user); exits 77 with the reason
# where the daemons cannot be started, so a test skips rather than passes.
set -euo pipefail
what=${1:-}
dir=${2:-}
[ -n "$dir" ] && { [ "$what" = start ] || [ "$what" = stop ]; } ||
  { echo "usage: local-cluster.sh start|stop DIR" >&2; exit 2; }

cannot() { # what started is stopped again
  echo "local-cluster.sh: cannot start a Slurm cluster here: $*" >&2
  [ -d "$dir" ] && "$0" stop "$dir"
  exit 77
}

# alive and not a zombie (a container's init may never reap a daemon)
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop_pid() { # PIDFILE: TERM, then KILL after 5 s
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do alive "$pid" || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

if [ "$what" = stop ]; then
  if [ -f "$dir/slurmctld.pid" ] && alive "$(cat "$dir/slurmctld.pid")"; then
    SLURM_CONF=$dir/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 50); do # the jobs' steps end before slurmd does
      [ -z "$(SLURM_CONF=$dir/slurm.conf squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munged.pid"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || cannot "not root (slurmd runs jobs as their users)"
for d in munged slurmctld slurmd; do
  command -v "$d" > /dev/null || [ -x "/usr/sbin/$d" ] || cannot "no $d (scripts/setup.sh installs slurm-wlm and munge)"
done
export PATH=$PATH:/usr/sbin
mkdir -p "$dir"
dir=$(realpath "$dir")
mkdir -p "$dir/state" "$dir/spool" "$dir/log"

# munge: a key of this cluster's own, its socket in DIR (the host's munged,
# if any, is left alone)
head -c 1024 /dev/urandom > "$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge.seed" || cannot "munged did not start ($dir/log/munged.log)"

# Free ports: a random pair below the kernel's ephemeral range, on which no
# TCP socket of any state sits. Within that range a client connection's
# local port (not a listener) made slurmctld die with "Address already in
# use" while the wait below polled a controller that was not there.
ephemeral_low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
pairs=$(((ephemeral_low - 10002) / 2))
[ "$pairs" -gt 100 ] || cannot "no ports below the ephemeral range ($ephemeral_low)"
port_busy() { ss -Hatn "sport = :$1" 2>/dev/null | grep -q .; }
port=0
for _ in $(seq 20); do
  p=$((10000 + RANDOM % pairs * 2))
  port_busy "$p" || port_busy $((p + 1)) || { port=$p; break; }
done
[ "$port" -gt 0 ] || cannot "no two free ports found"

host=$(hostname -s)
cat > "$dir/slurm.conf" << EOF
# a one-host cluster made by scripts/slurm/local-cluster.sh
ClusterName=flowbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# no cgroups or systemd needed: processes tracked by their parents, no binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
# one task per core, so two 1-CPU array tasks run side by side
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# schedule at every event, not on the main loop's interval: a test waits for each job
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
# srun starts Open MPI ranks through PMIx, as on most sites
MpiDefault=pmix
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" -i || cannot "slurmctld did not start ($dir/log/slurmctld.log)"
slurmd -f "$SLURM_CONF" || cannot "slurmd did not start ($dir/log/slurmd.log)"
# Up to 15 s of wall time for the node to be idle; sinfo given 2 s a try
# (against a controller that is not there it waits its message timeout).
# A controller that died is a failure, not a skip: its log's last line says why.
started=$SECONDS
controller_gone() { # its pid file names a dead process, or is still missing after 5 s
  local pid
  pid=$(cat "$dir/slurmctld.pid" 2>/dev/null || true)
  if [ -n "$pid" ]; then ! alive "$pid"; else [ "$SECONDS" -ge $((started + 5)) ]; fi
}
deadline=$((started + 15))
while [ "$SECONDS" -lt "$deadline" ]; do
  if controller_gone; then
    why=$(grep -E 'fatal|error' "$dir/log/slurmctld.log" 2>/dev/null | tail -n 1)
    echo "local-cluster.sh: slurmctld exited: ${why:-no reason in its log} ($dir/log/slurmctld.log)" >&2
    "$0" stop "$dir"
    exit 1
  fi
  if timeout 2 sinfo -h -o %T 2> /dev/null | grep -qx idle; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.1
done
cannot "the node did not come up in 15 s ($dir/log/)"
