import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseRecorderFlow } from "@puppeteer/replay";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { canaryNeedles } from "../../../e2e/golden/canaries";
import { CapabilityManifestSchema } from "../../../shared/capabilities/capability-manifest";
import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { PageSnapshotSchema, canonicalJson, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { PORTABLE_SKILL_NAME_PATTERN, parseSkillFrontmatter } from "../../../shared/skills/frontmatter";
import { lintCheckpoints } from "./checkpoints/checkpoint-lint";
import { emitRecorderFlow } from "./emit-recorder-flow";
import { emitCapabilityManifest, emitSkillMarkdown } from "./emit-skill";
import { interpretTrace, type AnswersByField } from "./interpret";
import { normalizeTrace, type NormalizedStep } from "./normalize-trace";

/**
 * Golden demonstrations (issue #5, Tests): traces recorded with the built extension in real
 * Chromium on the fixture sites of e2e/golden/ (`node --import tsx e2e/golden/record-golden.ts`),
 * compiled here as generate-proposal compiles a session. Ids, timestamps, hashes and the fixture
 * port change with every recording; nothing below depends on them.
 */

const GOLDEN_DIR = fileURLToPath(new URL("./golden/", import.meta.url));

interface Expected {
  /** Marked with mark-goal during the recording; the other flows must ask for it. */
  goal?: string;
  /** What the user did, in order (other steps may sit between them). */
  did: string[];
  /** One per masked field; `uses` > 1 for a hashed value typed into two fields. */
  parameters: Record<string, { uses: number; type?: string }>;
  /** What shows each checkpoint was reached, in order: the text, or a matcher where the page's text varies. */
  successes: unknown[];
}

const FLOWS: Record<"signup" | "search" | "checkout" | "dialog", Expected> = {
  signup: {
    goal: "Create a customer account on Fixture Shop",
    did: [
      "Open 'Create your account — Fixture Shop'",
      "Fill 'Full name'",
      "Fill 'Email'",
      "Fill 'Password'",
      "Fill 'Confirm email'",
      "Check 'I accept the terms of service'",
      "Click 'Create account'",
    ],
    parameters: { full_name: { uses: 1, type: "text" }, email: { uses: 2, type: "email" }, password: { uses: 1, type: "secret" } },
    successes: ['A page titled "Create your account — Fixture Shop" is shown', 'The page says "Your account is ready"'],
  },
  search: {
    did: ["Open 'Help Center'", "Fill 'Search articles'", "Press Enter in 'Search articles'", "Click 'How to return an item'"],
    parameters: { search_articles: { uses: 1, type: "text" } },
    successes: [
      'A page titled "Help Center" is shown',
      // Issue #35: the results page's heading shows the query typed, which proves more than its fixed title.
      'The heading "Results for “{{search_articles}}”" appears',
      'A page titled "How to return an item — Help Center" is shown',
    ],
  },
  checkout: {
    goal: "Check out the cart and place the order",
    did: [
      "Open 'Your cart — Fixture Shop'",
      "Click 'Proceed to checkout'",
      "Fill 'Full name'",
      "Fill 'Street address'",
      "Fill 'City'",
      "Select 'Express (1–2 days)' in 'Delivery speed'",
      "Click 'Continue to payment'",
      "Fill 'Card number'",
      "Click 'Place order'",
    ],
    parameters: {
      full_name: { uses: 1, type: "text" },
      street_address: { uses: 1, type: "text" },
      city: { uses: 1, type: "text" },
      card_number: { uses: 1, type: "secret" },
    },
    successes: [
      'A page titled "Your cart — Fixture Shop" is shown',
      'A page titled "Shipping — Fixture Shop" is shown',
      'A page titled "Payment — Fixture Shop" is shown',
      // Not the status line: it carries this run's order number, which the next run will not show.
      'A page titled "Order placed — Fixture Shop" is shown',
    ],
  },
  dialog: {
    did: ["Open 'Apollo settings — Tasks'", "Click 'Delete project'", "Click 'Confirm'"],
    parameters: {},
    successes: ['A page titled "Apollo settings — Tasks" is shown', 'A dialog "Delete this project?" is open', 'The page says "Project deleted"'],
  },
};
type FlowName = keyof typeof FLOWS;

/** Selector syntax of every kind the content script records (css, ARIA, text, XPath, pierce). */
const SELECTOR_LOOKING =
  /(^|[\s(])[#.][A-Za-z_][\w-]*|\[[\w-]+(?:[~|^$*]?=|\])|\b(?:aria|text|xpath|pierce)\/|\/\/[a-z*]|:nth-(?:of-type|child)\b|\w\s*>\s*\w+\s*>/i;
const COORDINATE_LOOKING = /\boffset[XY]?\b|\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)|\b\d+\s*px\b|\b[xy]\s*[:=]\s*-?\d+|\bat\s+-?\d+\s*,\s*-?\d+/i;
/** A label says what a person did to something they could see, by its name. */
const READABLE_LABEL = /^(Open|Fill|Check|Uncheck|Select|Click|Submit|Press|Choose|Clear) .*'[^']+'/;

function files(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** A fixture as generate-proposal reads a session: events, its boundaries, its snapshots by sha. */
function loadFixture(flow: FlowName) {
  const folder = path.join(GOLDEN_DIR, flow);
  const events = readFileSync(path.join(folder, "events.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ObservedActionEventWithDetailSchema.parse(JSON.parse(line)));
  const boundaries = z.array(WorkflowBoundarySchema).parse(JSON.parse(readFileSync(path.join(folder, "boundaries.json"), "utf8")));
  const snapshotTexts = new Map<string, string>();
  const snapshots = new Map<string, PageSnapshot>();
  for (const name of readdirSync(path.join(folder, "snapshots"))) {
    const text = readFileSync(path.join(folder, "snapshots", name), "utf8");
    snapshotTexts.set(name.replace(/\.json$/, ""), text);
    snapshots.set(name.replace(/\.json$/, ""), PageSnapshotSchema.parse(JSON.parse(text)));
  }
  return { folder, events, boundaries, snapshots, snapshotTexts };
}

/** normalize → interpret → emit → lint, as the proposal service does it (agent/learning/proposal-service.ts). */
function compile(fixture: ReturnType<typeof loadFixture>, answers: AnswersByField = {}) {
  const trace = normalizeTrace({ events: fixture.events, boundaries: fixture.boundaries });
  const moments = fixture.events.flatMap((event) =>
    event.adapter_kind === "browser_snapshot" && event.after_state_ref !== undefined ? [{ at: event.created_at, ref: event.after_state_ref }] : [],
  );
  const interpretation = interpretTrace({ trace, snapshots: fixture.snapshots, moments, answers });
  const literals = trace.steps.map((step) => step.consented_value).filter((value): value is string => value !== undefined);
  return {
    trace,
    interpretation,
    markdown: emitSkillMarkdown(interpretation),
    recorder: emitRecorderFlow(interpretation, trace.steps),
    lint: lintCheckpoints(interpretation.checkpoints, literals),
  };
}

const snapshotAfter = (fixture: ReturnType<typeof loadFixture>, step: NormalizedStep | undefined) =>
  step?.after_state_ref?.startsWith("snapshot:") === true ? fixture.snapshots.get(step.after_state_ref.slice("snapshot:".length)) : undefined;

function expectNoCanary(text: string, where: string) {
  const lower = text.toLowerCase();
  for (const needle of canaryNeedles()) expect(lower.includes(needle.toLowerCase()), `${where} contains the typed value "${needle}"`).toBe(false);
  expect(text, `${where} contains part of a typed value`).not.toMatch(/canary/i);
}

describe.each(Object.keys(FLOWS) as FlowName[])("the golden %s demonstration", (flow) => {
  const expected = FLOWS[flow];
  const fixture = loadFixture(flow);
  const { trace, interpretation, markdown, recorder, lint } = compile(fixture);

  it("is a complete recording that holds nothing typed", () => {
    for (const file of files(fixture.folder)) expectNoCanary(readFileSync(file, "utf8"), path.relative(GOLDEN_DIR, file));
    // Every field edit arrived masked: no value, at most a keyed hash.
    const edits = fixture.events.filter((event) => event.browser_detail?.masked_field !== undefined);
    expect(edits.length).toBe(Object.values(expected.parameters).reduce((sum, parameter) => sum + parameter.uses, 0));
    for (const edit of edits) {
      expect(edit.browser_detail?.masked_field?.masked).toBe(true);
      expect(edit.browser_detail?.masked_field).not.toHaveProperty("value");
    }
    // Each snapshot is stored under the hash of its canonical JSON, and every one an event points at is here.
    for (const [sha, text] of fixture.snapshotTexts) expect(createHash("sha256").update(text).digest("hex")).toBe(sha);
    for (const [sha, snapshot] of fixture.snapshots) expect(canonicalJson(snapshot)).toBe(fixture.snapshotTexts.get(sha));
    const refs = fixture.events.flatMap((event) => [event.before_state_ref, event.after_state_ref]).filter((ref): ref is string => ref !== undefined);
    for (const ref of refs) expect(fixture.snapshots.has(ref.slice("snapshot:".length)), ref).toBe(true);
  });

  it("labels every step by what the user saw, never by a selector or a typed value", () => {
    const labels = trace.steps.map((step) => step.label);
    for (const label of labels) {
      expect(label).toMatch(READABLE_LABEL);
      expect(label).not.toMatch(SELECTOR_LOOKING);
      expectNoCanary(label, `the step label "${label}"`);
    }
    // What the user did is there, in order.
    const positions = expected.did.map((label) => labels.indexOf(label));
    expect(
      positions.every((position) => position >= 0),
      `steps: ${JSON.stringify(labels)}`,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("asks for one input per masked field, and one for a value typed into two fields", () => {
    expect(Object.fromEntries(interpretation.parameters.map((parameter) => [parameter.name, parameter.step_ids.length]))).toEqual(
      Object.fromEntries(Object.entries(expected.parameters).map(([name, parameter]) => [name, parameter.uses])),
    );
    for (const [name, { type }] of Object.entries(expected.parameters)) {
      if (type !== undefined) expect(interpretation.parameters.find((parameter) => parameter.name === name)?.type_hint, name).toBe(type);
    }
    // Every masked field edit is covered by exactly one parameter.
    for (const step of trace.steps.filter((candidate) => candidate.masked_value !== undefined)) {
      expect(
        interpretation.parameters.filter((parameter) => parameter.step_ids.includes(step.step_id)),
        step.label,
      ).toHaveLength(1);
    }
  });

  it("turns each state change into a checkpoint proven by what the page then shows, and passes the lint", () => {
    expect(interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition)).toEqual(expected.successes);
    for (const checkpoint of interpretation.checkpoints) {
      expect(checkpoint.observable, checkpoint.checkpoint_id).toBe(true);
      // The quoted evidence is on the page the stage ended on (an input's placeholder where the capture masked its value).
      const evidence = /"([^"]+)"/.exec(checkpoint.success_condition)?.[1]?.replace(/\{\{[a-z0-9_]+\}\}/g, "•••");
      const last = trace.steps.find((step) => step.step_id === checkpoint.step_ids.at(-1));
      expect(JSON.stringify(snapshotAfter(fixture, last)), checkpoint.checkpoint_id).toContain(JSON.stringify(evidence).slice(1, -1));
    }
    expect(lint).toEqual({ passed: true, findings: [], checked: expected.successes.length });
    // Even checked against what was typed, nothing of it is in a checkpoint.
    expect(lintCheckpoints(interpretation.checkpoints, canaryNeedles()).passed).toBe(true);
  });

  it("writes SKILL.md with a valid frontmatter, its inputs, and no selector, coordinate or typed value", () => {
    const frontmatter = parseSkillFrontmatter(markdown);
    expect(frontmatter).toMatchObject({ name: interpretation.slug, title: interpretation.title });
    expect(frontmatter?.name).toMatch(PORTABLE_SKILL_NAME_PATTERN);
    expect(frontmatter?.triggers.length).toBeGreaterThanOrEqual(1);
    expectNoCanary(markdown, "SKILL.md");
    const body = markdown.slice(markdown.indexOf("\n---\n") + 5);
    expect(body).not.toMatch(SELECTOR_LOOKING);
    expect(body).not.toMatch(COORDINATE_LOOKING);
    const recorded = new Set(fixture.events.flatMap((event) => event.browser_detail?.selectors.flat() ?? []));
    for (const selector of recorded) expect(markdown.includes(selector), `SKILL.md names the selector ${selector}`).toBe(false);
    for (const name of Object.keys(expected.parameters)) expect(body).toContain(`- \`{{${name}}}\``);
    expect(body.match(/^\d+\. \*\*/gm)).toHaveLength(interpretation.checkpoints.length);
    expect(CapabilityManifestSchema.safeParse(emitCapabilityManifest(interpretation, `learned.${interpretation.slug}`)).success).toBe(true);
  });

  it("emits a Recorder flow that @puppeteer/replay parses, with placeholders where values were typed", () => {
    const parsed = parseRecorderFlow(JSON.parse(JSON.stringify(recorder)));
    expect(parsed.title).toBe(interpretation.title);
    expect(parsed.steps.find((step) => step.type === "navigate")).toMatchObject({
      url: expect.stringContaining(fixture.events[0]?.browser_detail?.page_url ?? "?"),
    });
    const changes = parsed.steps.filter((step) => step.type === "change");
    expect(changes.map((step) => (step as { value: string }).value).sort()).toEqual(
      Object.entries(expected.parameters)
        .flatMap(([name, { uses }]) => Array.from({ length: uses }, () => `{{${name}}}`))
        .sort(),
    );
    expectNoCanary(JSON.stringify(recorder), "the Recorder flow");
  });

  if (expected.goal !== undefined) {
    it("takes the marked goal as the skill's goal and asks nothing that is required", () => {
      expect(interpretation).toMatchObject({ title: expected.goal, goal_summary: expected.goal });
      expect(interpretation.questions.filter((question) => question.required)).toEqual([]);
    });
  } else {
    it("asks for the goal, as a required question, because none was marked", () => {
      expect(interpretation.questions).toContainEqual(expect.objectContaining({ field: "goal_summary", required: true }));
      const answered = compile(fixture, { goal_summary: "Find a help article" });
      expect(answered.interpretation.questions.filter((question) => question.required)).toEqual([]);
      expect(parseSkillFrontmatter(answered.markdown)?.title).toBe("Find a help article");
    });
  }
});

/**
 * Weaknesses the first golden recordings showed, written as what must hold; each was fixed in
 * the compiler or the content script, and these keep them fixed.
 */
describe("defects the golden traces showed, now fixed", () => {
  const compiled = Object.fromEntries((Object.keys(FLOWS) as FlowName[]).map((flow) => [flow, compile(loadFixture(flow))])) as Record<
    FlowName,
    ReturnType<typeof compile>
  >;
  const formClicks = (flow: FlowName) =>
    compiled[flow].recorder.steps.filter((step) => step.type === "click" && step.selectors.every((parts) => /(^|[\s/>])form$/.test(parts.at(-1) ?? "")));

  it("emit-recorder-flow: a form sent by its button is not clicked again on the next page (the submit step)", () => {
    expect([...formClicks("signup"), ...formClicks("search"), ...formClicks("checkout")]).toEqual([]);
  });

  it("emit-skill: checkpoint lines name inputs as declared ({{full_name}}, not {{full\\_name}})", () => {
    const { markdown, interpretation } = compiled.signup;
    const placeholders = [...markdown.matchAll(/\{\{([^}]+)\}\}/g)].map((match) => match[1]);
    expect(new Set(placeholders)).toEqual(new Set(interpretation.parameters.map((parameter) => parameter.name)));
  });

  it("interpret: a card number is asked for as a secret", () => {
    expect(compiled.checkout.interpretation.parameters.find((parameter) => parameter.name === "card_number")?.type_hint).toBe("secret");
  });

  it("interpret: the delivery speed chosen in the demonstration is kept (as guidance or an input)", () => {
    const { markdown, interpretation } = compiled.checkout;
    expect(markdown.includes("Express") || interpretation.parameters.some((parameter) => parameter.label === "Delivery speed")).toBe(true);
  });

  it("interpret: success does not hinge on this run's order number", () => {
    expect(compiled.checkout.interpretation.checkpoints.at(-1)?.success_condition).not.toMatch(/\d{4,}/);
  });

  it("interpret: a dialog step is not described as reaching the page it stayed on", () => {
    for (const checkpoint of compiled.dialog.interpretation.checkpoints.slice(1)) expect(checkpoint.goal).not.toMatch(/page is reached through/);
  });

  // Fixed in dom-observer.ts: the click the browser dispatches for Enter is skipped.
  it("content script: Enter in the search box is not also recorded as a click on 'Search'", () => {
    expect(compiled.search.trace.steps.map((step) => step.label)).not.toContain("Click 'Search'");
  });
});
