#!/usr/bin/env bash
# A local Slurm lab: one slurmctld plus NODES `slurmd -N nodeI` daemons on 127.0.0.1, fake GPUs as
# GRES (character devices cloned from /dev/null), a private munged. Everything (configuration,
# state, logs, sockets, pid files) lives in DIR; /etc/slurm and the system munged are never used.
# Ports are derived from DIR (and checked free), so two labs run side by side.
#
#   scripts/slurm-lab.sh up DIR [NODES=4] [GPUS_PER_NODE=4] [PARTITIONS=1]
#                                                             start; prints `export SLURM_CONF=...`
#   scripts/slurm-lab.sh down DIR                             cancel jobs, stop every daemon by PID
#   scripts/slurm-lab.sh stop-ctld DIR | start-ctld DIR       stop / restart slurmctld only (tests)
#   scripts/slurm-lab.sh kill-node DIR I                      node I dies: SIGKILL its slurmd, steps, jobs
#   scripts/slurm-lab.sh status DIR                           sinfo of the lab
#
# Every wait is bounded by `timeout`; `down` is idempotent. Needs root (slurmd runs as root) and the
# Debian packages slurmctld slurmd slurm-client munge (scripts/install-deps.sh). See
# docs/live-mode.md.
set -euo pipefail

die() { echo "slurm-lab: $*" >&2; exit 1; }

usage() {
  sed -n '7,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[[ $# -ge 2 ]] || usage
cmd=$1
[[ -n "$2" ]] || usage
if [[ "$cmd" == "up" ]]; then mkdir -p "$2" 2>/dev/null || true; fi
if [[ "$cmd" == "down" && ! -d "$2" ]]; then exit 0; fi  # nothing to stop
LAB=$(cd "$2" 2>/dev/null && pwd) || die "cannot use lab directory '$2'"
CONF="$LAB/etc/slurm.conf"
export SLURM_CONF="$CONF"

# --- helpers -----------------------------------------------------------------------------------

# Is TCP port $1 listening (IPv4 or IPv6)? Reads /proc so it needs no extra tool.
port_in_use() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == p { found = 1 }
                    END { exit found ? 0 : 1 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# Is pid $1 alive (zombies count as dead: PID 1 may reap late)?
pid_alive() {
  local st
  [[ -n "$1" && -e "/proc/$1" ]] || return 1
  st=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null || true)
  [[ -n "$st" && "$st" != "Z" ]]
}

# The pids of "$@" still alive, space-separated ("" when none).
alive_pids() {
  local pid left=""
  for pid in "$@"; do pid_alive "$pid" && left+=" $pid"; done
  echo "$left"
}

# Stops every pid given at once: SIGTERM to all, up to 10 s, then SIGKILL to those left (and up to
# 5 s more).
stop_pids() {
  local pid i left
  for pid in "$@"; do pid_alive "$pid" && kill -TERM "$pid" 2>/dev/null; done
  for ((i = 0; i < 200; i++)); do
    left=$(alive_pids "$@")
    [[ -z "$left" ]] && return 0
    sleep 0.05
  done
  for pid in $left; do kill -KILL "$pid" 2>/dev/null || true; done
  for ((i = 0; i < 100; i++)); do
    left=$(alive_pids $left)
    [[ -z "$left" ]] && return 0
    sleep 0.05
  done
  echo "slurm-lab: pid(s)$left did not stop" >&2
}
stop_pid() { stop_pids "$1"; }

# The pid in pid file $1 ("" if none).
pidfile_pid() { tr -dc '0-9' <"$1" 2>/dev/null || true; }

# Starts node $1's slurmd (it daemonises; its pid file is $LAB/run/slurmd-node$1.pid).
start_slurmd() {
  env DMLKIT_SLURM_LAB="$LAB" DMLKIT_SLURM_NODE="node$1" slurmd -f "$CONF" -N "node$1" >>"$LAB/log/slurmd.out" 2>&1
}

stop_pidfile() {
  local f=$1 pid
  [[ -f "$f" ]] || return 0
  pid=$(pidfile_pid "$f")
  [[ -n "$pid" ]] && stop_pid "$pid"
  rm -f "$f"
}

# Processes that belong to this lab and to no other: daemons and their slurmstepd children carry
# DMLKIT_SLURM_LAB=$LAB in their environment, batch scripts carry SLURM_JOB_ID plus this lab's
# SLURM_CONF. With $1 = a node name, only that node's: its slurmd and slurmstepds also carry
# DMLKIT_SLURM_NODE=$1, its batch scripts SLURMD_NODENAME=$1. Our own shell and its ancestors are
# never listed.
lab_processes() {
  local node=${1:-} self_chain=" $$ " p pid env
  p=$$
  while [[ "$p" -gt 1 ]]; do
    p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 1)
    self_chain+="$p "
  done
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}; pid=${pid%/environ}
    [[ "$self_chain" == *" $pid "* ]] && continue
    if tr '\0' '\n' 2>/dev/null <"$env" | awk -v lab="DMLKIT_SLURM_LAB=$LAB" -v conf="SLURM_CONF=$CONF" -v node="$node" '
         $0 == lab { l = 1 } $0 == conf { c = 1 } /^SLURM_JOB_ID=/ { j = 1 }
         $0 == "DMLKIT_SLURM_NODE=" node { dn = 1 } $0 == "SLURMD_NODENAME=" node { jn = 1 }
         END { exit (node == "" ? (l || (c && j)) : ((l && dn) || (c && j && jn))) ? 0 : 1 }'; then
      echo "$pid"
    fi
  done
}

