import type { RunRecord } from "../../shared/execution/run-contract";
import type { SourceTrace } from "../../shared/learning/sessions/trace-seed";
import { siteFromUrl } from "../../shared/observation/site-allowlist";

/**
 * Learn From This (§0B.6): the trace a new session will start from, as the set-up shows it before
 * the session exists. The agent reads the trace itself (`source_trace`); this is what the person sees.
 */
export interface SetupSeed {
  source: SourceTrace;
  /** "Failed run of Send a message" */
  title: string;
  /** What comes along, in words. */
  detail: string;
  /** Sites the new session may watch (the run's skill's sites, or the session's allow-list). */
  sites: string[];
}

const RUN_TITLE: Record<RunRecord["state"], string> = {
  starting: "Run",
  running: "Run",
  needs_confirmation: "Run",
  succeeded: "Run",
  failed: "Failed run",
  cancelled: "Stopped run",
  interrupted: "Interrupted run",
};

/** Whether a run can be learned from: it has ended and did at least one step. */
export function canLearnFromRun(run: RunRecord): boolean {
  return run.completed_at !== undefined && run.steps.some((step) => step.result === "passed" && !step.step_id.startsWith("setup-"));
}

/**
 * A run-spec site (`host:port`) as the allow-list entry the set-up would make from a page there:
 * the origin when the run saw a page of that host, or for a loopback host (served over http);
 * otherwise the host as it is (both schemes).
 */
function siteEntryOf(site: string, run: RunRecord): string {
  const seen = run.failure?.page_seen?.url;
  if (seen !== undefined) {
    try {
      const url = new URL(seen);
      if (url.host === site) return siteFromUrl(seen) ?? site;
    } catch {
      // Not a URL: fall through.
    }
  }
  if (/^(127\.0\.0\.1|localhost|\[::1\]):\d+$/.test(site)) return `http://${site}`;
  return site;
}

export function seedOfRun(run: RunRecord, sites: readonly string[]): SetupSeed {
  const done = run.steps.filter((step) => step.result === "passed" && !step.step_id.startsWith("setup-")).length;
  const failed = run.steps.find((step) => step.result === "failed");
  const checkpoint = run.checkpoints.find((candidate) => candidate.status === "failed");
  // Placeholders read as the input's name: a run never holds the values.
  const named = (text: string) => text.replace(/\{\{([a-z0-9_]+)\}\}/g, "“$1”");
  const stopped =
    failed !== undefined
      ? ` It stopped at "${named(failed.label)}".`
      : checkpoint !== undefined
        ? ` It stopped where ${named(checkpoint.goal)} no longer held.`
        : run.failure !== undefined
          ? " It stopped before the end."
          : "";
  return {
    source: { kind: "run", dispatch_id: run.dispatch_id },
    title: `${RUN_TITLE[run.state]} of ${run.ability_title}`,
    detail: `Starts from the ${done} step${done === 1 ? "" : "s"} the run did and the pages it saw (never the values it typed).${stopped} Show the rest; what you do is added to it.`,
    sites: sites.map((site) => siteEntryOf(site, run)),
  };
}

export function seedOfSession(session: { learn_session_id: string; title?: string | undefined; created_at: string }, sites: readonly string[]): SetupSeed {
  return {
    source: { kind: "learn_session", learn_session_id: session.learn_session_id },
    title: session.title ?? `Session of ${session.created_at.slice(0, 16).replace("T", " ")}`,
    detail: "Starts from that session's steps, pages and snapshots (never the values typed in it). Show more, or stop at once to propose it as it is.",
    sites: [...sites],
  };
}

/** Learn From This on a learning receipt (§0B.6): the session the receipt was written for, named by the receipt. */
export function seedOfReceipt(
  receipt: { receipt_id: string; created_at: string },
  label: string,
  session: { title?: string | undefined } | undefined,
  sites: readonly string[],
): SetupSeed {
  const when = receipt.created_at.slice(0, 16).replace("T", " ");
  return {
    source: { kind: "receipt", receipt_id: receipt.receipt_id },
    title: `${label} (${when})${session?.title === undefined ? "" : ` of ${session.title}`}`,
    detail:
      "Starts from the steps, pages and snapshots of the session this receipt was written for (never the values typed in it). Show more, or stop at once to propose it as it is.",
    sites: [...sites],
  };
}

/** Use as Example (§0B.6): the example chosen, as the picker shows it. */
export interface ExampleChoice {
  source: SourceTrace;
  title: string;
  /** A request the example answers, to start the list with. */
  suggestion: string;
}

export function exampleOfRun(run: RunRecord): ExampleChoice {
  return {
    source: { kind: "run", dispatch_id: run.dispatch_id },
    title: `${RUN_TITLE[run.state]} of ${run.ability_title}`,
    suggestion: run.ability_title.toLowerCase(),
  };
}

export function exampleOfSession(session: { learn_session_id: string; title?: string | undefined; created_at: string }): ExampleChoice {
  const title = session.title ?? `Session of ${session.created_at.slice(0, 16).replace("T", " ")}`;
  return { source: { kind: "learn_session", learn_session_id: session.learn_session_id }, title, suggestion: session.title?.toLowerCase() ?? "" };
}

/** The picker's requests, one a line: 1 to 5 of 3 to 240 characters, or what to fix. */
export function exampleRequestsOf(text: string): { ok: true; requests: string[] } | { ok: false; problem: string } {
  const requests = [
    ...new Set(
      text
        .split("\n")
        .map((line) => line.trim().replace(/\s+/g, " "))
        .filter((line) => line !== ""),
    ),
  ];
  if (requests.length === 0) return { ok: false, problem: "Write at least one request this example answers, as someone would ask it." };
  if (requests.length > 5) return { ok: false, problem: "At most five requests: keep the ones that say it best." };
  const bad = requests.find((request) => request.length < 3 || request.length > 240);
  if (bad !== undefined)
    return { ok: false, problem: `“${bad.slice(0, 40)}” is too ${bad.length < 3 ? "short" : "long"} for a request (3 to 240 characters).` };
  return { ok: true, requests };
}
