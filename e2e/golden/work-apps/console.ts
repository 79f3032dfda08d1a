/**
 * A database admin console (issue #35's pattern, our own code): `index.php?route=…&db=…&table=…`
 * addresses every page; sign-in with a CSRF token; tabs whose names double an icon's alt text
 * ("Insert Insert"); an insert form that is a data-entry grid whose cells have no labels, only
 * column headers ("name", "email"); Go submits the form from a script (`form.submit()`, which fires
 * no submit event), POSTs and 303s back to the table with "1 row inserted.
 * Inserted row id: <n>" (an id that changes every run); a warning kept hidden in the DOM.
 */
import { BASE_STYLE, csrfHolds, escapeHtml, signIn, startWorkApp, takeFlash, type Account, type Reply, type Request, type WorkApp } from "./app-kit";

export interface ConsoleRow {
  id: number;
  name: string;
  email: string;
}

export interface ConsoleState {
  tables: Record<string, ConsoleRow[]>;
  sign_ins: number;
}

const ICON = (alt: string) =>
  `<img class="c-icon" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" width="12" height="12" alt="${alt}">`;

export async function startConsole(accounts: readonly Account[]): Promise<WorkApp> {
  let nextId = 1 + Math.floor(Math.random() * 40);
  const tables: Record<string, ConsoleRow[]> = {
    contacts: [
      { id: nextId++, name: "Ada Byron", email: "ada@example.test" },
      { id: nextId++, name: "Grace Hopper", email: "grace@example.test" },
    ],
    notes: [],
  };
  let signIns = 0;
  const route = (path: string, table?: string) => `index.php?route=${encodeURIComponent(path)}${table === undefined ? "" : `&db=crm&table=${table}`}`;

  const layout = (request: Request, title: string, body: string, table?: string): Reply => {
    const user = request.session.user;
    const notice = takeFlash(request.session);
    const tabs =
      table === undefined
        ? ""
        : `<nav class="c-tabs"><a class="c-tab" href="${route("/table", table)}">${ICON("Browse")}Browse</a><a class="c-tab" href="${route("/table/structure", table)}">${ICON("Structure")}Structure</a><a class="c-tab c-insert" href="${route("/table/insert", table)}">${ICON("Insert")}Insert</a></nav>`;
    return {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} | DataDesk</title><style>${BASE_STYLE}.c-tabs a{margin-right:1rem}</style></head><body>
<header><strong>DataDesk</strong>${user === undefined ? "" : `<span class="c-server">Server: 127.0.0.1 · User: ${escapeHtml(user.username)}@localhost</span> <a class="c-logout" href="index.php?route=%2Flogout">${ICON("Log out")}Log out</a>`}</header>
${
  user === undefined
    ? ""
    : `<aside class="c-tree"><h2>crm</h2><ul>${Object.keys(tables)
        .map((name) => `<li><a class="c-table-link" href="${route("/table", name)}">${name}</a></li>`)
        .join("")}</ul></aside>`
}
<main>${tabs}${notice === undefined ? "" : `<div class="c-notice" role="status">${escapeHtml(notice)}</div>`}<div class="c-warning" hidden>Your configuration has no control user. Some features are off.</div>
${body}<footer><small class="c-timing">Query took ${(Math.random() / 100).toFixed(4)} seconds.</small></footer></main></body></html>`,
    };
  };

  const handle = (request: Request): Reply => {
    if (request.url.pathname === "/") return { redirect: "index.php" };
    if (request.url.pathname !== "/index.php") return { status: 404, html: "Not found" };
    const params = request.method === "POST" ? request.form : request.url.searchParams;
    const path = params.get("route") ?? "/";
    const table = params.get("table") ?? "";
    const user = request.session.user;

    if (request.method === "POST" && path === "/login") {
      if (!csrfHolds(request, "token")) return { status: 403, html: "Failed to set session cookie. Maybe you are using HTTP instead of HTTPS." };
      if (signIn(request, accounts, { username: "pma_username", password: "pma_password" }) === undefined) {
        request.session.flash = "Cannot log in to the server.";
        return { redirect: "index.php" };
      }
      signIns += 1;
      return { redirect: route("/") };
    }
    if (user === undefined) {
      return layout(
        request,
        "Log in",
        `<h1>Welcome to DataDesk</h1><form class="c-login-form" method="post" action="index.php"><input type="hidden" name="route" value="/login"><input type="hidden" name="token" value="${request.session.csrf}">
<fieldset><legend>Log in</legend><label>Username: <input name="pma_username" autocomplete="username"></label><label>Password: <input type="password" name="pma_password" autocomplete="current-password"></label></fieldset>
<button type="submit" class="c-submit">Log in</button></form>`,
      );
    }
    if (path === "/logout") {
      delete request.session.user;
      return { redirect: "index.php" };
    }
    if (path === "/") {
      return layout(
        request,
        "Server",
        `<h1>General settings</h1><ul class="c-overview"><li>Databases: 1</li><li>Tables: ${Object.keys(tables).length}</li><li>Rows in contacts: ${tables.contacts?.length ?? 0}</li></ul><p>Signed in ${escapeHtml(request.session.signedInAt ?? "")}</p>`,
      );
    }
    const rows = tables[table];
    if (rows === undefined) return layout(request, "Error", `<h1>Error</h1><p>Table '${escapeHtml(table)}' doesn't exist.</p>`);

    if (request.method === "POST" && path === "/table/insert") {
      if (!csrfHolds(request, "token")) return { status: 403, html: "Token mismatch" };
      const row = { id: nextId++, name: (request.form.get("fields[name]") ?? "").trim(), email: (request.form.get("fields[email]") ?? "").trim() };
      rows.push(row);
      request.session.flash = `1 row inserted. Inserted row id: ${row.id}`;
      return { redirect: route("/table", table) };
    }
    if (path === "/table/insert") {
      return layout(
        request,
        `${table} — Insert`,
        `<h1>Insert into ${escapeHtml(table)}</h1><form class="c-insert-form" method="post" action="index.php"><input type="hidden" name="route" value="/table/insert"><input type="hidden" name="db" value="crm"><input type="hidden" name="table" value="${escapeHtml(table)}"><input type="hidden" name="token" value="${request.session.csrf}">
<table class="c-grid"><thead><tr><th>name</th><th>email</th></tr></thead><tbody><tr><td><input name="fields[name]"></td><td><input name="fields[email]"></td></tr></tbody></table>
<button type="button" class="c-go" onclick="this.form.submit()">Go</button></form>`,
        table,
      );
    }
    if (path === "/table/structure") {
      return layout(
        request,
        `${table} — Structure`,
        `<h1>Structure of ${escapeHtml(table)}</h1><table class="c-structure"><thead><tr><th>Column</th><th>Type</th></tr></thead><tbody><tr><td>id</td><td>int</td></tr><tr><td>name</td><td>varchar(120)</td></tr><tr><td>email</td><td>varchar(160)</td></tr></tbody></table>`,
        table,
      );
    }
    return layout(
      request,
      `${table} — Browse`,
      `<h1>${escapeHtml(table)}</h1><p class="c-showing">Showing rows 0 - ${Math.max(0, rows.length - 1)} (${rows.length} total)</p><table class="c-rows"><thead><tr><th>id</th><th>name</th><th>email</th></tr></thead><tbody>${rows.map((row) => `<tr><td>${row.id}</td><td>${escapeHtml(row.name)}</td><td>${escapeHtml(row.email)}</td></tr>`).join("")}</tbody></table>`,
      table,
    );
  };

  return startWorkApp({ cookieName: "datadesk_session", handle, state: (): ConsoleState => ({ tables: structuredClone(tables), sign_ins: signIns }) });
}