# Starts slurmctld and waits until it answers. Once in a CI run it did not answer within 20 s (the
# cause was not found, the lab was gone with its log): a slurmctld that does not answer within
# 30 s is stopped and started once more, and the error quotes the end of its log.
start_ctld() {
  local attempt pid
  for attempt in 1 2; do
    env DMLKIT_SLURM_LAB="$LAB" slurmctld -f "$CONF" -i >>"$LAB/log/slurmctld.out" 2>&1 \
      || die "slurmctld failed to start (see $LAB/log/slurmctld.log)"
    if timeout 30 bash -c "until [[ -s '$LAB/run/slurmctld.pid' ]] && scontrol ping 2>/dev/null | grep -q UP; do sleep 0.1; done"; then
      return 0
    fi
    echo "slurm-lab: slurmctld did not answer within 30 s (attempt $attempt)" >&2
    # Stop every slurmctld of this lab (munged stays): found by pid file and by environment.
    stop_pidfile "$LAB/run/slurmctld.pid"
    for pid in $(lab_processes); do
      [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == slurmctld ]] && stop_pid "$pid"
    done
    sleep 1
  done
  die "slurmctld did not answer within 30 s, twice (end of $LAB/log/slurmctld.log: $(tail -n 5 "$LAB/log/slurmctld.log" 2>/dev/null | tr '\n' ' '))"
}

wait_nodes_idle() {
  local n=$1 secs=$2
  timeout "$secs" bash -c "until [[ \$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle\$') -ge $n ]]; do sleep 0.1; done"
}

# Once in a CI run (load from the rest of the suite) not every node was idle 30 s after start: the
# nodes that are not idle are named with their state, their slurmd is stopped and started once
# more and resumed, and after 30 s more the error quotes their states and the end of their logs.
restart_unready_nodes() {
  local nodes=$1 i state unready=""
  for ((i = 1; i <= nodes; i++)); do
    state=$(sinfo -h -N -n "node$i" -o '%t' 2>/dev/null | head -n 1)
    [[ "$state" == idle ]] || unready+=" node$i(${state:-unknown})"
  done
  echo "slurm-lab: not idle after 30 s:${unready:- none listed}; restarting their slurmd" >&2
  for ((i = 1; i <= nodes; i++)); do
    [[ "$unready" == *" node$i("* ]] || continue
    stop_pidfile "$LAB/run/slurmd-node$i.pid"
    start_slurmd "$i" || die "slurmd for node$i failed to start again (see $LAB/log/slurmd-node$i.log)"
    scontrol update NodeName="node$i" State=RESUME >/dev/null 2>&1 || true
  done
  wait_nodes_idle "$nodes" 30 && return 0
  local detail="" f
  for ((i = 1; i <= nodes; i++)); do
    [[ "$unready" == *" node$i("* ]] || continue
    f="$LAB/log/slurmd-node$i.log"
    detail+=" [node$i: $(sinfo -h -N -n "node$i" -o '%t %E' 2>/dev/null | head -n 1); log: $(tail -n 3 "$f" 2>/dev/null | tr '\n' ' ')]"
  done
  die "not all $nodes nodes became idle within 30 s, nor 30 s after their slurmd restarted:$detail"
}

# --- commands ----------------------------------------------------------------------------------

