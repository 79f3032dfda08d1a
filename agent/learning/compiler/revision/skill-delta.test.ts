import { describe, expect, it } from "vitest";
import type { WorkflowGraph } from "../../../../shared/learning/checkpoints/workflow-graph";
import { emitSkillMarkdown } from "../emit-skill";
import type { Interpretation } from "../interpret";
import type { CheckpointPlan } from "../../../../shared/execution/checkpoint-plan";
import { diffSkills, nextSkillVersion, readSkillOutline } from "./skill-delta";

const graph: WorkflowGraph = { workflow_id: "wf", title: "t", entry_step_id: "s1", steps: [], schema_version: 1 };
const checkpoint = (id: string, goal: string, success: string): CheckpointPlan => ({
  checkpoint_id: id,
  goal,
  success_condition: success,
  order_hint: 0,
  controls: [],
  step_ids: [],
  observable: true,
});

function interpretation(extra: Partial<Interpretation> = {}): Interpretation {
  return {
    title: "Send the *weekly* report",
    slug: "send-the-weekly-report",
    goal_summary: "Send the weekly report to the team.",
    use_conditions: ["When the user asks to send the weekly report"],
    non_use_conditions: [],
    project_scope: "global",
    preferred_control_surfaces: ["native_openclaw_browser"],
    parameters: [{ name: "recipient", label: "To <team>", type_hint: "email", step_ids: [] }],
    checkpoints: [
      checkpoint("cp-01", 'The "Compose" page is open', 'A page titled "Compose" is shown'),
      checkpoint("cp-02", '"Send" has taken effect', 'The page says "Sent"'),
    ],
    graph,
    triggers: ["send the weekly report", "mail the report"],
    negative_triggers: ["delete the report"],
    questions: [],
    site: "mail.example",
    ...extra,
  };
}

describe("reading a SKILL.md back", () => {
  it("reads what the compiler wrote, markdown escapes undone, default conditions left out", () => {
    const outline = readSkillOutline(emitSkillMarkdown(interpretation()));
    expect(outline).toMatchObject({
      name: "send-the-weekly-report",
      title: "Send the *weekly* report",
      version: "0.1.0",
      triggers: ["send the weekly report", "mail the report"],
      negative_triggers: ["delete the report"],
      use_conditions: ["When the user asks to send the weekly report"],
      non_use_conditions: [],
      parameters: [{ name: "recipient", label: "To <team>", type: "email" }],
    });
    expect(outline.checkpoints).toEqual([
      { goal: 'The "Compose" page is open', success_condition: 'A page titled "Compose" is shown' },
      { goal: '"Send" has taken effect', success_condition: 'The page says "Sent"' },
    ]);
  });

  it("reads a SKILL.md without the compiler's sections as empty lists, not an error", () => {
    expect(readSkillOutline("# Hand written\n\nDo the thing.\n")).toMatchObject({ title: "Hand written", triggers: [], parameters: [], checkpoints: [] });
  });

  it("gives an improvement the next minor version", () => {
    expect(nextSkillVersion("0.1.0")).toBe("0.2.0");
    expect(nextSkillVersion("2.9.4")).toBe("2.10.0");
    expect(nextSkillVersion(undefined)).toBe("0.2.0");
  });
});

describe("the delta between an installed skill and its improvement", () => {
  it("lists added, removed and changed triggers, parameters and checkpoints; a reworded goal at the same place is a change", () => {
    const installed = readSkillOutline(emitSkillMarkdown(interpretation()));
    const proposed = readSkillOutline(
      emitSkillMarkdown(
        interpretation({
          triggers: ["Send the weekly report", "send this week's report"],
          parameters: [
            { name: "recipient", label: "To", type_hint: "email", step_ids: [] },
            { name: "week", label: "Week", type_hint: "date", step_ids: [] },
          ],
          checkpoints: [
            checkpoint("cp-01", 'The "Compose" page is open', 'The heading "New message" appears'),
            checkpoint("cp-02", "The report is attached", 'The page says "Attached"'),
            checkpoint("cp-03", '"Send" has taken effect', 'The page says "Sent"'),
          ],
        }),
      ),
    );
    const delta = diffSkills(installed, proposed);
    expect(delta.triggers).toEqual([
      { change: "removed", subject: "mail the report", installed: "mail the report" },
      { change: "added", subject: "send this week's report", proposed: "send this week's report" },
    ]);
    expect(delta.parameters).toEqual([
      { change: "changed", subject: "{{recipient}}", installed: "To <team> (email)", proposed: "To (email)" },
      { change: "added", subject: "{{week}}", proposed: "Week (date)" },
    ]);
    expect(delta.checkpoints).toEqual([
      {
        change: "changed",
        subject: "Checkpoint 1",
        installed: 'The "Compose" page is open — done when: A page titled "Compose" is shown',
        proposed: 'The "Compose" page is open — done when: The heading "New message" appears',
      },
      { change: "added", subject: "Checkpoint 2", proposed: 'The report is attached — done when: The page says "Attached"' },
    ]);
    expect(delta.unchanged).toEqual({ triggers: 1, negative_triggers: 1, parameters: 0, checkpoints: 1 });
  });

  it("says nothing changed when the skill is the same", () => {
    const same = readSkillOutline(emitSkillMarkdown(interpretation()));
    const delta = diffSkills(same, same);
    expect([...delta.triggers, ...delta.negative_triggers, ...delta.parameters, ...delta.checkpoints]).toEqual([]);
  });
});
