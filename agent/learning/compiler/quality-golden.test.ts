import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { qualityNeedles } from "../../../e2e/golden/quality-flows";
import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { parseSuccessCondition } from "../../../shared/learning/checkpoints/success-conditions";
import { PageSnapshotSchema, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { lintCheckpoints } from "./checkpoints/checkpoint-lint";
import { isRoleOnly } from "./control-names";
import { emitSkillMarkdown } from "./emit-skill";
import { interpretTrace } from "./interpret";
import { normalizeTrace } from "./normalize-trace";

/**
 * The demonstrations of `npm run learn-quality` (issue #14), recorded with the built extension
 * (`node --import tsx e2e/golden/learn-quality.ts --keep`) and compiled here as generate-proposal
 * compiles a session: checkpoints are sub-goals, each with evidence the rehearsal can check.
 */

const GOLDEN_DIR = fileURLToPath(new URL("./golden/", import.meta.url));

/** What each demonstration's checkpoints must show (a pattern per checkpoint that must be there). */
const EXPECTED: Record<string, { successes: RegExp[]; asks?: boolean }> = {
  tasks: {
    successes: [
      /^An item showing \{\{\w+_1\}\} is in the/,
      /^An item showing \{\{\w+_2\}\} is in the/,
      /^The checkbox of the item showing \{\{\w+_1\}\} is checked$/,
      /^The address ends with ".*#\/open"$/,
    ],
  },
  counter: {
    successes: [/^The number in "Visitors: #" goes up by 1$/, /^The number in "Visitors: #" goes up by 1$/, /^The number in "Visitors: #" goes down by 1$/],
  },
  pantry: { successes: [/^An item showing \{\{\w+\}\} is in the "In stock" list$/, /^The "In stock" list has 1 item fewer$/] },
  chores: {
    successes: [
      /^An item showing \{\{\w+_1\}\} is in the/,
      /^An item showing \{\{\w+_2\}\} is in the/,
      /^The checkbox of the item showing \{\{\w+_1\}\} is checked$/,
    ],
  },
  files: { successes: [/^A dialog "Delete this file\?" is open$/, /^The page says "minutes-march\.docx was deleted"$/] },
  settings: { successes: [/^The "Weekly digest email" checkbox is checked$/], asks: true },
  orders: { successes: [/^The "Last 30 days" list has 4 items more$/] },
  apply: { successes: [/Choose a plan/, /^The "Team" option is checked$/, /Review/, /Received/] },
  prices: { successes: [/^The "Price" column is sorted ascending$/, /^The "Price" column is sorted descending$/] },
};

const kept = existsSync(GOLDEN_DIR) ? readdirSync(GOLDEN_DIR).filter((name) => name.startsWith("quality-")) : [];

function load(folder: string) {
  const events = readFileSync(path.join(folder, "events.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ObservedActionEventWithDetailSchema.parse(JSON.parse(line)));
  const boundaries = z.array(WorkflowBoundarySchema).parse(JSON.parse(readFileSync(path.join(folder, "boundaries.json"), "utf8")));
  const snapshots = new Map<string, PageSnapshot>();
  for (const name of readdirSync(path.join(folder, "snapshots")))
    snapshots.set(name.replace(/\.json$/, ""), PageSnapshotSchema.parse(JSON.parse(readFileSync(path.join(folder, "snapshots", name), "utf8"))));
  return { events, boundaries, snapshots };
}

describe.each(kept)("the recorded %s demonstration", (name) => {
  const fixture = load(path.join(GOLDEN_DIR, name));
  const expected = EXPECTED[name.slice("quality-".length)];
  const trace = normalizeTrace({ events: fixture.events, boundaries: fixture.boundaries });
  const moments = fixture.events.flatMap((event) =>
    event.adapter_kind === "browser_snapshot" && event.after_state_ref !== undefined ? [{ at: event.created_at, ref: event.after_state_ref }] : [],
  );
  const interpretation = interpretTrace({ trace, snapshots: fixture.snapshots, moments, answers: {} });
  const actions = interpretation.graph.steps.filter((step) => step.step_type === "action");

  it("has checkpoints per sub-goal, each machine-checkable unless nothing observable changed", () => {
    const successes = interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition);
    for (const pattern of expected?.successes ?? [])
      expect(
        successes.some((success) => pattern.test(success)),
        `${pattern} in ${JSON.stringify(successes)}`,
      ).toBe(true);
    for (const checkpoint of interpretation.checkpoints) {
      if (checkpoint.verification?.by === "person") expect(checkpoint.verification.reason).toMatch(/Nothing on the page changed/);
      else expect(parseSuccessCondition(checkpoint.success_condition).kind, checkpoint.success_condition).not.toBe("by_hand");
    }
    expect(interpretation.questions.some((question) => question.field === "success_condition" && question.required)).toBe(expected?.asks === true);
    expect(lintCheckpoints(interpretation.checkpoints, qualityNeedles()).passed).toBe(true);
  });

  it("names every step for a person, never only by its role, and keeps what was typed out of SKILL.md", () => {
    for (const step of actions)
      expect(isRoleOnly(step.label.replace(/^(Click|Check|Uncheck|Fill|Select|Press \w+ in|Open)\s+/i, "").replace(/^'(.*)'$/, "$1")), step.label).toBe(false);
    const markdown = emitSkillMarkdown(interpretation).toLowerCase();
    for (const needle of qualityNeedles()) expect(markdown).not.toContain(needle.toLowerCase());
  });
});

it("has the recorded quality demonstrations (learn-quality --keep) or says none are kept", () => {
  expect(kept.every((name) => name.slice("quality-".length) in EXPECTED)).toBe(true);
});