lab_up() {
  local nodes=${1:-4} gpus=${2:-4} partitions=${3:-1}
  [[ "$nodes" =~ ^[1-9][0-9]*$ && "$nodes" -le 64 ]] || die "NODES must be 1..64 (got '$nodes')"
  [[ "$partitions" == 1 || ( "$partitions" == 2 && "$nodes" -ge 2 ) ]] \
    || die "PARTITIONS must be 1, or 2 with at least 2 nodes (got '$partitions')"
  [[ "$gpus" =~ ^[1-9][0-9]*$ && "$gpus" -le 16 ]] || die "GPUS_PER_NODE must be 1..16 (got '$gpus')"
  [[ $(id -u) -eq 0 ]] || die "must run as root (slurmd runs as root in the lab)"
  local b
  for b in slurmctld slurmd munged sinfo scontrol squeue sbatch; do
    command -v "$b" >/dev/null || die "$b not found: run scripts/install-deps.sh (packages slurmctld slurmd slurm-client munge)"
  done
  if [[ -f "$LAB/run/slurmctld.pid" ]] && pid_alive "$(cat "$LAB/run/slurmctld.pid")"; then
    die "lab $LAB is already up (run: $0 down $LAB)"
  fi

  # Ports: base derived from the lab path, moved on until ctld, slurmd and node ports are all free.
  local base ok p i
  if [[ -n "${SLURM_LAB_PORT_BASE:-}" ]]; then
    base=$SLURM_LAB_PORT_BASE
  else
    base=$((20000 + ($(printf '%s' "$LAB" | cksum | cut -d' ' -f1) % 500) * 80))
  fi
  for ((p = 0; p < 50; p++)); do
    ok=1
    for ((i = 0; i < nodes + 2; i++)); do
      if port_in_use $((base + i)); then ok=0; break; fi
    done
    [[ $ok -eq 1 ]] && break
    base=$((base + 80)); [[ $base -gt 60000 ]] && base=20000
  done
  [[ $ok -eq 1 ]] || die "no free port range found"
  local ctld_port=$base slurmd_port=$((base + 1)) node_port0=$((base + 2))

  local host
  host=$(hostname -s)
  mkdir -p "$LAB"/{etc,state,log,run,fakegpu,munge}
  chmod 755 "$LAB" "$LAB/munge"
  for ((i = 1; i <= nodes; i++)); do mkdir -p "$LAB/spool/node$i"; done
  for ((i = 0; i < gpus; i++)); do
    [[ -c "$LAB/fakegpu/gpu$i" ]] || mknod -m 666 "$LAB/fakegpu/gpu$i" c 1 3
  done
  if [[ ! -s "$LAB/munge/munge.key" ]]; then
    (umask 077; head -c 1024 /dev/urandom >"$LAB/munge/munge.key")
  fi
  chmod 400 "$LAB/munge/munge.key"

  cat >"$CONF" <<EOF
# Generated by scripts/slurm-lab.sh for the lab in $LAB. Do not edit: re-run \`up\`.
ClusterName=lab
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$LAB/munge/munge.sock
StateSaveLocation=$LAB/state
SlurmdSpoolDir=$LAB/spool/%n
SlurmctldPidFile=$LAB/run/slurmctld.pid
SlurmdPidFile=$LAB/run/slurmd-%n.pid
SlurmctldLogFile=$LAB/log/slurmctld.log
SlurmdLogFile=$LAB/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=1
SlurmdTimeout=5
SlurmctldTimeout=10
MessageTimeout=5
KillWait=2
SlurmdParameters=config_overrides
MinJobAge=600
JobSubmitPlugins=lua
NodeName=node[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$node_port0-$((node_port0 + nodes - 1))] CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:$gpus State=UNKNOWN
EOF
  # One partition `main` of every node; or two: `main` (the first half, default) and `other` (the
  # rest), where only `main`'s jobs enter held (a partition dmlkit manages) and Slurm schedules
  # `other`'s itself.
  local half=$((nodes / 2)) held_partitions="ALL"
  if [[ "$partitions" == 2 ]]; then
    cat >>"$LAB/etc/slurm.conf" <<EOF
PartitionName=main Nodes=node[1-$half] Default=YES MaxTime=INFINITE State=UP
PartitionName=other Nodes=node[$((half + 1))-$nodes] MaxTime=INFINITE State=UP
EOF
    held_partitions="main"
  else
    echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$LAB/etc/slurm.conf"
  fi
  cat >"$LAB/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=node[1-$nodes] Name=gpu File=$LAB/fakegpu/gpu[0-$((gpus - 1))]
EOF
  cat >"$LAB/etc/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupAutomount=no
ConstrainCores=no
ConstrainDevices=no
ConstrainRAMSpace=no
EOF
  # Every submitted job of a managed partition enters held (priority 0): the external controller
  # places and releases it. A job without -p is in the default partition, main.
  cat >"$LAB/etc/job_submit.lua" <<EOF
local held_partitions = "$held_partitions"
EOF
  cat >>"$LAB/etc/job_submit.lua" <<'EOF'
function slurm_job_submit(job_desc, part_list, submit_uid)
   local partition = job_desc.partition or "main"
   if held_partitions == "ALL" or partition == held_partitions then
      job_desc.priority = 0
   end
   return slurm.SUCCESS
end
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   return slurm.SUCCESS
end
EOF
  cat >"$LAB/env" <<EOF
export SLURM_CONF=$CONF
EOF
  printf 'ctld=%s slurmd=%s nodes=%s-%s\n' "$ctld_port" "$slurmd_port" "$node_port0" "$((node_port0 + nodes - 1))" >"$LAB/ports"
  echo "$nodes" >"$LAB/nodes"

  env DMLKIT_SLURM_LAB="$LAB" munged --socket="$LAB/munge/munge.sock" --key-file="$LAB/munge/munge.key" \
    --pid-file="$LAB/run/munged.pid" --log-file="$LAB/log/munged.log" --seed-file="$LAB/munge/munged.seed" \
    --force >>"$LAB/log/munged.out" 2>&1 || die "munged failed to start (see $LAB/log/munged.log)"
  timeout 10 bash -c "until [[ -S '$LAB/munge/munge.sock' ]]; do sleep 0.05; done" \
    || die "munged socket did not appear within 10 s"

  start_ctld
  for ((i = 1; i <= nodes; i++)); do
    start_slurmd "$i" || die "slurmd for node$i failed to start (see $LAB/log/slurmd-node$i.log)"
  done
  wait_nodes_idle "$nodes" 30 || restart_unready_nodes "$nodes"
  echo "export SLURM_CONF=$CONF"
}

