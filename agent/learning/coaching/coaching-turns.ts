import type { CoachingTurn } from "../../../shared/learning/sessions/coaching";
import { isTerminalLearnSessionState } from "../../../shared/learning/sessions/learn-session";
import type { BrowserLease } from "../../execution/contract/executor-contract";
import { proposeControl } from "./coaching-matcher";
import { clearHighlight, readPage } from "./coaching-page";
import { end, queue, RECORDING, save, setTurn, sitesOf, type CoachingContext, type Runtime } from "./coaching-runtime";

const LEASE_WAIT_MS = 20_000;

/** The session is recording: borrow the tab, open the start page, propose the first step. */
export async function begin(context: CoachingContext, runtime: Runtime): Promise<void> {
  const { deps } = context;
  const session = deps.sessions.get(runtime.state.learn_session_id);
  if (deps.userTab === undefined)
    return end(context, runtime, "failed", "This agent cannot act in your browser, so it cannot take turns with you.", "ADAPTER_UNAVAILABLE");
  await save(context, runtime, { status: "opening", message: "Borrowing your tab." });
  const provider = deps.userTab.lease({
    dispatch_id: `coaching-${session.learn_session_id}`,
    allowed_domains: sitesOf(session),
    label: "taking turns with you (Coaching Agent)",
    coaching_session_id: session.learn_session_id,
  });
  let lease: BrowserLease;
  try {
    lease = await provider({ deadline: Date.now() + LEASE_WAIT_MS });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return end(
      context,
      runtime,
      "failed",
      `The assistant could not use a tab: ${error instanceof Error ? error.message.slice(0, 300) : "it was refused"}`,
      typeof code === "string" ? code : "ADAPTER_UNAVAILABLE",
    );
  }
  if (runtime.stop.signal.aborted) {
    await lease.release().catch(() => undefined);
    return;
  }
  runtime.lease = lease;
  lease.onStop?.((stop) => queue(context, runtime, () => end(context, runtime, "failed", `The tab was taken back: ${stop.message}.`, "TAB_TAKEN_BACK")));
  await lease.page.goto(runtime.state.start_url, { waitUntil: "domcontentloaded", timeout: 15_000 });
  await save(context, runtime, { status: "turns", message: "Taking turns." });
  await propose(context, runtime, 0);
}

/** The turn of step `index`: read the page, match the words, frame the control, wait. */
export async function propose(context: CoachingContext, runtime: Runtime, index: number): Promise<void> {
  const step = runtime.state.steps[index];
  const lease = runtime.lease;
  if (step === undefined || lease === undefined) {
    if (lease !== undefined) await end(context, runtime, "finished", "Every step had its turn. Finish to build the ability from what was done.");
    return;
  }
  const number = runtime.state.turns.length + 1;
  const base: CoachingTurn = {
    turn: number,
    step_index: index,
    words: step.words,
    ...(step.hint === undefined ? {} : { hint: step.hint }),
    status: "proposing",
    alternatives: [],
  };
  await setTurn(context, runtime, base);
  const { controls } = await readPage(lease);
  const { best, alternatives } = proposeControl(step, controls);
  if (best !== undefined) {
    await readPage(lease, {
      order: best.control.order,
      name: best.control.name,
      label: `About to: click '${best.target.name.slice(0, 60)}' (${best.target.role})`,
    }).catch(() => undefined);
  } else {
    await clearHighlight(lease.page).catch(() => undefined);
  }
  await setTurn(context, runtime, {
    ...base,
    status: "awaiting_answer",
    ...(best === undefined ? { outcome: "Nothing in this page fits these words: show me, or skip." } : { target: best.target }),
    alternatives: alternatives.map((entry) => entry.target),
  });
}

/** The session decides: recording starts the turns; stopped, cancelled or deleted ends them. */
export function followSessions(context: CoachingContext): void {
  const { deps, runtimes } = context;
  deps.sessions.onCurrentChange(() => {
    for (const runtime of runtimes.values()) {
      const session = deps.sessions.all().find((candidate) => candidate.learn_session_id === runtime.state.learn_session_id);
      const status = runtime.state.status;
      if (session !== undefined && RECORDING.has(session.state) && status === "waiting_for_capture") {
        runtime.state = { ...runtime.state, status: "opening" };
        queue(context, runtime, () => begin(context, runtime));
      } else if (status === "waiting_for_capture" && (session === undefined || isTerminalLearnSessionState(session.state))) {
        runtime.state = { ...runtime.state, status: "ended" };
        queue(context, runtime, () => end(context, runtime, "ended", "The session ended before it was started."));
      } else if (
        (session === undefined || !RECORDING.has(session.state)) &&
        (status === "opening" || status === "turns" || (status === "finished" && runtime.lease !== undefined))
      ) {
        runtime.stop.abort();
        queue(context, runtime, () =>
          end(
            context,
            runtime,
            status === "finished" ? "finished" : "ended",
            status === "finished" ? runtime.state.message : "The session ended before every step had its turn.",
          ),
        );
      }
    }
  });
}
