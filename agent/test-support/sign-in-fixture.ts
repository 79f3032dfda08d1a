import { createHash, randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { canonicalJson, type PageSnapshot } from "../../shared/observation/page-snapshot";
import type { AgentCall } from "./ready-proposal";

/**
 * A small server-rendered notes app behind a sign-in (issue #35), our own code: `/login` with a
 * username, a password and a CSRF token, a session cookie set on success, `/home` listing the
 * person's notes with "Log out", `/new` to write one, POST `/notes` that saves and redirects. An
 * open `/login` in a signed-in browser says so (no form), as many wikis do. The server counts the
 * sign-ins it accepted and keeps the notes (in memory), so a test checks a run in the app's state.
 */
export interface SignInFixture {
  origin: string;
  host: string;
  /** Sign-ins accepted (POST /login with the right password). */
  signIns(): number;
  /** Notes saved, with who saved them. */
  notes(): Array<{ owner: string; title: string }>;
  /** Every session ends (the server forgets them): a browser's cookie no longer signs it in. */
  expireSessions(): void;
  close(): Promise<void>;
}

export const FIXTURE_USER = "alice";

const html = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} — Notes</title></head><body>${body}</body></html>`;
const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
const header = (user: string) =>
  `<header><p>Signed in as <a href="/home">${escape(user)}</a></p><nav><a href="/home">My notes</a> <a id="logout" href="/logout">Log out</a></nav></header>`;

export async function serveSignInFixture(password: string): Promise<SignInFixture> {
  const sessions = new Map<string, string>();
  const tokens = new Set<string>();
  const notes: Array<{ owner: string; title: string }> = [];
  let signIns = 0;
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://fixture");
      const sid = /(?:^|;\s*)sid=([a-f0-9]+)/.exec(request.headers.cookie ?? "")?.[1];
      const user = sid === undefined ? undefined : sessions.get(sid);
      const form = new URLSearchParams(body);
      const send = (status: number, page: string) =>
        response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page);
      const redirect = (to: string, cookie?: string) =>
        response.writeHead(303, { location: to, ...(cookie === undefined ? {} : { "set-cookie": cookie }) }).end();
      const loginPage = (message = "") => {
        const token = randomBytes(12).toString("hex");
        tokens.add(token);
        return html(
          "Log in",
          `<main><h1>Log in</h1>${message ? `<p role="alert">${message}</p>` : ""}<form method="post" action="/login" aria-label="Log in">
