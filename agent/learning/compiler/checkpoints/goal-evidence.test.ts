import { describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";
import { parseSuccessCondition } from "../../../../shared/learning/checkpoints/success-conditions";
import { lintCheckpoints } from "./checkpoint-lint";
import { validateMetadata } from "skills-ref";
import { toAgentSkillsMarkdown } from "../../../../shared/skills/agent-skills-format";
import { readFrontmatterMapping } from "../../../../shared/skills/frontmatter";
import { asWhatItDoes, buildFrontmatter, emitSkillMarkdown } from "../emit-skill";
import { hasPerRunValue, stablePart, withParameters } from "./goal-evidence";
import { interpretTrace } from "../interpret";
import { type SkillParameter } from "../../../../shared/execution/checkpoint-plan";
import type { NormalizedStep, NormalizedTrace } from "../normalize-trace";

/**
 * Issue #35 "Goal evidence first": demonstrations shaped as the capture records a multi-page app
 * (server-rendered pages, a sign-in, forms that post and redirect). Each names one kind of evidence
 * that real apps offered and that proved nothing about the goal.
 */

type Lists = NonNullable<PageSnapshot["lists"]>;

function page(
  url: string,
  title: string,
  parts: { headings?: string[]; lists?: Lists; texts?: string[]; buttons?: string[]; status?: string[]; toggles?: PageSnapshot["toggles"] } = {},
): PageSnapshot {
  return {
    url,
    title,
    headings: (parts.headings ?? []).map((text) => ({ level: 1, text })),
    landmarks: [{ role: "navigation", name: "Site" }],
    dialogs: [],
    forms: [],
    buttons: parts.buttons ?? [],
    links: ["Home", "Recent changes"],
    status_messages: parts.status ?? [],
    lists: parts.lists ?? [],
    toggles: parts.toggles ?? [],
    texts: parts.texts ?? [],
    hover_revealed: [],
    schema_version: 1,
  };
}

/** A demonstration built step by step: each action ends on the page given, with a settled snapshot of it. */
function demonstration(goal: string) {
  let clock = 0;
  const at = (offset = 0) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, (clock += 1000) + offset)).toISOString();
  const snapshots = new Map<string, PageSnapshot>();
  const moments: Array<{ at: string; ref: string }> = [];
  const steps: NormalizedStep[] = [];
  let current: string | undefined;
  let url = "";
  let title = "";
  const ref = (snapshot: PageSnapshot) => {
    const name = `p${snapshots.size}`;
    snapshots.set(name, snapshot);
    return `snapshot:${name}`;
  };
  const builder = {
    open(snapshot: PageSnapshot) {
      const after = ref(snapshot);
      ({ url, title } = snapshot);
      steps.push({
        step_id: "",
        action: "navigate",
        label: `Open '${title}'`,
        user_labelled: false,
        page_url: url,
        page_title: title,
        selectors: [],
        caused_state_change: true,
        event_ids: [],
        created_at: at(),
        after_state_ref: after,
      });
      current = after;
      return builder;
    },
    /** An action; `then` is the page it led to (a settled snapshot is taken), none when nothing changed. */
    act(partial: Partial<NormalizedStep> & Pick<NormalizedStep, "action" | "label">, then?: PageSnapshot) {
      const created_at = at();
      const after = then === undefined ? current : ref(then);
      steps.push({
        step_id: "",
        user_labelled: false,
        selectors: [["#x"]],
        caused_state_change: then !== undefined,
        event_ids: [],
        created_at,
        page_url: url,
        page_title: title,
        before_state_ref: current,
        after_state_ref: after,
        ...partial,
      });
      if (then !== undefined) {
        moments.push({ at: new Date(Date.parse(created_at) + 300).toISOString(), ref: after as string });
        ({ url, title } = then);
        current = after;
      }
      return builder;
    },
    fill(name: string, hash: string, extra: Partial<NormalizedStep> = {}, then?: PageSnapshot) {
      return builder.act(
        {
          action: "fill",
          label: `Fill '${name}'`,
          target_name: name,
          target_role: "textbox",
          target_tag: "input",
          masked_value: { value_hash: hash },
          ...extra,
        },
        then,
      );
    },
    password(then?: PageSnapshot) {
      return builder.act(
        {
          action: "fill",
          label: "Fill 'Password'",
          target_name: "Password",
          target_role: "textbox",
          target_tag: "input",
          input_type: "password",
          masked_value: { reason: "secret_field" },
        },
        then,
      );
    },
    click(name: string, then?: PageSnapshot) {
      return builder.act({ action: "click", label: `Click '${name}'`, target_name: name, target_role: "button", target_tag: "button" }, then);
    },
    compile() {
      steps.forEach((step, index) => {
        step.step_id = `s${index + 1}`;
      });
      const pages = [...snapshots.values()].map((snapshot) => ({ url: snapshot.url, title: snapshot.title }));
      const trace: NormalizedTrace = { steps, goal, pages, dropped: { noise: 0, outside_boundaries: 0, merged: 0 } };
      return interpretTrace({ trace, snapshots, moments, answers: {} });
    },
  };
  return builder;
}

