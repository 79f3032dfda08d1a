import { describe, expect, it } from "vitest";
import { parseSuccessCondition } from "../../../../shared/learning/checkpoints/success-conditions";
import { type SkillParameter } from "../../../../shared/execution/checkpoint-plan";
import { W, dashboard, demonstration, page, signedOut, wikiDemonstration } from "../../../test-support/demonstration-builder";
import { lintCheckpoints } from "./checkpoint-lint";
import { hasPerRunValue, stablePart, withParameters } from "./goal-evidence";

/**
 * Issue #35 "Goal evidence first": demonstrations shaped as the capture records a multi-page app
 * (server-rendered pages, a sign-in, forms that post and redirect). Each names one kind of evidence
 * that real apps offered and that proved nothing about the goal. A ticked row of a list drawn anew:
 * `goal-evidence-ticked-rows.test.ts`; the description the skill gets: `../skill-description.test.ts`.
 */

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
