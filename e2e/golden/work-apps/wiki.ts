/**
 * A team wiki (issue #35's pattern, our own code): every page is `index.php?page=<id>` with an
 * action in `do=` (login, search, edit); a search box named with its access-key hint ("Search
 * [F]"); a missing page offers "Create this page"; the editor is a plain `<textarea>`; Save POSTs
 * with the CSRF token and 303s to `index.php?page=<title>` with a notice. Every page carries a time
 * that changes on each render and a warning the page keeps hidden.
 */
import { BASE_STYLE, csrfHolds, escapeHtml, signIn, startWorkApp, takeFlash, type Account, type Reply, type Request, type WorkApp } from "./app-kit";

export interface WikiPage {
  title: string;
  text: string;
  author: string;
  revision: number;
}

export interface WikiState {
  pages: WikiPage[];
  sign_ins: number;
}

const link = (page: string, action?: string) => `index.php?page=${encodeURIComponent(page)}${action === undefined ? "" : `&do=${action}`}`;

export async function startWiki(accounts: readonly Account[]): Promise<WorkApp> {
  const pages = new Map<string, WikiPage>([
    ["start", { title: "start", text: "Welcome to the team wiki. Use the search box to find a page, or to start a new one.", author: "system", revision: 1 }],
    ["onboarding", { title: "onboarding", text: "Read the handbook, then ask for a laptop.", author: "system", revision: 1 }],
  ]);
  let revisions = 10 + Math.floor(Math.random() * 50);
  let signIns = 0;

  const layout = (request: Request, title: string, body: string): Reply => {
    const page = request.url.searchParams.get("page") ?? "start";
    const user = request.session.user;
    const notice = takeFlash(request.session);
    const account =
      user === undefined
        ? `<a class="c-login" href="${link(page, "login")}">Log in</a>`
        : `<span class="c-user">Logged in as ${escapeHtml(user.display)}</span> <a class="c-recent" href="${link("start", "recent")}">Recent changes (${pages.size})</a> <a class="c-logout" href="${link(page, "logout")}">Log out</a>`;
    return {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} [Team Wiki]</title><style>${BASE_STYLE}</style></head><body>
<header><a class="c-home" href="${link("start")}"><strong>Team Wiki</strong></a>
<form class="c-search" method="get" action="index.php"><input type="hidden" name="do" value="search"><input type="search" name="q" title="Search [F]" accesskey="f" placeholder=""><button type="submit" class="c-go">🔍</button></form>
<nav class="c-account">${account}</nav></header>
<main>${notice === undefined ? "" : `<div class="c-notice" role="status">${escapeHtml(notice)}</div>`}
<div class="c-warning" hidden>Your session will expire in 2 minutes. Save your changes.</div>
${body}
<footer><small class="c-generated">Page generated ${new Date().toISOString()}</small></footer></main></body></html>`,
    };
  };

  const handle = (request: Request): Reply => {
    const params = request.method === "POST" ? request.form : request.url.searchParams;
    const action = params.get("do") ?? "show";
    const page = (params.get("page") ?? "start").trim() || "start";
    const user = request.session.user;
    if (request.url.pathname !== "/index.php") return request.url.pathname === "/" ? { redirect: link("start") } : { status: 404, html: "Not found" };

    if (request.method === "POST") {
      if (!csrfHolds(request, "sectok")) return { status: 403, html: "Security token did not match. Please try again." };
      if (action === "login") {
        if (signIn(request, accounts, { username: "u", password: "p" }) === undefined) {
          request.session.flash = "Wrong username or password.";
          return { redirect: link(page, "login") };
        }
        signIns += 1;
        request.session.flash = "You are now logged in.";
        return { redirect: link(page) };
      }
      if (action === "save") {
        if (user === undefined) return { redirect: link(page, "login") };
        const text = (request.form.get("wikitext") ?? "").replace(/\r\n/g, "\n").trim();
        revisions += 1;
        pages.set(page, { title: page, text, author: user.username, revision: revisions });
        request.session.flash = "Page saved.";
        return { redirect: link(page) };
      }
      return { status: 400, html: "Unknown action" };
    }

    switch (action) {
      case "login":
        return layout(
          request,
          "Log in",
          `<h1>Log in</h1><p>You are currently not logged in. Enter your credentials below.</p>
<form class="c-login-form" method="post" action="index.php"><input type="hidden" name="do" value="login"><input type="hidden" name="page" value="${escapeHtml(page)}"><input type="hidden" name="sectok" value="${request.session.csrf}">
<label>Username <input name="u" autocomplete="username"></label><label>Password <input type="password" name="p" autocomplete="current-password"></label>
<button type="submit" class="c-submit">Log in</button></form>`,
        );
      case "logout":
        delete request.session.user;
        request.session.flash = "You are now logged out.";
        return { redirect: link(page) };
      case "recent":
        return layout(
          request,
          "Recent changes",
          `<h1>Recent changes</h1><ul class="c-changes">${[...pages.values()].map((entry) => `<li><a href="${link(entry.title)}">${escapeHtml(entry.title)}</a> (revision ${entry.revision})</li>`).join("")}</ul>`,
        );
      case "search": {
        const query = (request.url.searchParams.get("q") ?? "").trim();
        const hits = [...pages.values()].filter(
          (entry) => query !== "" && (entry.title.toLowerCase().includes(query.toLowerCase()) || entry.text.toLowerCase().includes(query.toLowerCase())),
        );
        const exact = pages.has(query);
        return layout(
          request,
          "Search",
          `<h1>Search</h1><p>Results for your search.</p>${
            exact || query === ""
              ? ""
              : `<p class="c-missing">The page does not exist yet. <a class="c-create" href="${link(query, "edit")}">Create this page</a></p>`
          }<ul class="c-hits">${hits.map((entry) => `<li><a href="${link(entry.title)}">${escapeHtml(entry.title)}</a></li>`).join("")}</ul>${hits.length === 0 ? "<p>Nothing was found.</p>" : ""}`,
        );
      }
      case "edit": {
        if (user === undefined) return { redirect: link(page, "login") };
        const existing = pages.get(page);
        return layout(
          request,
          page,
          `<h1>Edit page</h1><p>${existing === undefined ? "You are creating a new page." : "Edit the page and hit Save."}</p>
<form class="c-editor" method="post" action="index.php"><input type="hidden" name="do" value="save"><input type="hidden" name="page" value="${escapeHtml(page)}"><input type="hidden" name="sectok" value="${request.session.csrf}">
<label>Page text <textarea name="wikitext">${escapeHtml(existing?.text ?? "")}</textarea></label>
<label>Edit summary <input name="summary"></label>
<button type="submit" class="c-save">Save</button> <a class="c-cancel" href="${link(page)}">Cancel</a></form>`,
        );
      }
      default: {
        const shown = pages.get(page);
        if (shown === undefined) {
          return layout(
            request,
            page,
            `<h1>${escapeHtml(page)}</h1><p class="c-missing">This page does not exist yet. <a class="c-create" href="${link(page, "edit")}">Create this page</a></p>`,
          );
        }
        const others =
          page === "start"
            ? `<h2>Pages</h2><ul class="c-pages">${[...pages.keys()].map((title) => `<li><a href="${link(title)}">${escapeHtml(title)}</a></li>`).join("")}</ul>`
            : "";
        return layout(
          request,
          page,
          `<article class="c-page"><h1>${escapeHtml(shown.title)}</h1>${shown.text
            .split("\n")
            .map((line) => `<p>${escapeHtml(line)}</p>`)
            .join(
              "",
            )}</article>${others}${user === undefined ? "" : `<p><a class="c-edit" href="${link(page, "edit")}">Edit this page</a></p>`}<p><small>Revision ${shown.revision}</small></p>`,
        );
      }
    }
  };

  return startWorkApp({
    cookieName: "wiki_session",
    handle,
    state: (): WikiState => ({ pages: [...pages.values()], sign_ins: signIns }),
  });
}
