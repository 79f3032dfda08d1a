/**
 * A blog's back office (issue #35's pattern, our own code): `/login` signs in (CSRF + cookie, 303
 * to the dashboard); the dashboard's widgets change with the sign-in (account menu with an avatar
 * from a second origin, "Log out", a drafts counter, the last sign-in time); "New draft" opens a
 * title field and a rich text editor (a contenteditable whose HTML a script copies into the form
 * on submit); Save POSTs and 303s to the new draft (`/admin/drafts/view?id=<n>`, an id that
 * changes every run) with a notice.
 */
import {
  BASE_STYLE,
  csrfHolds,
  escapeHtml,
  signIn,
  startWorkApp,
  takeFlash,
  textOfHtml,
  type Account,
  type Reply,
  type Request,
  type WorkApp,
} from "./app-kit";

export interface BlogDraft {
  id: number;
  title: string;
  text: string;
  author: string;
}

export interface BlogState {
  drafts: BlogDraft[];
  sign_ins: number;
}

export async function startBlog(accounts: readonly Account[]): Promise<WorkApp> {
  let nextId = 100 + Math.floor(Math.random() * 900);
  const drafts: BlogDraft[] = ["Spring opening hours", "Volunteer day recap", "Menu ideas", "Thank-you notes"].map((title) => ({
    id: nextId++,
    title,
    text: `Notes about ${title.toLowerCase()}.`,
    author: "system",
  }));
  let signIns = 0;

  const layout = (request: Request, title: string, body: string, assetOrigin: string): Reply => {
    const user = request.session.user;
    const notice = takeFlash(request.session);
    const account =
      user === undefined
        ? `<a class="c-signin" href="/login">Sign in</a>`
        : `<details class="c-account-menu"><summary><img class="c-avatar" src="${assetOrigin}/avatar/${encodeURIComponent(user.username)}.svg" width="24" height="24" alt=""> Howdy, ${escapeHtml(user.display)}</summary><ul><li><a href="/admin/profile">Edit profile</a></li><li><a class="c-logout" href="/logout">Log out</a></li></ul></details>`;
    const menu =
      user === undefined
        ? ""
        : `<nav class="c-menu" aria-label="Admin menu"><ul><li><a href="/admin/">Dashboard</a></li><li><a href="/admin/drafts">Drafts <span class="c-count">${drafts.length}</span></a></li><li><a class="c-new" href="/admin/drafts/new">New draft</a></li></ul></nav>`;
    return {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} ‹ Corner Café Blog</title><style>${BASE_STYLE}.c-account-menu{margin-left:auto}.c-editor-box{border:1px solid #99a;min-height:8rem;padding:.5rem}</style></head><body>
<header><strong>Corner Café Blog</strong>${account}</header>${menu}
<main>${notice === undefined ? "" : `<div class="c-notice" role="status">${escapeHtml(notice)}</div>`}
${body}</main></body></html>`,
    };
  };

  const handle = (request: Request, app: { assetOrigin: string }): Reply => {
    const { pathname } = request.url;
    const user = request.session.user;
    if (pathname === "/") return { redirect: user === undefined ? "/login" : "/admin/" };
    if (pathname === "/login") {
      if (request.method === "POST") {
        if (!csrfHolds(request, "_csrf")) return { status: 403, html: "The link you followed has expired." };
        if (signIn(request, accounts, { username: "log", password: "pwd" }) === undefined) {
          request.session.flash = "The username or password you entered is incorrect.";
          return { redirect: "/login" };
        }
        signIns += 1;
        return { redirect: "/admin/" };
      }
      return layout(
        request,
        "Sign in",
        `<h1>Sign in</h1><form class="c-login-form" method="post" action="/login"><input type="hidden" name="_csrf" value="${request.session.csrf}">
<label>Username or email address <input name="log" autocomplete="username"></label><label>Password <input type="password" name="pwd" autocomplete="current-password"></label>
<label><input type="checkbox" name="remember"> Remember me</label><button type="submit" class="c-submit">Sign in</button></form>`,
        app.assetOrigin,
      );
    }
    if (pathname === "/logout") {
      delete request.session.user;
      return { redirect: "/login" };
    }
    if (!pathname.startsWith("/admin/")) return { status: 404, html: "Not found" };
    if (user === undefined) return { redirect: "/login" };

    if (pathname === "/admin/") {
      const recent = drafts.slice(-5).reverse();
      return layout(
        request,
        "Dashboard",
        `<h1>Dashboard</h1><section class="c-widget"><h2>At a glance</h2><p class="c-glance">${drafts.length} drafts</p><p class="c-last">Last signed in ${escapeHtml(request.session.signedInAt ?? "")}</p></section>
<section class="c-widget"><h2>Your recent drafts</h2><p class="c-recent-count">${recent.length} recent items</p><ul class="c-recent">${recent.map((draft) => `<li><a href="/admin/drafts/view?id=${draft.id}">${escapeHtml(draft.title)}</a></li>`).join("")}</ul></section>`,
        app.assetOrigin,
      );
    }
    if (pathname === "/admin/drafts" && request.method === "POST") {
      if (!csrfHolds(request, "_csrf")) return { status: 403, html: "The link you followed has expired." };
      const draft = {
        id: nextId++,
        title: (request.form.get("post_title") ?? "").trim(),
        text: textOfHtml(request.form.get("content") ?? ""),
        author: user.username,
      };
      drafts.push(draft);
      request.session.flash = "Draft saved.";
      return { redirect: `/admin/drafts/view?id=${draft.id}` };
    }
    if (pathname === "/admin/drafts") {
      return layout(
        request,
        "Drafts",
        `<h1>Drafts</h1><table class="c-list"><thead><tr><th>Title</th><th>Author</th></tr></thead><tbody>${drafts.map((draft) => `<tr><td><a href="/admin/drafts/view?id=${draft.id}">${escapeHtml(draft.title)}</a></td><td>${escapeHtml(draft.author)}</td></tr>`).join("")}</tbody></table>`,
        app.assetOrigin,
      );
    }
    if (pathname === "/admin/drafts/new") {
      return layout(
        request,
        "Add new draft",
        `<h1>Add new draft</h1><form class="c-compose" method="post" action="/admin/drafts"><input type="hidden" name="_csrf" value="${request.session.csrf}"><input type="hidden" name="content" value="">
<label>Title <input name="post_title" class="c-title"></label>
<div class="c-toolbar" role="toolbar" aria-label="Formatting"><button type="button" class="c-bold" aria-label="Bold" onclick="document.execCommand('bold')"><b>B</b></button><button type="button" class="c-italic" aria-label="Italic" onclick="document.execCommand('italic')"><i>I</i></button></div>
<div class="c-editor-box" contenteditable="true" role="textbox" aria-multiline="true" aria-label="Draft text"></div>
<button type="submit" class="c-save">Save draft</button></form>
<script>document.querySelector("form.c-compose").addEventListener("submit", (event) => { event.currentTarget.querySelector('[name="content"]').value = document.querySelector('[contenteditable]').innerHTML; });</script>`,
        app.assetOrigin,
      );
    }
    if (pathname === "/admin/drafts/view") {
      const draft = drafts.find((candidate) => String(candidate.id) === request.url.searchParams.get("id"));
      if (draft === undefined) return { status: 404, ...layout(request, "Not found", "<h1>Draft not found</h1>", app.assetOrigin) };
      return layout(
        request,
        draft.title,
        `<article class="c-draft"><h1>${escapeHtml(draft.title)}</h1>${draft.text
          .split("\n")
          .map((line) => `<p>${escapeHtml(line)}</p>`)
          .join("")}</article><p><small>Draft #${draft.id} by ${escapeHtml(draft.author)}</small></p>`,
        app.assetOrigin,
      );
    }
    return { status: 404, html: "Not found" };
  };

  return startWorkApp({ cookieName: "blog_session", handle, state: (): BlogState => ({ drafts: [...drafts], sign_ins: signIns }) });
}
