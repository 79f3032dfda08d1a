import { describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { parseSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";
import { lintCheckpoints } from "./checkpoints/checkpoint-lint";
import { emitSkillMarkdown } from "./emit-skill";
import { emitRecorderFlow } from "./emit-recorder-flow";
import { interpretTrace } from "./interpret";
import type { NormalizedStep, NormalizedTrace } from "./normalize-trace";

/**
 * Issue #35: a sign-in in a recorded-like trace (what the capture sends, values masked at the
 * source) becomes a sub-goal "Signed in as {{username}}" with a secret password input and the
 * signed-in state as its evidence; forms that only look like one do not.
 */

const ORIGIN = "http://wiki.test";
type Form = PageSnapshot["forms"][number];

function page(
  pathname: string,
  parts: { title?: string; headings?: string[]; buttons?: string[]; links?: string[]; forms?: Form[]; status?: string[]; hover?: string[] } = {},
): PageSnapshot {
  return {
    url: `${ORIGIN}${pathname}`,
    title: parts.title ?? "Wiki",
    headings: (parts.headings ?? []).map((text) => ({ level: 1, text })),
    landmarks: [],
    dialogs: [],
    forms: parts.forms ?? [],
    buttons: parts.buttons ?? [],
    links: parts.links ?? [],
    status_messages: parts.status ?? [],
    lists: [],
    toggles: [],
    texts: [],
    hover_revealed: parts.hover ?? [],
    schema_version: 1,
  };
}

const loginForm: Form = {
  name: "Log in",
  fields: [
    { label: "Username", type: "text", required: true },
    { label: "Password", type: "password", required: true },
  ],
};

let clock = 0;
const at = () => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, (clock += 1000))).toISOString();

function step(partial: Partial<NormalizedStep> & Pick<NormalizedStep, "action" | "label">): NormalizedStep {
  return {
    step_id: "",
    user_labelled: false,
    selectors: [["#x"]],
    caused_state_change: false,
    event_ids: [],
    created_at: at(),
    page_url: `${ORIGIN}/login`,
    page_title: "Log in — Wiki",
    ...partial,
  };
}

const username = (extra: Partial<NormalizedStep> = {}) =>
  step({
    action: "fill",
    label: "Fill 'Username'",
    target_name: "Username",
    target_role: "textbox",
    target_tag: "input",
    input_type: "text",
    selectors: [["#user"]],
    masked_value: { length_class: "short" },
    ...extra,
  });
const password = (name = "Password", extra: Partial<NormalizedStep> = {}) =>
  step({
    action: "fill",
    label: `Fill '${name}'`,
    target_name: name,
    target_role: "textbox",
    target_tag: "input",
    input_type: "password",
    selectors: [[`#${name.toLowerCase().replace(/\W+/g, "-")}`]],
    masked_value: { length_class: "short", reason: "secret_field" },
    ...extra,
  });
const click = (name: string, extra: Partial<NormalizedStep> = {}) =>
  step({
    action: "click",
    label: `Click '${name}'`,
    target_name: name,
    target_role: "button",
    target_tag: "button",
    selectors: [[`aria/${name}[role="button"]`]],
    ...extra,
  });

interface Demo {
  trace: NormalizedTrace;
  snapshots: Map<string, PageSnapshot>;
  moments: Array<{ at: string; ref: string }>;
}

