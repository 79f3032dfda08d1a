import { randomUUID } from "node:crypto";

export interface ApiAnswer {
  status: number;
  body: any;
}

export interface ApiClient {
  call(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<ApiAnswer>;
  /** Like call, but a status other than `expected` throws with the answer in the message. */
  ok(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, expected?: number): Promise<any>;
}

/** A well-behaved local client (a desktop adapter): loopback Host, bearer token, JSON. */
export function apiClient(baseUrl: string, token: string): ApiClient {
  const call: ApiClient["call"] = async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text.length === 0 ? undefined : JSON.parse(text) };
  };
  return {
    call,
    async ok(method, path, body, expected = 200) {
      const answer = await call(method, path, body);
      if (answer.status !== expected)
        throw new Error(`${method} ${path} answered ${answer.status}, not ${expected}: ${JSON.stringify(answer.body).slice(0, 600)}`);
      return answer.body;
    },
  };
}

/** One click on an allowed page, as the extension would send it (already masked, no typed value). */
export function clickEvent(sessionId: string, label: string, at = new Date()): Record<string, unknown> {
  return {
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: "browser_dom",
    action_label: `Click '${label}'`,
    redaction_mode: "mask_text",
    created_at: at.toISOString(),
    schema_version: 1,
    browser_detail: {
      page_url: "http://127.0.0.1:8123/invoices",
      page_title: "Invoices",
      target_name: label,
      target_role: "button",
      selectors: [[`#${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`], [`aria/${label}`]],
      dom_event_kind: "click",
    },
  };
}

/** A session that is capturing: created, started, its goal marked. */
export async function startCapturingSession(api: ApiClient, goal: string): Promise<string> {
  const created = await api.ok("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" }, 201);
  const sessionId = created.session.learn_session_id as string;
  await api.ok("POST", `/api/learn/sessions/${sessionId}/start`);
  await api.ok("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: goal });
  return sessionId;
}

/**
 * A demonstration compiled into a proposal that is ready for review, through the HTTP API only
 * (the same path as agent/abilities/ability-routes.test.ts takes through inject).
 */
export async function prepareReadyProposal(api: ApiClient, goal: string): Promise<{ sessionId: string; proposalId: string }> {
  const sessionId = await startCapturingSession(api, goal);
  const ack = await api.ok("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events: [clickEvent(sessionId, "Export")],
    snapshots: [],
    schema_version: 1,
  });
  if (ack.accepted.length !== 1) throw new Error(`the demonstration's event was not accepted: ${JSON.stringify(ack)}`);
  await api.ok("POST", `/api/learn/sessions/${sessionId}/stop`);
  const proposalId = (await api.ok("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).proposal_id as string;
  if ((await api.ok("GET", `/api/learn/sessions/${sessionId}/detail`)).state === "awaiting_questions") {
    const questions = (await api.ok("GET", `/api/learn/proposals/${proposalId}/detail`)).questions as Array<{ question_id: string; question_text: string }>;
    await api.ok("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: questions
        .filter((question) => !question.question_text.endsWith("(optional)"))
        .map((question) => ({ question_id: question.question_id, answer_text: "The export file appears in the downloads list" })),
    });
  }
  const state = (await api.ok("GET", `/api/learn/sessions/${sessionId}/detail`)).state as string;
  if (state !== "ready_for_review") throw new Error(`the prepared proposal's session is ${state}, not ready_for_review`);
  return { sessionId, proposalId };
}

/** An installed ability (learned from its own, finished session) with one checkpoint receipt. */
export interface InstalledWorld {
  sessionId: string;
  proposalId: string;
  abilityId: string;
  dispatchId: string;
}

export async function prepareInstalledAbility(api: ApiClient): Promise<InstalledWorld> {
  const { sessionId, proposalId } = await prepareReadyProposal(api, "Archive the old reports");
  const installed = await api.ok("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  const abilityId = installed.ability_id as string;
  const dispatchId = "dispatch-fuzz-1";
  await api.ok("POST", "/api/bridge/verify-checkpoint", {
    dispatch_id: dispatchId,
    ability_id: abilityId,
    checkpoint_id: "cp-01",
    status: "reached",
    evidence: "The archive is listed",
    schema_version: 1,
  });
  return { sessionId, proposalId, abilityId, dispatchId };
}

/** A session that is capturing, with two events already stored (so trims and exclusions have targets). */
export async function prepareCapturingSession(api: ApiClient): Promise<{ sessionId: string; eventIds: string[] }> {
  const sessionId = await startCapturingSession(api, "Export the monthly invoices");
  const events = [clickEvent(sessionId, "Invoices"), clickEvent(sessionId, "Export", new Date(Date.now() + 1))];
  const ack = await api.ok("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 });
  if (ack.accepted.length !== 2) throw new Error(`the capturing session's events were not accepted: ${JSON.stringify(ack)}`);
  return { sessionId, eventIds: events.map((event) => event.event_id as string) };
}
