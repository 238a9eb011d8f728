#!/usr/bin/env bash
# Bring up a one-node SLURM cluster on this machine, as root, without systemd:
# munged (as user munge), slurmctld and slurmd, all on `hostname -s`, one partition.
# Used by CI before `pytest -m slurm` (tests/test_sweep_slurm.py); usable on a developer machine.
#
#   bash .ci/slurm-up.sh            # install (apt) if needed, configure, start; waits until the node is idle
#   SLURM_PARTITION=debug bash .ci/slurm-up.sh
#
# Idempotent: if the cluster already answers with an idle node, it only prints its state.
# Nothing here is site-specific: node name, CPUs and memory are read from this machine.
# No accounting database (slurmdbd) is set up, so `sacct` has nothing to show; completed jobs
# are logged by jobcomp/filetxt to $SLURM_JOBCOMP_LOG instead (the slurm test prints it).
set -euo pipefail

PARTITION="${SLURM_PARTITION:-debug}"
CONF_DIR=/etc/slurm
JOBCOMP_LOG="${SLURM_JOBCOMP_LOG:-/var/log/slurm/jobcomp.log}"

if [ "$(id -u)" -ne 0 ]; then
    echo "slurm-up: must run as root" >&2
    exit 1
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null \
        || ! command -v sbatch >/dev/null; then
    echo "slurm-up: installing slurmctld slurmd slurm-client munge (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

node_state() { timeout 10 sinfo -h -N -o '%T' 2>/dev/null | head -n1 || true; }
ctld_up() { timeout 10 scontrol ping 2>/dev/null | grep -q UP; }

if pgrep -x slurmd >/dev/null && pgrep -x slurmctld >/dev/null && { [ "$(node_state)" = "idle" ] || [ "$(node_state)" = "mixed" ] || [ "$(node_state)" = "allocated" ]; }; then
    echo "slurm-up: cluster already up"
    sinfo
    exit 0
fi

NODE="$(hostname -s)"
CPUS="$(nproc)"
MEM_MB="$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)"
# the node's layout as slurmd detects it (sockets, cores, threads), memory kept at 90 %
LAYOUT="$(slurmd -C 2>/dev/null | head -n1 | tr ' ' '\n' | grep -E '^(Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ' || true)"

# --- munge -----------------------------------------------------------------------------------
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
chmod 0700 /etc/munge /var/lib/munge /var/log/munge
chmod 0755 /run/munge
chmod 0400 /etc/munge/munge.key
if ! pgrep -u munge -x munged >/dev/null; then
    runuser -u munge -- /usr/sbin/munged
fi
for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
munge -n | unmunge >/dev/null

# --- slurm.conf -------------------------------------------------------------------------------
mkdir -p "$CONF_DIR" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm
cat > "$CONF_DIR/slurm.conf" <<EOF
# Written by paperlib .ci/slurm-up.sh: a one-node cluster for tests (no accounting database).
ClusterName=paperlib
SlurmctldHost=${NODE}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=${JOBCOMP_LOG}
MinJobAge=300
DefMemPerCPU=1000
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=10
NodeName=${NODE} CPUs=${CPUS} ${LAYOUT}RealMemory=${MEM_MB} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP
EOF
# no cgroup.conf: Slurm 22.05 has no "disabled" cgroup plugin; with proctrack/linuxproc and
# task/none it only loads cgroup/v1 to look, and runs without cgroups
rm -f "$CONF_DIR/cgroup.conf"

# --- daemons ----------------------------------------------------------------------------------
# a controller still shutting down (or a stale one) would answer nothing: wait for its exit first
if pgrep -x slurmctld >/dev/null && ! ctld_up; then
    for _ in $(seq 50); do pgrep -x slurmctld >/dev/null || break; sleep 0.2; done
fi
pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
for _ in $(seq 100); do ctld_up && break; sleep 0.2; done
if ! ctld_up; then
    echo "slurm-up: slurmctld does not answer; its log:" >&2
    tail -n 30 /var/log/slurm/slurmctld.log >&2 || true
    exit 1
fi
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd -N "$NODE"

for _ in $(seq 150); do
    s="$(node_state)"
    case "$s" in
        idle|mixed|allocated) break ;;
        down*|drain*) scontrol update NodeName="$NODE" State=RESUME >/dev/null 2>&1 || true ;;
    esac
    sleep 0.2
done
s="$(node_state)"
if [ "$s" != "idle" ] && [ "$s" != "mixed" ] && [ "$s" != "allocated" ]; then
    echo "slurm-up: node $NODE is '$s', not idle; logs:" >&2
    tail -n 30 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
    exit 1
fi
echo "slurm-up: one-node cluster up (node $NODE, $CPUS CPUs, ${MEM_MB} MB, partition $PARTITION)"
sinfo