/** Steps with snapshots: each `[step, before, after]`, a settled moment after each step that changed the page. */
function demo(rows: Array<[NormalizedStep, PageSnapshot, PageSnapshot | undefined]>, goal = "Create a wiki page"): Demo {
  const snapshots = new Map<string, PageSnapshot>();
  const refOf = (snapshot: PageSnapshot) => {
    const name = `p${snapshots.size}-${snapshot.url}-${snapshot.title}`;
    for (const [key, value] of snapshots) if (value === snapshot) return `snapshot:${key}`;
    snapshots.set(name, snapshot);
    return `snapshot:${name}`;
  };
  const moments: Demo["moments"] = [];
  const steps = rows.map(([entry, before, after], index) => {
    entry.step_id = `s${index + 1}`;
    entry.before_state_ref = refOf(before);
    entry.after_state_ref = refOf(after ?? before);
    if (after !== undefined) moments.push({ at: new Date(Date.parse(entry.created_at) + 300).toISOString(), ref: refOf(after) });
    return entry;
  });
  return {
    trace: { steps, goal, pages: [{ url: `${ORIGIN}/login`, title: "Log in — Wiki" }], dropped: { noise: 0, outside_boundaries: 0, merged: 0 } },
    snapshots,
    moments,
  };
}

const login = page("/login", { title: "Log in — Wiki", headings: ["Log in"], buttons: ["Log in"], links: ["Main page", "Create account"], forms: [loginForm] });
const home = (greeting = "Welcome, •••") =>
  page("/home", { title: "Dashboard — Wiki", headings: ["Dashboard", greeting], links: ["Main page", "New page", "Log out"], buttons: ["Search"] });
const editor = page("/edit", {
  title: "New page — Wiki",
  headings: ["New page"],
  buttons: ["Save page"],
  links: ["Log out"],
  forms: [{ fields: [{ label: "Title", type: "text", required: true }] }],
});
const saved = page("/view", { title: "Saved — Wiki", headings: ["•••"], links: ["Log out", "Edit"], status: ["Your page was saved."] });

function signInThenCreate(options: { greeting?: string; submit?: "click" | "enter" } = {}): Demo {
  clock = 0;
  const submit =
    options.submit === "enter"
      ? step({
          action: "press",
          label: "Press Enter in 'Password'",
          target_name: "Password",
          target_role: "textbox",
          target_tag: "input",
          input_type: "password",
          selectors: [["#password"]],
        })
      : click("Log in");
  return demo([
    [username(), login, undefined],
    [password(), login, undefined],
    [submit, login, home(options.greeting)],
    [
      step({
        action: "click",
        label: "Click 'New page'",
        target_name: "New page",
        target_role: "link",
        target_tag: "a",
        selectors: [['aria/New page[role="link"]']],
        page_url: `${ORIGIN}/home`,
      }),
      home(options.greeting),
      editor,
    ],
    [
      step({
        action: "fill",
        label: "Fill 'Title'",
        target_name: "Title",
        target_role: "textbox",
        target_tag: "input",
        input_type: "text",
        selectors: [["#title"]],
        masked_value: { length_class: "short" },
        page_url: `${ORIGIN}/edit`,
      }),
      editor,
      undefined,
    ],
    [click("Save page", { page_url: `${ORIGIN}/edit` }), editor, saved],
  ]);
}

