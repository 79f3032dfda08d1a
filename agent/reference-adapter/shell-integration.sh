# elnor-learn shell integration (bash and zsh): reports each command you run in this terminal to
# the local agent while a learning session captures this computer ("This computer" in the side
# panel), and sends nothing when no session does. Arguments that look like secrets are masked
# (shared/observation/command-masking.ts) before they leave the terminal.
#
#   Add to ~/.bashrc or ~/.zshrc:   source /path/to/elnor-learn/agent/reference-adapter/shell-integration.sh
#
# Environment: ELNOR_AGENT_URL, ELNOR_TOKEN or ELNOR_MEMORY (as for `npm run adapter`);
# ELNOR_SHELL_REPORT=0 turns it off for this shell; ELNOR_SHELL_DEBUG=1 shows the reporter's errors.

if [ -n "${ZSH_VERSION:-}" ]; then
  __elnor_dir=${${(%):-%x}:A:h}
  __elnor_shell=zsh
  zmodload zsh/datetime 2>/dev/null
elif [ -n "${BASH_VERSION:-}" ]; then
  __elnor_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  __elnor_shell=bash
else
  return 0 2>/dev/null || exit 0
fi
__elnor_root=$(cd "$__elnor_dir/../.." && pwd)
__elnor_node=${ELNOR_NODE:-node}
__elnor_cmd=
__elnor_start=

__elnor_now_ms() {
  if [ "$__elnor_shell" = zsh ]; then
    printf '%.0f' "$(( EPOCHREALTIME * 1000 ))"
  else
    local micros=${EPOCHREALTIME/[.,]/}
    printf '%s' "$(( micros / 1000 ))"
  fi
}

# Runs the reporter in the background, detached: the prompt never waits for the agent.
__elnor_run() {
  local errors=/dev/null
  [ "${ELNOR_SHELL_DEBUG:-0}" = 1 ] && errors=/dev/stderr
  ( "$__elnor_node" --import "file://$__elnor_root/node_modules/tsx/dist/loader.mjs" "$__elnor_dir/shell-report.ts" "$@" >/dev/null 2>"$errors" & )
}

__elnor_report() {
  local code=$1 line=$2
  [ "${ELNOR_SHELL_REPORT:-1}" = 0 ] && return
  case $line in
    "" | "npm run adapter"*) return ;; # nothing typed, or already reported by the wrapper itself
  esac
  local duration=0 started=${__elnor_start:-$(__elnor_now_ms)}
  [ -n "$__elnor_start" ] && duration=$(( $(__elnor_now_ms) - __elnor_start ))
  __elnor_run --exit "$code" --started-at "$started" --duration-ms "$duration" --cwd "$PWD" --shell "$__elnor_shell" -- "$line"
}

if [ "$__elnor_shell" = zsh ]; then
  __elnor_preexec() {
    __elnor_cmd=$1
    __elnor_start=$(__elnor_now_ms)
  }
  __elnor_precmd() {
    local code=$?
    [ -n "$__elnor_cmd" ] && __elnor_report "$code" "$__elnor_cmd"
    __elnor_cmd=
  }
  autoload -Uz add-zsh-hook
  add-zsh-hook preexec __elnor_preexec
  add-zsh-hook precmd __elnor_precmd
else
  # bash has no preexec: the DEBUG trap before the first command of a line stands in for it, and
  # PROMPT_COMMAND for precmd. The history number tells a new line from an empty Enter.
  __elnor_armed=
  __elnor_last_history=
  __elnor_preexec() {
    [ -n "$__elnor_armed" ] || return 0
    [ -n "${COMP_LINE:-}" ] && return 0
    case $BASH_COMMAND in __elnor_*) return 0 ;; esac
    __elnor_armed=
    local entry
    entry=$(HISTTIMEFORMAT='' builtin history 1)
    local number=${entry%%[!0-9 ]*}
    number=${number// /}
    if [ -z "$number" ] || [ "$number" = "$__elnor_last_history" ]; then
      __elnor_cmd=
      return 0
    fi
    __elnor_last_history=$number
    __elnor_cmd=$(printf '%s' "$entry" | sed 's/^ *[0-9]* *//')
    __elnor_start=$(__elnor_now_ms)
  }
  __elnor_status() {
    __elnor_code=$?
    __elnor_armed=
  }
  __elnor_precmd() {
    [ -n "$__elnor_cmd" ] && __elnor_report "$__elnor_code" "$__elnor_cmd"
    __elnor_cmd=
    __elnor_armed=1
  }
  trap '__elnor_preexec' DEBUG
  PROMPT_COMMAND="__elnor_status;${PROMPT_COMMAND:+$PROMPT_COMMAND;}__elnor_precmd"
fi

# Say "I am here" once, so the side panel shows this terminal's adapter as healthy.
__elnor_run --register
