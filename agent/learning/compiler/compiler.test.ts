import { createHash, randomUUID } from "node:crypto";
import { parse as parseRecorderFlow } from "@puppeteer/replay";
import { describe, expect, it } from "vitest";
import type { WorkflowBoundary } from "../../../shared/learning/sessions/boundary";
import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { RecorderFlowSchema } from "../../../shared/execution/recorder-flow";
import { lintCheckpoints } from "./checkpoints/checkpoint-lint";
import { emitRecorderFlow } from "./emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown, emitTriggerTests } from "./emit-skill";
import { parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import { interpretTrace } from "./interpret";
import { normalizeTrace } from "./normalize-trace";
import { CapabilityManifestSchema } from "../../../shared/capabilities/capability-manifest";
import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { maskUrl } from "../../../shared/observation/url-rule";
import { createValueRefs, valueRef } from "../../../shared/observation/value-ref";

const SESSION = randomUUID();
const SITE = "http://127.0.0.1:8123";
let clock = Date.parse("2026-11-22T10:00:00Z");
const at = () => new Date((clock += 1000)).toISOString();

function page(title: string, extra: Partial<PageSnapshot> = {}): PageSnapshot {
  return {
    url: `${SITE}/`,
    title,
    headings: [{ level: 1, text: title }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
    ...extra,
  };
}
const ref = (snapshot: PageSnapshot) => `snapshot:${createHash("sha256").update(canonicalJson(snapshot)).digest("hex")}`;

function dom(
  label: string,
  detail: Partial<NonNullable<ObservedActionEventWithDetail["browser_detail"]>>,
  extra: Partial<ObservedActionEventWithDetail> = {},
): ObservedActionEventWithDetail {
  return {
    event_id: randomUUID(),
    learn_session_id: SESSION,
    adapter_kind: "browser_dom",
    app_family: "browser",
    action_label: label,
    caused_state_change: false,
    redaction_mode: "hash_only",
    created_at: at(),
    schema_version: 1,
    browser_detail: { page_url: `${SITE}/signup`, page_title: "Create account", selectors: [], ...detail },
    ...extra,
  };
}

const signupPage = page("Create account", {
  forms: [
    {
      name: "Sign up",
      fields: [
        { label: "Email", type: "email", required: true },
        { label: "Password", type: "password", required: true },
      ],
    },
  ],
  buttons: ["Sign up"],
});
const welcomePage = page("Welcome", { status_messages: ["Your account is ready"] });

function signupTrace() {
  const events: ObservedActionEventWithDetail[] = [
    dom("Open 'Create account'", { dom_event_kind: "navigation" }, { after_state_ref: ref(signupPage) }),
    dom("Click 'Email'", {
      dom_event_kind: "click",
      target_role: "textbox",
      target_name: "Email",
      target_tag: "input",
      input_type: "email",
      selectors: [['aria/Email[role="textbox"]'], ["#email"]],
    }),
    dom("Fill 'Email'", {
      dom_event_kind: "change",
      target_role: "textbox",
      target_name: "Email",
      target_tag: "input",
      input_type: "email",
      selectors: [['aria/Email[role="textbox"]'], ["#email"]],
      masked_field: { masked: true, length_class: "medium", value_hash: "a".repeat(64) },
    }),
    dom("Fill 'Email'", {
      dom_event_kind: "change",
      target_role: "textbox",
      target_name: "Email",
      target_tag: "input",
      input_type: "email",
      selectors: [['aria/Email[role="textbox"]'], ["#email"]],
      masked_field: { masked: true, length_class: "medium", value_hash: "b".repeat(64) },
    }),
    dom("Fill 'Password'", {
      dom_event_kind: "change",
      target_role: "textbox",
      target_name: "Password",
      target_tag: "input",
      input_type: "password",
      selectors: [['aria/Password[role="textbox"]'], ["#password"]],
      masked_field: { masked: true, length_class: "medium", reason: "password" },
    }),
    dom("Fill 'Confirm email'", {
      dom_event_kind: "change",
      target_role: "textbox",
      target_name: "Confirm email",
      target_tag: "input",
      input_type: "email",
      selectors: [['aria/Confirm email[role="textbox"]'], ["#email2"]],
      masked_field: { masked: true, length_class: "medium", value_hash: "b".repeat(64) },
    }),
    dom(
      "Click 'Sign up'",
      {
        dom_event_kind: "click",
        target_role: "button",
        target_name: "Sign up",
        target_tag: "button",
        selectors: [['[data-testid="signup"]'], ['aria/Sign up[role="button"]'], ["text/Sign up"]],
      },
      { before_state_ref: ref(signupPage), after_state_ref: ref(welcomePage), caused_state_change: true },
    ),
    dom("Open 'Welcome'", { dom_event_kind: "navigation", page_url: `${SITE}/welcome`, page_title: "Welcome" }, { after_state_ref: ref(welcomePage) }),
  ];
  const snapshots = new Map([signupPage, welcomePage].map((snapshot) => [ref(snapshot).slice("snapshot:".length), snapshot]));
  return { events, snapshots };
}

describe("the deterministic compiler on a sign-up demonstration", () => {
  const { events, snapshots } = signupTrace();
  const boundaries: WorkflowBoundary[] = [
    {
      boundary_id: randomUUID(),
      learn_session_id: SESSION,
      kind: "mark_goal",
      source: "user_click",
      label: "Create an account on the shop",
      created_at: at(),
      schema_version: 1,
    },
  ];
  const trace = normalizeTrace({ events, boundaries });
  const interpretation = interpretTrace({ trace, snapshots, answers: {} });
  const markdown = emitSkillMarkdown(interpretation);

  it("merges keystrokes and focus clicks into one readable step per field", () => {
    expect(trace.steps.map((step) => step.label)).toEqual([
      "Open 'Create account'",
      "Fill 'Email'",
      "Fill 'Password'",
      "Fill 'Confirm email'",
      "Click 'Sign up'",
    ]);
    expect(trace.goal).toBe("Create an account on the shop");
  });

  it("makes one parameter per masked field, and one for a hashed value typed twice", () => {
    expect(interpretation.parameters.map((parameter) => [parameter.name, parameter.type_hint])).toEqual([
      ["email", "email"],
      ["password", "secret"],
    ]);
    expect(interpretation.parameters[0]?.step_ids).toHaveLength(2);
  });

  it("turns the state change into a checkpoint with observable evidence that passes lint", () => {
    const last = interpretation.checkpoints.at(-1);
    expect(last?.success_condition).toBe('The page says "Your account is ready"');
    expect(lintCheckpoints(interpretation.checkpoints).passed).toBe(true);
  });

  it("R11.2-26: writes SKILL.md as checkpoints and inputs, with no selector, coordinate or click script", () => {
    expect(markdown).toContain("## Checkpoints");
    expect(markdown).toContain("{{email}}");
    expect(markdown).not.toMatch(/data-testid|#email|aria\/|xpath|offsetX|\(\d+, ?\d+\)/);
    expect(markdown).not.toMatch(/click .* then click/i);
    expect(parseSkillFrontmatter(markdown)).toMatchObject({ name: "create-an-account-on-the-shop", title: "Create an account on the shop" });
  });

  it("R11.2-27: keeps the workflow graph out of SKILL.md", () => {
    expect(markdown).not.toContain(interpretation.graph.workflow_id);
    expect(markdown).not.toContain("verify-cp-");
  });

  it("emits a Recorder flow the executor reads back unchanged (shared/execution/recorder-flow.ts)", () => {
    const flow = emitRecorderFlow(interpretation, trace.steps);
    expect(RecorderFlowSchema.parse(JSON.parse(JSON.stringify(flow)))).toEqual(flow);
  });

  it("emits a Recorder flow that @puppeteer/replay parses, with placeholders instead of values", () => {
    const flow = emitRecorderFlow(interpretation, trace.steps);
    const parsed = parseRecorderFlow(JSON.parse(JSON.stringify(flow)));
    expect(parsed.title).toBe(interpretation.title);
    const change = parsed.steps.find((step) => step.type === "change");
    expect(change).toMatchObject({ value: "{{email}}" });
    const click = parsed.steps.find((step) => step.type === "click");
    expect((click as { selectors: string[][] }).selectors.length).toBeGreaterThanOrEqual(2);
  });

  it("emits a valid capability manifest and at least 3 positive, 3 paraphrase and 3 negative trigger tests", () => {
    expect(CapabilityManifestSchema.safeParse(emitCapabilityManifest(interpretation, "cap-x")).success).toBe(true);
    const tests = emitTriggerTests(interpretation);
    expect(tests.positive.length).toBeGreaterThanOrEqual(3);
    expect(tests.paraphrases.length).toBeGreaterThanOrEqual(3);
    expect(tests.negative.length).toBeGreaterThanOrEqual(3);
  });

  it("asks for the goal when none was marked, and for success when nothing observable changed", () => {
    const bare = normalizeTrace({ events: events.slice(0, 3), boundaries: [] });
    const questions = interpretTrace({ trace: bare, snapshots: new Map(), answers: {} }).questions;
    expect(questions.filter((question) => question.required).map((question) => question.field)).toEqual(["goal_summary", "success_condition"]);
    const answered = interpretTrace({
      trace: bare,
      snapshots: new Map(),
      answers: { goal_summary: "Register a customer", success_condition: "The customer list shows the new customer" },
    });
    expect(answered.questions.filter((question) => question.required)).toEqual([]);
    expect(emitSkillMarkdown(answered)).toContain("Register a customer");
  });

  it("renders page-derived text as plain text", () => {
    const hostile = interpretTrace({
      trace: normalizeTrace({ events, boundaries: [{ ...boundaries[0]!, label: "<img src=x onerror=alert(1)> [link](http://evil)" }] }),
      snapshots,
      answers: {},
    });
    const body = emitSkillMarkdown(hostile).split("\n---\n")[1] ?? "";
    // Markup characters are escaped in the body, so a Markdown renderer shows them as text.
    expect(body).not.toMatch(/(^|[^\\])<img/);
    expect(body).not.toMatch(/(^|[^\\])\[link\]\(/);
    expect(body).toContain("\\<img");
  });
});

describe("a checkpoint over several steps the person named", () => {
  it("keeps every name, in order, as its goal (a coaching session's words for steps no page change told apart)", () => {
    const { events, snapshots } = signupTrace();
    const mark = (label: string, eventIndex: number): WorkflowBoundary => ({
      boundary_id: randomUUID(),
      learn_session_id: SESSION,
      kind: "mark_step",
      source: "user_click",
      label,
      source_event_id: events[eventIndex]!.event_id,
      created_at: events[eventIndex]!.created_at,
      schema_version: 1,
    });
    const boundaries: WorkflowBoundary[] = [
      {
        boundary_id: randomUUID(),
        learn_session_id: SESSION,
        kind: "mark_goal",
        source: "user_click",
        label: "Create an account on the shop",
        created_at: at(),
        schema_version: 1,
      },
      mark("type the email", 2),
      mark("choose a password", 4),
    ];
    const interpretation = interpretTrace({ trace: normalizeTrace({ events, boundaries }), snapshots, answers: {} });
    const named = interpretation.checkpoints.find((checkpoint) => checkpoint.goal.includes("type the email"));
    expect(named?.goal, JSON.stringify(interpretation.checkpoints.map((checkpoint) => checkpoint.goal))).toBe("type the email, then choose a password");
  });
});

describe("addresses in the flow (issue #35)", () => {
  const KEY = "session-key-for-the-wiki-0123";
  const TITLE = "Meeting notes";
  /** What the content script sends for an address once the person typed the title (the privacy boundary's rule). */
  const recorded = (url: string) => {
    const scrubber = createTypedValueScrubber([TITLE]);
    return maskUrl(url, { scrub: (text, replace) => scrubber.scrub(text, replace), ref: createValueRefs(KEY) });
  };
  const titleField = { target_role: "textbox", target_name: "Title", target_tag: "input", input_type: "text", selectors: [["#title"]] };

  function flowOf(urls: string[]) {
    const events: ObservedActionEventWithDetail[] = [
      ...urls.map((url) => dom("Open 'Wiki'", { dom_event_kind: "navigation", page_url: url })),
      // The edit page's address holds the title the person types on it, as a wiki's does.
      dom("Fill 'Title'", {
        dom_event_kind: "change",
        page_url: urls.at(-1),
        ...titleField,
        masked_field: { masked: true, length_class: "medium", value_ref: valueRef(KEY, TITLE) },
      }),
      dom(
        "Click 'Save'",
        { dom_event_kind: "click", page_url: urls.at(-1), target_role: "button", target_name: "Save", target_tag: "button", selectors: [["#save"]] },
        { caused_state_change: true },
      ),
    ];
    const trace = normalizeTrace({ events, boundaries: [] });
    const interpretation = interpretTrace({ trace, snapshots: new Map(), answers: {} });
    return { interpretation, flow: emitRecorderFlow(interpretation, trace.steps) };
  }

  it("opens a recorded ?page=<typed title> with the title's parameter there, and keeps the values that route", () => {
    const edit = recorded(`${SITE}/doku.php?page=Meeting%20notes&do=edit&sectok=9a8b7c6d5e`);
    expect(edit).not.toContain("Meeting");
    const { interpretation, flow } = flowOf([recorded(`${SITE}/doku.php?page=start&do=show`), edit]);
    expect(interpretation.parameters.map((parameter) => parameter.name)).toEqual(["title"]);
    const opened = flow.steps.flatMap((step) => (step.type === "navigate" ? [step.url] : []));
    // The CSRF value is left out, never replayed as `*`.
    expect(opened).toEqual([`${SITE}/doku.php?page=start&do=show`, `${SITE}/doku.php?page={{title}}&do=edit`]);
    expect(JSON.stringify(flow)).not.toMatch(/\*typed|=\*/);
    expect(parseRecorderFlow(flow).steps.length).toBe(flow.steps.length);
  });

  it("starts on the site's root when the first address has a secret in its path, and leaves out an address no parameter explains", () => {
    const { flow } = flowOf([recorded(`${SITE}/reset/9f2c1b77aa/start`), `${SITE}/doku.php?page=*typed-0123456789ab*&do=edit`]);
    const opened = flow.steps.flatMap((step) => (step.type === "navigate" ? [step.url] : []));
    expect(opened).toEqual([`${SITE}/`, `${SITE}/doku.php?do=edit`]);
  });
});