<input type="hidden" name="csrf" value="${token}">
<label for="user">Username</label><input id="user" name="username" type="text" autocomplete="username">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">
<button id="login" type="submit">Log in</button></form></main>`,
        );
      };
      if (url.pathname === "/login" && request.method === "POST") {
        const token = form.get("csrf") ?? "";
        if (!tokens.delete(token)) return send(403, loginPage("The form expired; try again."));
        if (form.get("username") !== FIXTURE_USER || form.get("password") !== password) return send(200, loginPage("Wrong username or password."));
        const id = randomBytes(16).toString("hex");
        sessions.set(id, FIXTURE_USER);
        signIns += 1;
        return redirect("/home", `sid=${id}; Path=/; HttpOnly; SameSite=Lax`);
      }
      if (url.pathname === "/login") {
        if (user !== undefined) return send(200, html("Log in", `${header(user)}<main><h1>Log in</h1><p>You are already signed in.</p></main>`));
        return send(200, loginPage());
      }
      if (url.pathname === "/logout") {
        if (sid !== undefined) sessions.delete(sid);
        return redirect("/login", "sid=; Path=/; Max-Age=0");
      }
      if (user === undefined) return redirect("/login");
      if (url.pathname === "/home") {
        const mine = notes.filter((note) => note.owner === user);
        return send(
          200,
          html(
            "My notes",
            `${header(user)}<main><h1>My notes</h1>${url.searchParams.get("saved") ? '<p role="status">Note saved</p>' : ""}<ul aria-label="Notes">${mine.map((note) => `<li>${escape(note.title)}</li>`).join("")}</ul><a id="new" href="/new">New note</a></main>`,
          ),
        );
      }
      if (url.pathname === "/new")
        return send(
          200,
          html(
            "New note",
            `${header(user)}<main><h1>New note</h1><form method="post" action="/notes"><label for="title">Title</label><input id="title" name="title" type="text"><button id="save" type="submit">Save note</button></form></main>`,
          ),
        );
      if (url.pathname === "/notes" && request.method === "POST") {
        notes.push({ owner: user, title: form.get("title") ?? "" });
        return redirect("/home?saved=1");
      }
      response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    signIns: () => signIns,
    notes: () => notes.map((note) => ({ ...note })),
    expireSessions: () => sessions.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha = (page: PageSnapshot) => createHash("sha256").update(canonicalJson(page)).digest("hex");

/**
 * A demonstration on the notes app as the extension reports it (every typed value masked at the
 * source, the name shown after signing in scrubbed to •••): username and password typed, "Log in"
 * clicked, "New note" followed, a title typed, "Save note" clicked. Compiled and installed privately
 * through the routes the side panel uses (`beforeInstall` may validate it first).
 */
export async function installNotesAbility(
  call: AgentCall,
  site: SignInFixture,
  beforeInstall?: (proposalId: string) => Promise<void>,
): Promise<{ abilityId: string; proposalId: string; sessionId: string }> {
  const sessionId = (await call("POST", "/api/learn/sessions", { entry_mode: "demonstrating_skill" })).body.session.learn_session_id as string;
  await call("POST", `/api/learn/sessions/${sessionId}/start`);
  await call("POST", `/api/learn/sessions/${sessionId}/mark-goal`, { goal_description: "Write a note in Notes" });
  const page = (pathname: string, title: string, parts: Partial<PageSnapshot>): PageSnapshot => ({
    url: `${site.origin}${pathname}`,
    title: `${title} — Notes`,
    headings: [{ level: 1, text: title }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
    ...parts,
  });
  const signedIn = { links: ["•••", "My notes", "Log out", "New note"] };
  const login = page("/login", "Log in", {
    buttons: ["Log in"],
    forms: [
      {
        name: "Log in",
        fields: [
          { label: "Username", type: "text", required: false },
          { label: "Password", type: "password", required: false },
        ],
      },
    ],
  });
  const home = page("/home", "My notes", { ...signedIn, texts: [], headings: [{ level: 1, text: "My notes" }] });
  const editor = page("/new", "New note", {
    links: ["•••", "My notes", "Log out"],
    buttons: ["Save note"],
    forms: [{ fields: [{ label: "Title", type: "text", required: false }] }],
  });
  const saved = page("/home", "My notes", { ...signedIn, status_messages: ["Note saved"], lists: [{ name: "Notes", role: "list", items: 1, checked: 0 }] });
  const base = { learn_session_id: sessionId, adapter_kind: "browser_dom", app_family: "browser", redaction_mode: "mask_text", schema_version: 1 };
  const on = (pathname: string, title: string) => ({ page_url: `${site.origin}${pathname}`, page_title: `${title} — Notes` });
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  const refs = (before: PageSnapshot, after: PageSnapshot) => ({ before_state_ref: `snapshot:${sha(before)}`, after_state_ref: `snapshot:${sha(after)}` });
  const events = [
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Username'",
      created_at: at(0),
      browser_detail: {
        ...on("/login", "Log in"),
        target_name: "Username",
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [["#user"], ['aria/Username[role="textbox"]']],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Password'",
      created_at: at(1),
      browser_detail: {
        ...on("/login", "Log in"),
        target_name: "Password",
        target_role: "textbox",
        target_tag: "input",
        input_type: "password",
        selectors: [["#password"]],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "medium", reason: "secret_field" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Log in'",
      created_at: at(2),
      ...refs(login, home),
      browser_detail: {
        ...on("/login", "Log in"),
        target_name: "Log in",
        target_role: "button",
        target_tag: "button",
        selectors: [["#login"], ['aria/Log in[role="button"]']],
        dom_event_kind: "click",
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'New note'",
      created_at: at(3),
      ...refs(home, editor),
      browser_detail: {
        ...on("/home", "My notes"),
        target_name: "New note",
        target_role: "link",
        target_tag: "a",
        selectors: [["#new"], ['aria/New note[role="link"]']],
        dom_event_kind: "click",
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Fill 'Title'",
      created_at: at(4),
      browser_detail: {
        ...on("/new", "New note"),
        target_name: "Title",
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [["#title"], ['aria/Title[role="textbox"]']],
        dom_event_kind: "change",
        masked_field: { masked: true, length_class: "short" },
      },
    },
    {
      ...base,
      event_id: randomUUID(),
      action_label: "Click 'Save note'",
      created_at: at(5),
      ...refs(editor, saved),
      browser_detail: {
        ...on("/new", "New note"),
        target_name: "Save note",
        target_role: "button",
        target_tag: "button",
        selectors: [["#save"], ['aria/Save note[role="button"]']],
        dom_event_kind: "click",
      },
    },
  ];
  await call("POST", "/api/observations/events", {
    batch_id: randomUUID(),
    events,
    snapshots: [login, home, editor, saved].map((snapshot) => ({ sha256: sha(snapshot), learn_session_id: sessionId, snapshot })),
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
        .map((question) => ({ question_id: question.question_id, answer_text: 'The page says "Note saved"' })),
    });
  }
  await beforeInstall?.(proposalId);
  const installed = await call("POST", `/api/learn/proposals/${proposalId}/install`, { install_lane: "experimental_private" });
  if (installed.status !== 200) throw new Error(`install failed: ${JSON.stringify(installed.body)}`);
  return { abilityId: installed.body.ability_id as string, proposalId, sessionId };
}
