import { afterEach, describe, expect, it } from "vitest";
import type { WorkApp } from "./work-apps/app-kit";
import { startBlog, type BlogState } from "./work-apps/blog";
import { startConsole, type ConsoleState } from "./work-apps/console";
import { startWiki, type WikiState } from "./work-apps/wiki";
import { valuesFor, WORK_CANARIES, WORK_SETUPS } from "./work-flows";
import { checkpointParameters } from "./work-later";

const ACCOUNT = { username: "mara", password: "Correct-Horse-7", display: "Mara Quinn" };
const apps: WorkApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** A browser's cookie jar, enough for one fixture: a GET or a form POST, redirects not followed. */
function visitor(origin: string) {
  let cookie = "";
  const go = async (path: string, form?: Record<string, string>) => {
    const response = await fetch(new URL(path, `${origin}/`), {
      method: form === undefined ? "GET" : "POST",
      redirect: "manual",
      headers: { cookie, ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
      body: form === undefined ? undefined : new URLSearchParams(form).toString(),
    });
    const set = response.headers.get("set-cookie");
    if (set !== null) cookie = set.split(";")[0] ?? "";
    return { status: response.status, location: response.headers.get("location"), html: await response.text() };
  };
  const token = (html: string, name: string) => new RegExp(`name="${name}" value="([0-9a-f]+)"`).exec(html)?.[1] ?? "";
  return { go, token };
}

describe("the work-app fixtures of learn-quality (issue #35)", () => {
  it("wiki: sign-in needs the CSRF token and the password, then a saved page 303s to ?page=<title> and is in the state", async () => {
    const app = await startWiki([ACCOUNT]);
    apps.push(app);
    const browser = visitor(app.origin);
    const login = await browser.go("/index.php?page=start&do=login");
    expect(login.html).toContain('title="Search [F]"');
    expect(login.html).toMatch(/<div class="c-warning" hidden>/);
    const sectok = browser.token(login.html, "sectok");
    expect((await browser.go("/index.php", { do: "login", page: "start", sectok: "forged", u: "mara", p: ACCOUNT.password })).status).toBe(403);
    expect((await browser.go("/index.php", { do: "login", page: "start", sectok, u: "mara", p: "wrong" })).location).toBe("index.php?page=start&do=login");
    const signedIn = await browser.go("/index.php", { do: "login", page: "start", sectok, u: "mara", p: ACCOUNT.password });
    expect(signedIn).toMatchObject({ status: 303, location: "index.php?page=start" });
    const start = await browser.go("index.php?page=start");
    expect(start.html).toContain("Log out");
    expect(start.html).toContain("You are now logged in.");

    const search = await browser.go("index.php?do=search&q=Quarterly%20Goals");
    expect(search.html).toContain('href="index.php?page=Quarterly%20Goals&amp;do=edit"'.replace("&amp;", "&"));
    const editor = await browser.go("index.php?page=Quarterly%20Goals&do=edit");
    expect(editor.html).toContain("<textarea");
    const saved = await browser.go("/index.php", { do: "save", page: "Quarterly Goals", sectok, wikitext: "Ship the wiki." });
    expect(saved).toMatchObject({ status: 303, location: "index.php?page=Quarterly%20Goals" });
    const shown = await browser.go(saved.location ?? "");
    expect(shown.html).toContain("<h1>Quarterly Goals</h1>");
    expect(shown.html).toContain("Page saved.");
    const state = await app.state<WikiState>();
    expect(state.pages).toContainEqual(expect.objectContaining({ title: "Quarterly Goals", text: "Ship the wiki.", author: "mara" }));
    expect(state.sign_ins).toBe(1);
  });

  it("wiki: a visitor who is not signed in cannot save, and a missing page offers to create it", async () => {
    const app = await startWiki([ACCOUNT]);
    apps.push(app);
    const browser = visitor(app.origin);
    const missing = await browser.go("index.php?page=Nowhere");
    expect(missing.html).toContain("Create this page");
    const sectok = browser.token((await browser.go("index.php?page=start&do=login")).html, "sectok");
    expect((await browser.go("/index.php", { do: "save", page: "Nowhere", sectok, wikitext: "x" })).location).toBe("index.php?page=Nowhere&do=login");
    expect((await app.state<WikiState>()).pages.map((page) => page.title)).toEqual(["start", "onboarding"]);
  });

  it("blog: sign-in 303s to a dashboard with an avatar from a second origin; a saved draft keeps the rich editor's text", async () => {
    const app = await startBlog([ACCOUNT]);
    apps.push(app);
    expect(app.assetOrigin).not.toBe(app.origin);
    const browser = visitor(app.origin);
    expect((await browser.go("/admin/")).location).toBe("/login");
    const _csrf = browser.token((await browser.go("/login")).html, "_csrf");
    expect((await browser.go("/login", { _csrf: "forged", log: "mara", pwd: ACCOUNT.password })).status).toBe(403);
    expect(await browser.go("/login", { _csrf, log: "mara", pwd: ACCOUNT.password })).toMatchObject({ status: 303, location: "/admin/" });
    const dashboard = await browser.go("/admin/");
    expect(dashboard.html).toContain(`src="${app.assetOrigin}/avatar/mara.svg"`);
    expect(dashboard.html).toContain("Log out");
    expect(dashboard.html).toContain("4 recent items");
    expect((await fetch(`${app.assetOrigin}/avatar/mara.svg`)).headers.get("content-type")).toBe("image/svg+xml");
    expect((await browser.go("/admin/drafts/new")).html).toContain('contenteditable="true"');
    const saved = await browser.go("/admin/drafts", { _csrf, post_title: "Soup of the week", content: "<p>Lentil &amp; <b>lemon</b></p><p>Fridays</p>" });
    expect(saved.location).toMatch(/^\/admin\/drafts\/view\?id=\d+$/);
    const shown = await browser.go(saved.location ?? "");
    expect(shown.html).toContain("<h1>Soup of the week</h1>");
    expect(shown.html).toContain("Draft saved.");
    expect((await app.state<BlogState>()).drafts.at(-1)).toMatchObject({ title: "Soup of the week", text: "Lentil & lemon\nFridays", author: "mara" });
  });

  it("console: sign-in with the token, then the unlabelled grid's row is inserted with a new id and the console says so", async () => {
    const app = await startConsole([ACCOUNT]);
    apps.push(app);
    const browser = visitor(app.origin);
    const token = browser.token((await browser.go("/index.php")).html, "token");
    expect((await browser.go("/index.php", { route: "/login", token: "forged", pma_username: "mara", pma_password: ACCOUNT.password })).status).toBe(403);
    expect(await browser.go("/index.php", { route: "/login", token, pma_username: "mara", pma_password: ACCOUNT.password })).toMatchObject({
      status: 303,
      location: "index.php?route=%2F",
    });
    const grid = await browser.go("index.php?route=%2Ftable%2Finsert&db=crm&table=contacts");
    expect(grid.html).toContain("<th>name</th><th>email</th>");
    expect(grid.html).toContain('alt="Insert">Insert');
    const before = (await app.state<ConsoleState>()).tables.contacts ?? [];
    const inserted = await browser.go("/index.php", {
      route: "/table/insert",
      db: "crm",
      table: "contacts",
      token,
      "fields[name]": "Lin Okafor",
      "fields[email]": "lin@example.test",
    });
    expect(inserted.location).toBe("index.php?route=%2Ftable&db=crm&table=contacts");
    const row = (await app.state<ConsoleState>()).tables.contacts?.at(-1);
    expect(row).toMatchObject({ name: "Lin Okafor", email: "lin@example.test" });
    expect(row?.id).toBe(Math.max(...before.map((entry) => entry.id)) + 1);
    expect((await browser.go(inserted.location ?? "")).html).toContain(`1 row inserted. Inserted row id: ${row?.id}`);
  });

  it("gives each parameter the value a person would, whatever the compiler named it, and the account's real password", () => {
    const wiki = valuesFor(
      WORK_SETUPS.wiki,
      [
        { name: "username", label: "Username", type_hint: "text" },
        { name: "password", label: "Password", type_hint: "secret" },
        { name: "search_f", label: "Search [F]", type_hint: "text" },
        { name: "page_text", label: "Page text", type_hint: "long_text" },
      ],
      "run",
    );
    expect(wiki).toMatchObject({ username: WORK_CANARIES.wiki.username, password: WORK_CANARIES.wiki.password });
    expect(wiki.search_f).toMatch(/^Page run /);
    expect(wiki.page_text).toMatch(/^Text written at run /);
    // Unlabelled grid cells named "value", "value_2": the fields in the order they were typed.
    const grid = valuesFor(
      WORK_SETUPS.console,
      [
        { name: "username", label: "Username:", type_hint: "text" },
        { name: "password", label: "Password:", type_hint: "secret" },
        { name: "value", label: "value", type_hint: "text" },
        { name: "value_2", label: "value", type_hint: "text" },
      ],
      "validation",
    );
    expect(grid.value).toBe(WORK_SETUPS.console.values("validation").name);
    expect(grid.value_2).toBe(WORK_SETUPS.console.values("validation").email);
    expect(
      WORK_SETUPS.wiki.verify(
        { pages: [{ title: wiki.search_f, text: wiki.page_text, author: "x", revision: 1 }], sign_ins: 1 },
        WORK_SETUPS.wiki.values("run"),
      ),
    ).toBeUndefined();
    expect(WORK_SETUPS.wiki.verify({ pages: [], sign_ins: 1 }, WORK_SETUPS.wiki.values("run"))).toMatch(/^no page titled/);
  });

  it("counts a checkpoint as goal evidence only when a page can check it and it names a non-secret parameter", () => {
    const checkpoint = (success_condition: string) => ({ checkpoint_id: "cp", goal: "g", success_condition, controls: [], step_ids: [], observable: true });
    const parameters = [
      { name: "title", label: "Title", type_hint: "text" as const, step_ids: [] },
      { name: "password", label: "Password", type_hint: "secret" as const, step_ids: [] },
    ];
    expect(checkpointParameters([checkpoint('The page says "Draft saved."')], parameters)).toEqual({ goal: 0, secret: 0 });
    expect(checkpointParameters([checkpoint("The page shows {{title}}")], parameters).secret).toBe(0);
    expect(checkpointParameters([checkpoint('A page titled "{{title}}" is shown')], parameters)).toEqual({ goal: 1, secret: 0 });
    expect(checkpointParameters([checkpoint("{{password}} is added to the list")], parameters).secret).toBe(1);
  });
});