describe("a sign-in is a sub-goal of its own (issue #35)", () => {
  it("recognises fill username, fill password, click 'Log in', then a page with 'Log out': 'Signed in as {{username}}', proved by the signed-in state", () => {
    const { trace, snapshots, moments } = signInThenCreate();
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    const [signIn, ...rest] = interpretation.checkpoints;
    expect(signIn).toMatchObject({
      goal: "Signed in as {{username}}",
      success_condition: 'The page says "Log out"',
      step_ids: ["s1", "s2", "s3"],
      observable: true,
      verification: { by: "page" },
      sign_in: {
        step_ids: ["s1", "s2", "s3"],
        username_parameter: "username",
        password_parameter: "password",
        signed_in_controls: ["Log out"],
        signed_in_url: `${ORIGIN}/home`,
      },
    });
    expect(parseSuccessCondition(signIn?.success_condition ?? "").kind).toBe("page_says");
    // Nothing else is a sign-in; the password is in no checkpoint's words.
    expect(rest.every((checkpoint) => checkpoint.sign_in === undefined)).toBe(true);
    expect(JSON.stringify(interpretation.checkpoints.map(({ goal, success_condition }) => [goal, success_condition]))).not.toContain("{{password}}");
    expect(lintCheckpoints(interpretation.checkpoints).passed).toBe(true);
  });

  it("makes the password a secret input and the username an ordinary one; SKILL.md says so and the flow holds placeholders only", () => {
    const { trace, snapshots, moments } = signInThenCreate();
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    expect(interpretation.parameters.map(({ name, type_hint }) => [name, type_hint])).toEqual([
      ["username", "text"],
      ["password", "secret"],
      ["title", "text"],
    ]);
    const markdown = emitSkillMarkdown(interpretation);
    expect(markdown).toContain("`{{password}}` — Password (secret)");
    expect(markdown).toContain('1. **Signed in as {{username}}** — success: The page says "Log out"');
    expect(markdown).toContain("If the page already shows you signed in");
    const flow = emitRecorderFlow(interpretation, trace.steps);
    expect(flow.steps.filter((entry) => entry.type === "change").map((entry) => (entry.type === "change" ? entry.value : ""))).toEqual([
      "{{username}}",
      "{{password}}",
      "{{title}}",
    ]);
  });

  it("recognises a sign-in whose 'Log out' waits in a closed account menu ('Howdy, Jon'), and never makes the greeting evidence", () => {
    clock = 0;
    const dashboard = page("/admin", {
      title: "Dashboard — Blog",
      headings: ["Dashboard"],
      buttons: ["Howdy, Jon"],
      links: ["New draft"],
      hover: ["Edit profile", "Log out"],
    });
    const { trace, snapshots, moments } = demo([
      [username(), login, undefined],
      [password(), login, undefined],
      [click("Log in"), login, dashboard],
    ]);
    const [signIn] = interpretTrace({ trace, snapshots, moments, answers: {} }).checkpoints;
    expect(signIn?.goal).toBe("Signed in");
    expect(signIn?.sign_in).toMatchObject({ step_ids: ["s1", "s2", "s3"], signed_in_controls: ["Log out"], password_parameter: "password" });
    expect(signIn?.success_condition).not.toContain("Howdy");
  });

  it("names the control as a person says it: an icon's text beside its label is not said twice", () => {
    clock = 0;
    const console = page("/server", { title: "Server — Console", headings: ["General settings"], links: ["Log out Log out", "Databases"] });
    const { trace, snapshots, moments } = demo([
      [username(), login, undefined],
      [password(), login, undefined],
      [click("Log in"), login, console],
    ]);
    const [signIn] = interpretTrace({ trace, snapshots, moments, answers: {} }).checkpoints;
    expect(signIn?.success_condition).toBe('The page says "Log out"');
  });

  it("says 'Signed in' when the page never shows the name, and takes an Enter in the password field as the submit", () => {
    const { trace, snapshots, moments } = signInThenCreate({ greeting: "Welcome back", submit: "enter" });
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    expect(interpretation.checkpoints[0]).toMatchObject({ goal: "Signed in", sign_in: { step_ids: ["s1", "s2", "s3"], password_parameter: "password" } });
  });

  it("takes the 'Log in' link that opened the sign-in page into the sign-in: a signed-in browser has no such link", () => {
    clock = 0;
    const start = page("/start", { title: "Wiki", headings: ["Main page"], links: ["Log in", "Create account"] });
    const { trace, snapshots, moments } = demo([
      [
        step({
          action: "click",
          label: "Click 'Log in'",
          target_name: "Log in",
          target_role: "link",
          target_tag: "a",
          page_url: `${ORIGIN}/start`,
          selectors: [['aria/Log in[role="link"]']],
        }),
        start,
        login,
      ],
      [username(), login, undefined],
      [password(), login, undefined],
      [click("Log in"), login, home()],
    ]);
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    expect(interpretation.checkpoints).toHaveLength(1);
    expect(interpretation.checkpoints[0]).toMatchObject({
      goal: "Signed in as {{username}}",
      step_ids: ["s1", "s2", "s3", "s4"],
      sign_in: { step_ids: ["s1", "s2", "s3", "s4"] },
    });
  });

  it("is not a sign-up: a password typed twice (password and confirmation) creates an account", () => {
    clock = 0;
    const signup = page("/signup", {
      title: "Create account — Wiki",
      headings: ["Create account"],
      buttons: ["Create account"],
      forms: [
        {
          fields: [
            { label: "Username", type: "text", required: true },
            { label: "Password", type: "password", required: true },
            { label: "Confirm password", type: "password", required: true },
          ],
        },
      ],
    });
    const { trace, snapshots, moments } = demo([
      [username({ page_url: `${ORIGIN}/signup` }), signup, undefined],
      [password("Password", { page_url: `${ORIGIN}/signup` }), signup, undefined],
      [password("Confirm password", { page_url: `${ORIGIN}/signup` }), signup, undefined],
      [click("Create account", { page_url: `${ORIGIN}/signup` }), signup, home()],
    ]);
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    expect(interpretation.checkpoints.some((checkpoint) => checkpoint.sign_in !== undefined || /^Signed in/.test(checkpoint.goal))).toBe(false);
    // Still secret inputs, both.
    expect(interpretation.parameters.filter((parameter) => parameter.type_hint === "secret").map((parameter) => parameter.name)).toEqual([
      "password",
      "confirm_password",
    ]);
  });

  it("is not a sign-up with one password field either, when its button says it creates an account", () => {
    clock = 0;
    const signup = page("/signup", { title: "Join — Wiki", headings: ["Join"], buttons: ["Create account"], forms: [loginForm] });
    const { trace, snapshots, moments } = demo([
      [username({ page_url: `${ORIGIN}/signup` }), signup, undefined],
      [password("Password", { page_url: `${ORIGIN}/signup` }), signup, undefined],
      [click("Create account", { page_url: `${ORIGIN}/signup` }), signup, home()],
    ]);
    expect(interpretTrace({ trace, snapshots, moments, answers: {} }).checkpoints.some((checkpoint) => checkpoint.sign_in !== undefined)).toBe(false);
  });

  it("is not a password change: the page showed 'Log out' while the password was typed", () => {
    clock = 0;
    const change = page("/account", {
      title: "Account — Wiki",
      headings: ["Change password"],
      buttons: ["Save"],
      links: ["Log out"],
      forms: [
        {
          fields: [
            { label: "Current password", type: "password", required: true },
            { label: "New password", type: "password", required: true },
          ],
        },
      ],
    });
    const done = page("/account", { title: "Account — Wiki", headings: ["Change password"], links: ["Log out"], status: ["Password changed."] });
    const { trace, snapshots, moments } = demo([
      [password("New password", { page_url: `${ORIGIN}/account` }), change, undefined],
      [click("Save", { page_url: `${ORIGIN}/account` }), change, done],
    ]);
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    expect(interpretation.checkpoints.some((checkpoint) => checkpoint.sign_in !== undefined || /^Signed in/.test(checkpoint.goal))).toBe(false);
  });

  it("is not a sign-in when the page still asks for the password afterwards (a wrong password, the form shown again)", () => {
    clock = 0;
    const again = page("/login", {
      title: "Log in — Wiki",
      headings: ["Log in"],
      buttons: ["Log in"],
      links: ["Log out"],
      forms: [loginForm],
      status: ["Wrong password."],
    });
    const { trace, snapshots, moments } = demo([
      [username(), login, undefined],
      [password(), login, undefined],
      [click("Log in"), login, again],
    ]);
    expect(interpretTrace({ trace, snapshots, moments, answers: {} }).checkpoints.some((checkpoint) => checkpoint.sign_in !== undefined)).toBe(false);
  });
});
