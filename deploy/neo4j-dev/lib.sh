# shellcheck shell=bash
# Helpers shared by start.sh and stop.sh; sourced, not run. Expects PIDFILE and MAIN to be set.

say() {
  echo "neo4j-dev: $*" >&2
}

# launcher_alive PID: true when PID is a live launcher JVM (not a recycled pid of some other program).
launcher_alive() {
  local pid=$1 cmdline
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"$MAIN"* ]]
}

# running_pid: prints the pid from the pid file when that launcher is alive; removes a stale pid file.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE")"
  if launcher_alive "$pid"; then
    echo "$pid"
    return 0
  fi
  rm -f "$PIDFILE"
  return 1
}

port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# bolt_handshake PORT: true when a Bolt server on PORT agrees on a protocol version. It sends the Bolt magic
# 0x6060B017 and four proposals (5.0-5.8, 4.4, none, none); the server answers with four bytes, all zero
# when it supports none of them.
bolt_handshake() {
  local reply
  reply="$(timeout 5 bash -c '
    exec 3<>/dev/tcp/127.0.0.1/'"$1"'
    printf "\x60\x60\xb0\x17\x00\x08\x08\x05\x00\x00\x04\x04\x00\x00\x00\x00\x00\x00\x00\x00" >&3
    head -c 4 <&3 | od -An -tx1' 2>/dev/null)" || return 1
  reply="${reply//[[:space:]]/}"
  [[ ${#reply} -eq 8 && "$reply" != 00000000 ]]
}