const W = "http://127.0.0.1:4100";
const signedOut = page(`${W}/login`, "Log in [Notes]", { headings: ["Log in"], buttons: ["Log in"] });
/** After signing in: the menu and the dashboard widgets appear, a counter moves. */
const dashboard = (notifications: number, recent: number) =>
  page(`${W}/start`, "Start [Notes]", {
    headings: ["Welcome"],
    buttons: ["Log out", "New page"],
    lists: [
      { name: "Sidebar menu", role: "list", items: 6, checked: 0 },
      { name: "Recent changes", role: "list", items: recent, checked: 0 },
    ],
    texts: [`Notifications (${notifications})`],
  });

function wikiDemonstration() {
  return demonstration("Create a wiki page")
    .open(signedOut)
    .fill("Username", "u1")
    .password()
    .click("Log in", dashboard(3, 4))
    .click(
      "New page",
      page(`${W}/edit`, "Edit page [Notes]", {
        headings: ["New page"],
        buttons: ["Log out", "Save"],
        lists: [{ name: "Sidebar menu", role: "list", items: 6, checked: 0 }],
      }),
    )
    .fill("Page name", "t1")
    .fill("Text", "b1", { target_tag: "textarea" })
    .click(
      "Save",
      page(`${W}/wiki/•••`, "••• [Notes]", {
        headings: ["•••"],
        buttons: ["Log out", "Edit"],
        status: ["Page saved at 10:42"],
        lists: [
          { name: "Sidebar menu", role: "list", items: 6, checked: 0 },
          { name: "Saved queries", role: "list", items: 4, checked: 0 },
        ],
        texts: ["Notifications (4)"],
      }),
    )
    .compile();
}

