import { randomUUID } from "node:crypto";

/** One HTTP call to a test agent: an `inject` or a real request, with the pairing token. */
export type AgentCall = (method: "GET" | "POST", url: string, payload?: unknown) => Promise<{ status: number; body: Record<string, any> }>;

/** An `AgentCall` over real HTTP to a listening agent at `baseUrl`, with its pairing token. */
export function httpAgentCall(baseUrl: string, token: string): AgentCall {
  return async (method, route, payload) => {
    const response = await fetch(`${baseUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { "content-type": "application/json" }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
}

/** An observed click on "Export" on an invoices page at `origin`, as the extension reports it (ids fresh). */
export function exportClick(sessionId: string, createdAt = new Date().toISOString(), origin = "http://127.0.0.1:8123") {
  return {
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    action_label: "Click 'Export'",
    redaction_mode: "mask_text",
    created_at: createdAt,
    schema_version: 1,
    browser_detail: {
      page_url: `${origin}/invoices`,
      page_title: "Invoices",
      target_name: "Export",
      target_role: "button",
      selectors: [["#export"], ["aria/Export"]],
      dom_event_kind: "click",
    },
  };
}

/** Where the demonstration happened and what the person says shows it worked (readyProposal). */
export interface ReadyProposalOptions {
  /** The invoices page's origin; no server needs to answer there unless the proposal is rehearsed. */
  origin?: string;
  /** The answer to each required question ("what shows this worked"). */
  answer?: string;
  /** A test policy of `live_read_safe_write` on the origin's host, set before the proposal is made (a dry run leaves the click out). */
  liveTestPolicy?: boolean;
}

/**
 * A one-click demonstration ("Click 'Export'") compiled into a proposal that is ready for review,
 * through the same routes the side panel and the extension use; questions the compiler asks are
 * answered with an observable outcome.
 */
export async function readyProposal(
  call: AgentCall,
  goal = "Export the monthly invoices",
  options: ReadyProposalOptions = {},
): Promise<{ sessionId: string; proposalId: string }> {
  const { origin, answer = "The export file appears in the downloads list", liveTestPolicy = false } = options;
  const created = await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" });
  const sessionId = created.body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: goal });
  const event = exportClick(sessionId, undefined, origin);
  await call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 });
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  if (liveTestPolicy) {
    const host = new URL(event.browser_detail.page_url).host;
    await call("POST", `/api/learn/sessions/${sessionId}/set-test-policy`, {
      test_policy: { policy_id: randomUUID(), mode: "live_read_safe_write", allowed_domains: [host], forbid_external_send: true, schema_version: 1 },
    });
  }
  const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
  if ((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state === "awaiting_questions") {
    const questions = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.questions as Array<{
      question_id: string;
      question_text: string;
      required: boolean;
    }>;
    await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: questions.filter((question) => question.required).map((question) => ({ question_id: question.question_id, answer_text: answer })),
    });
  }
  const state = (await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state;
  if (state !== "ready_for_review") throw new Error(`the demonstration did not reach ready_for_review (state ${String(state)})`);
  return { sessionId, proposalId };
}