lab_down() {
  [[ -d "$LAB/run" ]] || return 0
  if [[ -f "$LAB/run/slurmctld.pid" ]] && pid_alive "$(tr -dc '0-9' <"$LAB/run/slurmctld.pid")"; then
    timeout 10 scancel --quiet --full --signal=KILL --user=root 2>/dev/null || true
    timeout 10 scancel --quiet --user=root 2>/dev/null || true
  fi
  # The daemons all at once (one after the other cost ~1 s per lab), munged last.
  local f pids=()
  for f in "$LAB"/run/slurmd-*.pid "$LAB/run/slurmctld.pid"; do
    [[ -f "$f" ]] && pids+=("$(pidfile_pid "$f")")
  done
  stop_pids "${pids[@]}"
  rm -f "$LAB"/run/slurmd-*.pid "$LAB/run/slurmctld.pid"
  stop_pidfile "$LAB/run/munged.pid"
  # Left-overs (slurmstepd and batch scripts of nodes whose slurmd was killed), by PID.
  stop_pids $(lab_processes)
  rm -f "$LAB/munge/munge.sock" "$LAB/munge/munge.sock.lock"
}

case "$cmd" in
  up) lab_up "${3:-4}" "${4:-4}" "${5:-1}" ;;
  down) lab_down ;;
  stop-ctld) stop_pidfile "$LAB/run/slurmctld.pid" ;;
  start-ctld)
    [[ -f "$CONF" ]] || die "no lab in $LAB"
    start_ctld
    wait_nodes_idle 1 30 >/dev/null || true
    ;;
  kill-node)
    # The machine dies: its slurmd, then its job steps and batch scripts (which would otherwise run
    # on and report their end to slurmctld), all SIGKILLed. Slurm notices the node is gone only
    # after SlurmdTimeout.
    [[ $# -ge 3 && "$3" =~ ^[0-9]+$ ]] || usage
    f="$LAB/run/slurmd-node$3.pid"
    [[ -f "$f" ]] || die "no slurmd pid file for node$3"
    kill -KILL "$(tr -dc '0-9' <"$f")" 2>/dev/null || true
    rm -f "$f"
    for pid in $(lab_processes "node$3"); do kill -KILL "$pid" 2>/dev/null || true; done
    ;;
  status) timeout 10 sinfo -N ;;
  *) usage ;;
esac
