import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import type { AgentCall } from "./ready-proposal";

/**
 * A small mail site for standing grants (issue #33): from the start page, "Write a message" leads
 * to a form with a Recipient field whose "Send message" posts to `/send`, and "Clean up" to a form
 * with a Message number field whose "Delete message" posts to `/delete`. The server counts what it
 * really did and keeps each request's body in memory only, so a test proves a step ran once per run.
 */
export type MailAction = "send" | "delete";

export interface MailFixtureSite {
  origin: string;
  host: string;
  /** POSTs to /send or /delete the site received. */
  count(action: MailAction): number;
  /** Every request as the site saw it (method, path, body). */
  requests: Array<{ method: string; path: string; body: string }>;
  close(): Promise<void>;
}

const PAGES: Record<MailAction, { path: string; link: string; title: string; field: string; fieldId: string; button: string; done: string; donePath: string }> =
  {
    send: {
      path: "/compose",
      link: "Write a message",
      title: "Compose — Mail",
      field: "Recipient",
      fieldId: "recipient",
      button: "Send message",
      done: "Message sent",
      donePath: "/sent",
    },
    delete: {
      path: "/clean-up",
      link: "Clean up",
      title: "Clean up — Mail",
      field: "Message number",
      fieldId: "number",
      button: "Delete message",
      done: "Message deleted",
      donePath: "/deleted",
    },
  };

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;
const START = page("Mail", `<h1>Your mail</h1><a id="compose-link" href="/compose">Write a message</a> <a id="clean-link" href="/clean-up">Clean up</a>`);
const FORM = (action: MailAction) => {
  const p = PAGES[action];
  return page(
    p.title,
    `<h1>${p.link}</h1><form method="post" action="/${action}" aria-label="${p.link}"><label for="${p.fieldId}">${p.field}</label><input id="${p.fieldId}" name="${p.fieldId}" type="text"><button id="${action}" type="submit">${p.button}</button></form>`,
  );
};
const DONE = (action: MailAction) => page(`${PAGES[action].done} — Mail`, `<h1>${PAGES[action].done}</h1><p>Done.</p>`);

export async function serveMailFixtureSite(): Promise<MailFixtureSite> {
  const counts: Record<MailAction, number> = { send: 0, delete: 0 };
  const requests: MailFixtureSite["requests"] = [];
  const routes = new Map<string, string>([["/start", START]]);
  for (const action of ["send", "delete"] as const) {
    routes.set(PAGES[action].path, FORM(action));
    routes.set(PAGES[action].donePath, DONE(action));
  }
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const pathname = new URL(request.url ?? "/", "http://fixture").pathname;
      requests.push({ method: request.method ?? "GET", path: pathname, body });
      const action = pathname === "/send" ? "send" : pathname === "/delete" ? "delete" : undefined;
      if (request.method === "POST" && action !== undefined) {
        counts[action] += 1;
        response.writeHead(303, { location: PAGES[action].donePath }).end();
        return;
      }
      const html = routes.get(pathname);
      if (html === undefined) response.writeHead(404).end();
      else response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    count: (action) => counts[action],
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha = (snapshot: PageSnapshot) => createHash("sha256").update(canonicalJson(snapshot)).digest("hex");
const snapshotOf = (url: string, title: string, heading: string, buttons: string[]): PageSnapshot => ({
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

/**
 * A demonstration of one action on the site, as the extension reports it (the typed value masked):
 * its link followed from the start page, its field filled, its button pressed, its result shown.
 * `improve` demonstrates it again for the installed skill's next version. Installed privately
 * through the side panel's routes; resolves with the ability id.
 */
export async function installMailAbility(call: AgentCall, site: MailFixtureSite, action: MailAction, improve?: string): Promise<string> {
  const p = PAGES[action];
  const created = await call(
    "POST",
    "/api/learn/sessions",
    improve === undefined
      ? { entry_mode: "demonstrating_skill" }
      : { entry_mode: "improving_existing_skill", target_kind: "existing_skill", target_skill_id: improve },
  );
  const sessionId = created.body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  if (improve === undefined)
    await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: action === "send" ? "Send a message" : "Delete a message" });
  const start = snapshotOf(`${site.origin}/start`, "Mail", "Your mail", []);
  const form = snapshotOf(`${site.origin}${p.path}`, p.title, p.link, [p.button]);
  const done = snapshotOf(`${site.origin}${p.donePath}`, `${p.done} — Mail`, p.done, []);
  const base = { learn_session_id: sessionId, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const detail = { page_url: `${site.origin}${p.path}`, page_title: p.title };
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: `Click '${p.link}'`,
      created_at: at(0),
      before_state_ref: `snapshot:${sha(start)}`,
      after_state_ref: `snapshot:${sha(form)}`,
      browser_detail: {
        page_url: `${site.origin}/start`,
        page_title: "Mail",
        target_name: p.link,
        target_role: "link",
        target_tag: "a",
        selectors: [[action === "send" ? "#compose-link" : "#clean-link"], [`aria/${p.link}[role="link"]`]],
        dom_event_kind: "click",
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: `Fill '${p.field}'`,
      created_at: at(1),
      browser_detail: {
        ...detail,
        target_name: p.field,
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [[`#${p.fieldId}`], [`aria/${p.field}[role="textbox"]`]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: `Click '${p.button}'`,
      created_at: at(2),
      before_state_ref: `snapshot:${sha(form)}`,
      after_state_ref: `snapshot:${sha(done)}`,
      browser_detail: {
        ...detail,
        target_name: p.button,
        target_role: "button",
        target_tag: "button",
        selectors: [[`#${action}`], [`aria/${p.button}[role="button"]`]],
        dom_event_kind: "click",
      },
    },
  ];
  await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [start, form, done].map((snapshot) => ({ sha256: sha(snapshot), learn_session_id: sessionId, snapshot })),
    schema_version: 1,
  });
  await call("POST", `/api/learn/sessions/${sessionId}/stop`);
  const proposalId = (await call("POST", `/api/learn/sessions/${sessionId}/generate-proposal`)).body.proposal_id as string;
  if ((await call("GET", `/api/learn/sessions/${sessionId}/detail`)).body.state === "awaiting_questions") {
    const questions = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body.questions as Array<{ question_id: string; required: boolean }>;
    await call("POST", `/api/learn/sessions/${sessionId}/answer-questions`, {
      answers: questions
        .filter((question) => question.required)
        .map((question) => ({ question_id: question.question_id, answer_text: `The heading "${p.done}" appears` })),
    });
  }
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  if (installed.status !== 200) throw new Error(`install failed: ${JSON.stringify(installed.body)}`);
  return installed.body.ability_id as string;
}