describe("goal evidence first (issue #35)", () => {
  const wiki = wikiDemonstration();
  const successes = wiki.checkpoints.map((checkpoint) => checkpoint.success_condition);

  it("proves a created page by its title with the input in it, not by the mask the capture left", () => {
    expect(successes.at(-1)).toBe('A page titled "{{page_name}} [Notes]" is shown');
    expect(JSON.stringify(wiki.checkpoints)).not.toContain("•••");
  });

  it("never takes menus, widgets or counters that changed with the sign-in as evidence", () => {
    const signIn = wiki.checkpoints.find((checkpoint) => checkpoint.step_ids.includes("s4"));
    // The sign-in's own checkpoint (sign-in.ts) is proved by the sign-out control that appeared.
    expect(signIn?.success_condition).toBe('A "Log out" button appears');
    for (const success of successes) expect(success).not.toMatch(/Sidebar menu|Recent changes|Saved queries|Notifications|list has/);
  });

  it("takes the name signed in with for the account, not for the page a later step made (a wiki page created from a search)", () => {
    const created = demonstration("Create a wiki page")
      .open(signedOut)
      .fill("Username", "u1")
      .password()
      .click("Log in", dashboard(3, 4))
      .fill("Search", "q1")
      .click("Search", page(`${W}/search?q=*typed-a1*`, "Search [Notes]", { headings: ["Search"], buttons: ["Log out"] }))
      .click("Create this page", page(`${W}/edit?page=*typed-a1*`, "••• [Notes]", { headings: ["Edit page"], buttons: ["Log out", "Save"] }))
      .fill("Text", "b1", { target_tag: "textarea" })
      .click("Save", page(`${W}/view?page=*typed-a1*`, "••• [Notes]", { headings: ["•••"], buttons: ["Log out"], status: ["Page saved."] }))
      .compile();
    const parameters = created.parameters.map((parameter) => parameter.name);
    expect(parameters).toEqual(expect.arrayContaining(["username", "search"]));
    const conditions = created.checkpoints.map((checkpoint) => checkpoint.success_condition);
    // Two ordinary inputs were entered before the new page showed a masked name: the username went to the sign-in.
    expect(conditions.at(-1)).toContain("{{search}}");
    expect(conditions.some((condition) => condition.includes("{{username}}"))).toBe(false);
  });

  it("proves a row inserted on a form page by the table it was added to, seen one row shorter at the same address before", () => {
    const browse = (rows: number, status: string[] = []) =>
      page(`${W}/index.php?route=%2Ftable&table=contacts`, "contacts — Browse | Console", {
        headings: ["contacts"],
        lists: [{ name: "contacts", role: "table", items: rows, checked: 0 }],
        status,
      });
    const inserted = demonstration("Add a contact")
      .open(browse(2))
      .click(
        "Insert",
        page(`${W}/index.php?route=%2Ftable%2Finsert&table=contacts`, "contacts — Insert | Console", {
          headings: ["Insert into contacts"],
          lists: [{ name: "Insert into contacts", role: "table", items: 1, checked: 0 }],
        }),
      )
      .fill("name", "n1")
      .fill("email", "e1")
      .click("Go", browse(3, ["1 row inserted. Inserted row id: 36"]))
      .compile();
    expect(inserted.checkpoints.at(-1)?.success_condition).toBe('An item showing {{name}} is in the "contacts" list');
  });

  it("never makes a secret input evidence", () => {
    expect(JSON.stringify(wiki.checkpoints.map((checkpoint) => [checkpoint.goal, checkpoint.success_condition]))).not.toContain("{{password}}");
    const created = demonstration("Add a user")
      .open(page(`${W}/users`, "Users", { lists: [{ name: "Users", role: "list", items: 2, checked: 0 }] }))
      .fill("Login", "n1")
      .password()
      .click("Add user", page(`${W}/users`, "Users", { lists: [{ name: "Users", role: "list", items: 3, checked: 0 }] }))
      .compile();
    expect(created.checkpoints.at(-1)?.success_condition).toBe('An item showing {{login}} is in the "Users" list');
    const onlySecret = demonstration("Change my password")
      .open(page(`${W}/account`, "Account", { lists: [{ name: "Sessions", role: "list", items: 1, checked: 0 }] }))
      .password()
      .click("Change", page(`${W}/account`, "Account", { lists: [{ name: "Sessions", role: "list", items: 2, checked: 0 }] }))
      .compile();
    expect(JSON.stringify(onlySecret.checkpoints)).not.toContain("{{password}}");
  });

  it("keeps the part of a notice a later run shows again, and never a row id", () => {
    const insert = demonstration("Insert a row")
      .open(page(`${W}/sql.php`, "Insert — Admin", { headings: ["Insert"] }))
      .fill("Name", "r1")
      .click("Go", page(`${W}/sql.php`, "Insert — Admin", { headings: ["Insert"], status: ["1 row inserted. Inserted row id: 3"] }))
      .compile();
    expect(insert.checkpoints.at(-1)?.success_condition).toBe('The page says "1 row inserted."');
    const idOnly = demonstration("Insert a row")
      .open(page(`${W}/sql.php`, "Insert — Admin", { headings: ["Insert"] }))
      .fill("Name", "r1")
      .click("Go", page(`${W}/tbl/17`, "Row 17 — Admin", { headings: ["Inserted row id: 17"], buttons: ["Edit row"] }))
      .compile();
    expect(idOnly.checkpoints.at(-1)?.success_condition).toBe('A "Edit row" button appears');
  });

  it("never counts a list that grew by more than what was entered, nor a counter with a time in it", () => {
    const tracker = demonstration("File an issue")
      .open(page(`${W}/issues/new`, "New issue", { lists: [{ name: "Saved queries", role: "list", items: 1, checked: 0 }], texts: ["Synced at 10:01"] }))
      .fill("Subject", "i1")
      .click(
        "Create",
        page(`${W}/issues/new`, "New issue", {
          lists: [{ name: "Saved queries", role: "list", items: 5, checked: 0 }],
          texts: ["Synced at 10:02"],
          status: ["Issue created"],
        }),
      )
      .compile();
    expect(tracker.checkpoints.at(-1)?.success_condition).toBe('The page says "Issue created"');
    const noNotice = demonstration("File an issue")
      .open(page(`${W}/issues/new`, "New issue", { lists: [{ name: "Saved queries", role: "list", items: 1, checked: 0 }], texts: ["Synced at 10:01"] }))
      .fill("Subject", "i1")
      .click(
        "Create",
        page(`${W}/issues/new`, "New issue", { lists: [{ name: "Saved queries", role: "list", items: 5, checked: 0 }], texts: ["Synced at 10:02"] }),
      )
      .compile();
    expect(noNotice.checkpoints.at(-1)?.verification?.by).toBe("person");
  });

  it("passes the checkpoint lint and writes checks the rehearsal reads back", () => {
    expect(lintCheckpoints(wiki.checkpoints).findings).toEqual([]);
    for (const checkpoint of wiki.checkpoints) expect(parseSuccessCondition(checkpoint.success_condition).kind).not.toBe("by_hand");
  });
});

