# elnor-learn shell integration (bash and zsh): reports each command you run in this terminal to
# the local agent while a learning session captures this computer ("This computer" in the side
# panel), and sends nothing for a command when no session does: no event, no question, no
# heartbeat (a presence heartbeat runs on its own timer, below). Arguments that look like secrets are masked
# (shared/observation/command-masking.ts) before they leave the terminal.
#
#   Add to ~/.bashrc or ~/.zshrc:   source /path/to/elnor-learn/agent/reference-adapter/shell-integration.sh
#
# Environment: ELNOR_AGENT_URL, ELNOR_TOKEN or ELNOR_MEMORY (as for `npm run adapter`);
# ELNOR_SHELL_REPORT=0 turns it off for this shell; ELNOR_SHELL_DEBUG=1 shows the reporter's errors;
# ELNOR_SHELL_PRESENCE_S sets the presence heartbeat's period (60 s; the agent forgets after 90 s).

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
__elnor_cwd=

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
  # Where it ran, not where it left the shell (`cd shop` ran in the folder above shop).
  __elnor_run --exit "$code" --started-at "$started" --duration-ms "$duration" --cwd "${__elnor_cwd:-$PWD}" --shell "$__elnor_shell" -- "$line"
}

if [ "$__elnor_shell" = zsh ]; then
  __elnor_preexec() {
    # A line kept out of history on purpose (a leading space with HIST_IGNORE_SPACE) is not reported either.
    if [[ -o histignorespace && $1 == [[:space:]]* ]]; then
      __elnor_cmd=
      return
    fi
    __elnor_cmd=$1
    __elnor_cwd=$PWD
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
  # bash has no preexec: the DEBUG trap before the first command of a line stands in for it (the
  # start time and folder), and PROMPT_COMMAND for precmd. The line itself comes from history at
  # the prompt: a new history number is a new line, so an empty Enter is nothing, and a line that
  # starts in a subshell — `(cd x && make)`, where the DEBUG trap does not reach — is still
  # reported. A line kept out of history on purpose (HISTCONTROL=ignorespace) is not; one kept out
  # as a repeat (ignoredups) is, as the command it repeats.
  __elnor_armed=
  __elnor_first=
  __elnor_history_number() {
    local entry
    entry=$(HISTTIMEFORMAT='' builtin history 1)
    local number=${entry%%[!0-9 ]*}
    printf '%s' "${number// /}"
  }
  __elnor_last_history=$(__elnor_history_number)
  __elnor_preexec() {
    [ -n "$__elnor_armed" ] || return 0
    [ -n "${COMP_LINE:-}" ] && return 0
    case $BASH_COMMAND in __elnor_*) return 0 ;; esac
    __elnor_armed=
    __elnor_first=$BASH_COMMAND
    __elnor_cwd=$PWD
    __elnor_start=$(__elnor_now_ms)
  }
  __elnor_status() {
    __elnor_code=$?
    __elnor_armed=
  }
  __elnor_precmd() {
    local number entry
    number=$(__elnor_history_number)
    entry=$(HISTTIMEFORMAT='' builtin history 1 | sed '1s/^ *[0-9]* *//')
    if [ -n "$number" ] && [ "$number" != "$__elnor_last_history" ]; then
      __elnor_last_history=$number
      __elnor_report "$__elnor_code" "$entry"
    elif [ -n "$__elnor_start" ] && [ -n "$__elnor_first" ] && [ "${entry#"$__elnor_first"}" != "$entry" ]; then
      __elnor_report "$__elnor_code" "$entry"
    fi
    __elnor_start=
    __elnor_cwd=
    __elnor_first=
    __elnor_armed=1
  }
  trap '__elnor_preexec' DEBUG
  PROMPT_COMMAND="__elnor_status;${PROMPT_COMMAND:+$PROMPT_COMMAND;}__elnor_precmd"
fi

# Say "I am here" now and every ELNOR_SHELL_PRESENCE_S seconds (60) while this shell lives, so the
# side panel shows this terminal's adapter as healthy and Start finds it. The timer knows nothing of
# what is typed: a command is reported only while a session captures this computer, and otherwise
# nothing at all leaves the terminal for it (shell-report.ts, capture-state.ts).
__elnor_presence() {
  local shell_pid=$1 every=$2 waited
  while kill -0 "$shell_pid" 2>/dev/null; do
    __elnor_run --register
    waited=0
    # In steps of 5 s, so the loop ends soon after its shell does.
    while [ "$waited" -lt "$every" ] && kill -0 "$shell_pid" 2>/dev/null; do
      sleep 5
      waited=$(( waited + 5 ))
    done
  done
}
if [ "${ELNOR_SHELL_REPORT:-1}" != 0 ]; then
  ( __elnor_presence $$ "${ELNOR_SHELL_PRESENCE_S:-60}" >/dev/null 2>&1 & )
fi
