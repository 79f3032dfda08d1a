import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import type { AgentCall } from "./ready-proposal";

/**
 * A small shop for runs of an installed ability (issue #21): a contact form with a message and a
 * secret access code, whose "Send message" posts to `/send` and lands on "Message sent". The
 * server counts the sends a run really made and keeps every request body (in memory only), so a
 * test can prove a committing step was never done without confirmation.
 */
export interface RunFixtureSite {
  origin: string;
  host: string;
  /** POSTs to /send the site received. */
  sends(): number;
  /** Every request as the site saw it: method, path and body. */
  requests: Array<{ method: string; path: string; body: string }>;
  /** The "Message sent" page says something else from now on (a checkpoint that no longer holds). */
  breakConfirmation(broken: boolean): void;
  /** The contact page answers this much later (a run that is still going when the agent is killed). */
  slowDown(ms: number): void;
  /** The contact page's script posts to another origin from now on (a site that sends elsewhere). */
  leakTo(origin: string | undefined): void;
  /** The send button gets another id and wording (a redesign every recorded selector misses). */
  moveSendButton(moved: boolean): void;
  close(): Promise<void>;
}

const CONTACT = (
  leak: string | undefined,
  moved: boolean,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contact — Run Shop</title></head><body><main>
<h1>Contact us</h1>
<form method="post" action="/send" aria-label="Contact">
<label for="message">Message</label><input id="message" name="message" type="text">
<label for="code">Access code</label><input id="code" name="code" type="password">
${moved ? '<p>Ready when you are.</p><button id="submit-message" class="primary" type="submit">Send message now</button>' : '<button id="send" type="submit">Send message</button>'}
</form></main>${leak === undefined ? "" : `<script>fetch(${JSON.stringify(`${leak}/collect`)}, { method: "POST", mode: "no-cors", body: "visit" }).catch(() => undefined);</script>`}</body></html>`;
const START = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Run Shop</title></head><body><main><h1>Welcome to the shop</h1><a id="contact-link" href="/contact">Contact us</a></main></body></html>`;
const SENT = (broken: boolean) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${broken ? "Error" : "Sent"} — Run Shop</title></head><body><main><h1>${broken ? "Something went wrong" : "Message sent"}</h1><p>Thank you.</p><button type="button">Back to the shop</button></main></body></html>`;

export async function serveRunFixtureSite(): Promise<RunFixtureSite> {
  let sends = 0;
  let broken = false;
  let delayMs = 0;
  let leak: string | undefined;
  let moved = false;
  const requests: RunFixtureSite["requests"] = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const pathname = new URL(request.url ?? "/", "http://fixture").pathname;
      requests.push({ method: request.method ?? "GET", path: pathname, body });
      if (request.method === "POST" && pathname === "/send") {
        sends += 1;
        response.writeHead(303, { location: "/sent" }).end();
        return;
      }
      const html = pathname === "/start" ? START : pathname === "/contact" ? CONTACT(leak, moved) : pathname === "/sent" ? SENT(broken) : undefined;
      if (html === undefined) {
        response.writeHead(404).end();
        return;
      }
      const send = () => response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
      if (pathname === "/contact" && delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    sends: () => sends,
    requests,
    breakConfirmation: (value) => {
      broken = value;
    },
    slowDown: (ms) => {
      delayMs = ms;
    },
    leakTo: (origin) => {
      leak = origin;
    },
    moveSendButton: (value) => {
      moved = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

export interface ContactAbilityOptions {
  /** With the access code (a secret input; the default) or without it. */
  secret?: boolean;
  /** The ability id of an installed skill this demonstration improves: its next version is installed. */
  improve?: string;
  /** The goal marked in the demonstration (it names the skill). */
  goal?: string;
}

/**
 * A demonstration on the site, as the extension reports it (values masked at the source): "Contact
 * us" followed from the shop's start page, a message typed, an access code typed, "Send message" clicked, "Message sent" shown. Compiled,
 * installed privately through the same routes the side panel uses; resolves with the ability id.
 */
export async function installContactAbility(
  call: AgentCall,
  site: RunFixtureSite,
  options: ContactAbilityOptions = {},
): Promise<{ abilityId: string; proposalId: string; sessionId: string }> {
  const { secret = true, improve, goal = "Send a message to the shop" } = options;
  const created = await call(
    "POST",
    "/api/learn/sessions",
    improve === undefined
      ? { entry_mode: "demonstrating_skill" }
      : { entry_mode: "improving_existing_skill", target_kind: "existing_skill", target_skill_id: improve },
  );
  const sessionId = created.body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: goal });
  const page = (url: string, title: string, heading: string, buttons: string[]): PageSnapshot => ({
    url,
    title,
    headings: [{ level: 1, text: heading }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons,
    links: [],
    status_messages: [],
    schema_version: 1,
  });
  const start = page(`${site.origin}/start`, "Run Shop", "Welcome to the shop", []);
  const contact = page(`${site.origin}/contact`, "Contact — Run Shop", "Contact us", ["Send message"]);
  const sent = page(`${site.origin}/sent`, "Sent — Run Shop", "Message sent", ["Back to the shop"]);
  const base = { learn_session_id: sessionId, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${site.origin}/contact`, page_title: "Contact — Run Shop" };
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Contact us'",
      created_at: at(0),
      before_state_ref: `snapshot:${sha(start)}`,
      after_state_ref: `snapshot:${sha(contact)}`,
      browser_detail: {
        page_url: `${site.origin}/start`,
        page_title: "Run Shop",
        target_name: "Contact us",
        target_role: "link",
        target_tag: "a",
        selectors: [["#contact-link"], ['aria/Contact us[role="link"]']],
        dom_event_kind: "click",
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Message'",
      created_at: at(1),
      browser_detail: {
        ...detail,
        target_name: "Message",
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [["#message"], ['aria/Message[role="textbox"]']],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    // Without a secret: the message alone (a skill that may run on a schedule, issue #33).
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Access code'",
      created_at: at(2),
      browser_detail: {
        ...detail,
        target_name: "Access code",
        target_role: "textbox",
        target_tag: "input",
        input_type: "password",
        selectors: [["#code"]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short", reason: "password field" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Send message'",
      created_at: at(3),
      before_state_ref: `snapshot:${sha(contact)}`,
      after_state_ref: `snapshot:${sha(sent)}`,
      browser_detail: {
        ...detail,
        target_name: "Send message",
        target_role: "button",
        target_tag: "button",
        selectors: [["#send"], ['aria/Send message[role="button"]']],
        dom_event_kind: "click",
      },
    },
  ].filter((event) => secret || event.action_label !== "Fill 'Access code'");
  await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [start, contact, sent].map((snapshot) => ({ sha256: sha(snapshot), learn_session_id: sessionId, snapshot })),
    schema_version: 1,
  });
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
  const state = (await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state;
  if (state === "awaiting_questions") {
    const questions = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.questions as Array<{ question_id: string; required: boolean }>;
    await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: questions
        .filter((question) => question.required)
        .map((question) => ({ question_id: question.question_id, answer_text: 'The heading "Message sent" appears' })),
    });
  }
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  if (installed.status !== 200) throw new Error(`install failed: ${JSON.stringify(installed.body)}`);
  return { abilityId: installed.body.ability_id as string, proposalId, sessionId };
}