describe("the rules one by one", () => {
  const parameter = (name: string, type_hint: SkillParameter["type_hint"] = "text"): SkillParameter => ({ name, label: name, type_hint, step_ids: [] });

  it("tells numbers a later run shows again from those it does not", () => {
    for (const text of ["Inserted row id: 3", "Issue #12 created", "Saved at 10:42", "Due 2026-03-01", "Total: $45.00", "Order 12345", "edited 5 minutes ago"])
      expect(hasPerRunValue(text), text).toBe(true);
    for (const text of ["1 row inserted", "Step 2 of 3", "Visitors: 7", "Last 30 days"]) expect(hasPerRunValue(text), text).toBe(false);
    expect(stablePart("1 row inserted. Inserted row id: 3")).toBe("1 row inserted.");
    expect(stablePart("Inserted row id: 3")).toBeUndefined();
  });

  it("names the input a masked value was, and refuses to guess between two", () => {
    const known = [parameter("page_name"), parameter("text", "long_text"), parameter("password", "secret")];
    expect(withParameters("••• [Notes]", known, "title")).toBe("{{page_name}} [Notes]");
    expect(withParameters("Welcome •••", [parameter("password", "secret")], "heading")).toBeUndefined();
    expect(withParameters("••• and •••", [parameter("first"), parameter("last")], "heading")).toBe("{{first}} and {{last}}");
    expect(withParameters("•••", [parameter("first"), parameter("last")], "heading")).toBeUndefined();
    expect(withParameters("•••", [parameter("city"), parameter("subject")], "heading")).toBe("{{subject}}");
  });
});

describe("a description that says what, where and with what (issue #35)", () => {
  const wiki = wikiDemonstration();

  it("names the outcome, the site and its address, the sign-in and the inputs, not the title again", () => {
    expect(buildFrontmatter(wiki).description).toBe(
      "Creates a wiki page on Notes (127.0.0.1:4100) after signing in. Inputs: username, page name, text; a password asked at each run and never stored.",
    );
  });

  it("projects to an Agent Skills bundle the reference validator accepts, with when to use it", () => {
    const projected = readFrontmatterMapping(toAgentSkillsMarkdown(emitSkillMarkdown(wiki)));
    if (!projected.ok) throw new Error(projected.reason);
    expect(validateMetadata(projected.value, `/skills/${wiki.slug}`)).toEqual([]);
    expect(projected.value.description).toMatch(
      /^Creates a wiki page on Notes \(127\.0\.0\.1:4100\) after signing in\. Inputs: username, page name, text;.* Use when the user asks to create a wiki page/,
    );
  });

  it("says an instruction as what the skill does", () => {
    expect(asWhatItDoes("Check out the cart and place the order")).toBe("Checks out the cart and places the order");
    expect(asWhatItDoes("Add two tasks, tick the first and show the open ones.")).toBe("Adds two tasks, ticks the first and shows the open ones");
    expect(asWhatItDoes("Apply for the team plan")).toBe("Applies for the team plan");
    expect(asWhatItDoes("Search the help center")).toBe("Searches the help center");
    expect(asWhatItDoes("The monthly report")).toBe("The monthly report");
    expect(asWhatItDoes("Downloads invoices")).toBe("Downloads invoices");
  });
});

