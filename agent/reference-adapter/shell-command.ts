import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { MASKED_ARGUMENT, maskCommandLine } from "../../shared/observation/command-masking";
import { watchesThisComputer } from "../../shared/learning/observed-actions/desktop-detail";
import { REPORTING_STATES } from "./capture-state";

/**
 * What the shell integration (shell-integration.sh) reports for one command line: the words of
 * the line, masked by shared/observation/command-masking before anything leaves the shell, as a
 * `terminal_command` event with its exit code — and only while a session captures this computer.
 */

/** The words of a command line as the shell would split them: quotes and backslashes honoured, no expansion. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === "\\" && i + 1 < line.length && /["\\$`]/.test(line[i + 1] as string)) word += line[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * Whether a command typed now belongs to the session: it captures, and it watches this computer
 * (the panel's "This computer") or names a desktop app family of its own. Otherwise nothing is sent.
 */
export function sessionTakesCommands(session: LearnSession | undefined, startedAt?: Date): session is LearnSession {
  if (session === undefined || !REPORTING_STATES.has(session.state)) return false;
  // Reported in the background: a command started before the session existed is not part of it.
  if (startedAt !== undefined && startedAt.toISOString() < session.created_at) return false;
  if (session.observation_mode !== "outside_agent" && session.observation_mode !== "mixed") return false;
  const family = session.target_app_family?.toLowerCase();
  return watchesThisComputer(session) || (family !== undefined && !["browser", "web", "chrome", "chromium"].includes(family));
}

export interface ShellCommand {
  line: string;
  exitCode: number;
  durationMs: number;
  /** The working directory; only its last folder is reported (a full path can name the user). */
  cwd: string;
  /** When it started (the event's time); the report itself comes later. */
  startedAt?: Date | undefined;
}

/**
 * What a person types into a command is content, like the text of a form field: the body of a
 * here-document (`cat <<EOF … EOF`) is not reported at all, only the line that opens it, and the
 * text of a here-string (`mysql <<< "…"`) is masked.
 */
export function withoutTypedContent(line: string): { line: string; hereDocument: boolean } {
  const opener = /<<-?\s*(['"]?)[A-Za-z_][A-Za-z0-9_]*\1/.exec(line);
  const newline = line.indexOf("\n");
  const hereDocument = opener !== null && newline > opener.index;
  const kept = hereDocument ? line.slice(0, newline) : line;
  return { line: kept, hereDocument };
}

export function shellCommandEvent(
  command: ShellCommand,
  context: { sessionId: string; eventId: string; now: Date; shell: string },
): ObservedActionEventWithDetail | undefined {
  // `PGPASSWORD=… psql -h db`: the program is psql; the assignments are shown, masked, in the label only.
  const typed = withoutTypedContent(command.line);
  const words = splitCommandLine(typed.line);
  // `<<< "text"` and `<<<text`: the text is what was typed into the command.
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === "<<<" && i + 1 < words.length) words[i + 1] = MASKED_ARGUMENT;
    else if (word.startsWith("<<<") && word.length > 3) words[i] = `<<<${MASKED_ARGUMENT}`;
  }
  const { program, args, assignments } = maskCommandLine(words);
  if (program === undefined) return undefined;
  const programName = program.slice(0, 120);
  const maskedArgs = args.slice(0, 64).map((arg) => arg.slice(0, 400));
  const cwdName =
    command.cwd
      .split("/")
      .filter((part) => part.length > 0)
      .at(-1) ?? "/";
  return ObservedActionEventWithDetailSchema.parse({
    event_id: context.eventId,
    learn_session_id: context.sessionId,
    adapter_kind: "terminal_command",
    app_family: programName.toLowerCase(),
    window_title: `Terminal (${context.shell}) — ${cwdName}`.slice(0, 200),
    action_label: `Run '${[...assignments, programName, ...maskedArgs].join(" ")}'${typed.hereDocument ? " (its here-document is not recorded)" : ""}`.slice(
      0,
      240,
    ),
    control_surface: "wrapper_script",
    redaction_mode: "mask_text",
    caused_state_change: false,
    created_at: (command.startedAt ?? context.now).toISOString(),
    schema_version: 1,
    desktop_detail: {
      program: programName,
      args: maskedArgs,
      exit_code: command.exitCode,
      duration_ms: Math.max(0, Math.round(command.durationMs)),
      cwd_name: cwdName.slice(0, 120),
    },
  });
}
