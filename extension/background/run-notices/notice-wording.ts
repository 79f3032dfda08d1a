import type { RunNotice } from "../../../shared/execution/run-notice";
import type { RunCaller } from "../../../shared/execution/run-contract";

/**
 * What a run notice says (issue #33), as Chrome shows it: a title, one line, and a small line
 * of context. Everything comes from the run record's own words (the ability's title, the step's
 * label, the checkpoints' goals, the failure's message), which never hold an input value.
 */
export interface NoticeText {
  title: string;
  message: string;
  contextMessage: string;
}

/** Chrome clips a notification's lines anyway; we cut first so a line ends where we choose. */
const MESSAGE_MAX = 200;
const TITLE_MAX = 80;

/** One line: whitespace and line breaks collapsed, cut with an ellipsis. */
export function oneLine(text: string, max = MESSAGE_MAX): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** Where the step happens: the ability's sites, as "a", "a or b", "a, b or c". */
export function sitesPhrase(sites: readonly string[]): string {
  const shown = sites.slice(0, 3);
  if (shown.length <= 1) return shown[0] ?? "";
  return `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}

function whoStarted(caller: RunCaller): string {
  switch (caller) {
    case "mcp":
      return "Started by your assistant (MCP)";
    case "api":
      return "Started by an app on this computer (local API)";
    case "side_panel":
      return "Started from the side panel";
    case "schedule":
      return "Started by its schedule";
  }
}

/** "<ability> wants to: <step> on <site>", with Do it / Don't as the notification's buttons. */
export function askText(notice: RunNotice): NoticeText {
  const step = notice.pending_confirmation?.step_label ?? "do a step with consequences";
  const where = sitesPhrase(notice.sites);
  return {
    title: "Allow this step?",
    message: oneLine(`${notice.ability_title} wants to: ${step}${where === "" ? "" : ` on ${where}`}`),
    contextMessage: oneLine(`${whoStarted(notice.caller)} · Do it, or Don't to stop the run`, 100),
  };
}

/** The same question again, after an answer that did not reach the agent. */
export function askAgainText(notice: RunNotice, why: string): NoticeText {
  return { ...askText(notice), contextMessage: oneLine(`Your answer did not reach your agent (${why}); answer again`, 100) };
}

/** The first sentence of a message, for a one-line notice. */
function firstSentence(text: string): string {
  const flat = oneLine(text, 1000);
  const end = flat.search(/[.!?](\s|$)/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** The checkpoint where a run stopped, in the person's words: the first that failed, else the first not reached. */
export function stoppedAt(notice: RunNotice): string | undefined {
  const failed = notice.checkpoints.find((checkpoint) => checkpoint.status === "failed");
  return (failed ?? notice.checkpoints.find((checkpoint) => checkpoint.status === "not_reached"))?.goal;
}

/** How a run ended, in one line: done, stopped at which checkpoint and why, not done (declined), interrupted. */
export function endText(notice: RunNotice): NoticeText {
  const ability = oneLine(notice.ability_title, TITLE_MAX - 12);
  const why = notice.failure === undefined ? "" : firstSentence(notice.failure.message);
  const contextMessage = whoStarted(notice.caller);
  switch (notice.state) {
    case "succeeded": {
      const reached = notice.checkpoints.filter((checkpoint) => checkpoint.status === "reached").length;
      const proof = reached === 0 ? "Finished." : `Finished: ${reached === 1 ? "its checkpoint was" : `all ${reached} checkpoints were`} reached.`;
      return { title: `Done: ${ability}`, message: proof, contextMessage };
    }
    case "failed": {
      const goal = stoppedAt(notice);
      return {
        title: `Stopped: ${ability}`,
        message: oneLine(goal === undefined ? why || "The run did not finish." : `Stopped at “${goal}”: ${why}`),
        contextMessage,
      };
    }
    case "cancelled": {
      const declined = notice.failure?.code === "CONFIRMATION_DECLINED" || notice.failure?.code === "CONFIRMATION_TIMED_OUT";
      return { title: `${declined ? "Not done" : "Stopped"}: ${ability}`, message: oneLine(why || "The run was stopped."), contextMessage };
    }
    case "interrupted":
      return { title: `Interrupted: ${ability}`, message: oneLine(why || "Your agent stopped while the run was going."), contextMessage };
    case "starting":
    case "running":
    case "needs_confirmation":
      return { title: ability, message: "Still going.", contextMessage };
  }
}

/**
 * Notification ids carry what a click needs, so a click that wakes a stopped worker can act at
 * once (the side panel must be opened inside the click): the kind, the run, the question, and
 * the window it was shown for. `|` is in no dispatch id (DISPATCH_ID_PATTERN) nor a uuid.
 */
export type NoticeId = { kind: "ask"; dispatchId: string; confirmationId: string; windowId?: number } | { kind: "end"; dispatchId: string; windowId?: number };

const PREFIX = "elnor-run";

export function noticeIdOf(id: NoticeId): string {
  const window = id.windowId === undefined ? "-" : String(id.windowId);
  return [PREFIX, id.kind, id.dispatchId, id.kind === "ask" ? id.confirmationId : "-", window].join("|");
}

export function parseNoticeId(text: string): NoticeId | undefined {
  const [prefix, kind, dispatchId, confirmationId, window] = text.split("|");
  if (prefix !== PREFIX || dispatchId === undefined || dispatchId === "" || confirmationId === undefined || window === undefined) return undefined;
  const windowId = /^\d+$/.test(window) ? Number(window) : undefined;
  const at = windowId === undefined ? {} : { windowId };
  if (kind === "ask" && confirmationId !== "-") return { kind, dispatchId, confirmationId, ...at };
  if (kind === "end") return { kind, dispatchId, ...at };
  return undefined;
}