describe("a list drawn anew and sorted when an item is ticked (issue #35)", () => {
  const E = "http://127.0.0.1:4200/";
  type Toggles = NonNullable<PageSnapshot["toggles"]>;
  const list = (items: number, checked: number): Lists => [{ name: "Errands", role: "list", items, checked }];
  const box = (row: number, row_text: string, state = "unchecked") => ({ role: "checkbox", row, row_text, state });
  const errands = (toggles: Toggles) =>
    page(E, "Errands", { headings: ["Errands"], lists: list(toggles.length, toggles.filter((toggle) => toggle.state === "checked").length), toggles });

  function tickedFirst() {
    return (
      demonstration("Add an errand and mark the library books done")
        .open(errands([box(1, "Return library books"), box(2, "Buy stamps")]))
        .fill("What needs doing?", "e1", {}, errands([box(1, "Return library books"), box(2, "Buy stamps"), box(3, "•••")]))
        // The first row was ticked; once saved, the list is drawn again with it last.
        .act(
          { action: "toggle", label: "Check the checkbox", target_role: "checkbox", target_tag: "input", selectors: [["ul > li:nth-of-type(1) > input"]] },
          errands([box(1, "Buy stamps"), box(2, "•••"), box(3, "Return library books", "checked")]),
        )
        .compile()
    );
  }

  it("proves the ticked item by its own text, not by the place it was drawn in, and binds the step to that row", () => {
    const skill = tickedFirst();
    const last = skill.checkpoints.at(-1);
    expect(last?.success_condition).toBe('The checkbox of the item "Return library books" is checked');
    expect(parseSuccessCondition(last?.success_condition ?? "")).toMatchObject({
      kind: "control_state",
      row: { text: "Return library books" },
      state: "checked",
    });
    const toggleStep = last?.step_ids.at(-1) ?? "";
    expect(skill.targets?.[toggleStep]).toEqual({ role: "checkbox", row_text: "Return library books" });
    // Not the row the new errand (the parameter) was drawn in after sorting.
    expect(JSON.stringify(skill.checkpoints)).not.toContain("checkbox of the item showing {{what_needs_doing}}");
  });

  it("keeps the row of a typed value by its parameter, and a row whose text changed with its state by its position", () => {
    const typed = demonstration("Add an errand and tick it")
      .open(errands([box(1, "Buy stamps")]))
      .fill("What needs doing?", "e1", {}, errands([box(1, "Buy stamps"), box(2, "•••")]))
      .act(
        { action: "toggle", label: "Check the checkbox", target_role: "checkbox", target_tag: "input" },
        errands([box(1, "Buy stamps"), box(2, "•••", "checked")]),
      )
      .compile();
    expect(typed.checkpoints.at(-1)?.success_condition).toBe("The checkbox of the item showing {{what_needs_doing}} is checked");
    const restyled = demonstration("Tick the stamps")
      .open(errands([box(1, "Buy stamps"), box(2, "Return library books")]))
      .act(
        { action: "toggle", label: "Check the checkbox", target_role: "checkbox", target_tag: "input" },
        errands([box(1, "Buy stamps (done)", "checked"), box(2, "Return library books")]),
      )
      .compile();
    expect(restyled.checkpoints.at(-1)?.success_condition).toBe('The checkbox of item 1 of the "Errands" list is checked');
  });
});
