import { describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { lintCheckpoints } from "./checkpoints/checkpoint-lint";
import { interpretTrace } from "./interpret";
import type { NormalizedStep, NormalizedTrace } from "./normalize-trace";
import { parseSuccessCondition, writeSuccessCondition, type SuccessCheck } from "../../../shared/learning/checkpoints/success-conditions";
import { answerToCheck } from "./word-checkpoints";

type Lists = NonNullable<PageSnapshot["lists"]>;

function page(
  url: string,
  parts: { lists?: Lists; toggles?: PageSnapshot["toggles"]; texts?: string[]; buttons?: string[]; hover?: string[]; status?: string[] } = {},
): PageSnapshot {
  return {
    url,
    title: "Tasks",
    headings: [{ level: 1, text: "Tasks" }],
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: parts.buttons ?? [],
    links: ["All", "Active", "Completed"],
    status_messages: parts.status ?? [],
    lists: parts.lists ?? [],
    toggles: parts.toggles ?? [],
    texts: parts.texts ?? [],
    hover_revealed: parts.hover ?? [],
    schema_version: 1,
  };
}

const list = (items: number, checked = 0): Lists => [{ role: "list", items, checked }];
const box = (row: number, state: "checked" | "unchecked") => ({ role: "checkbox", state, row });

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
    page_url: "http://app.test/#/",
    page_title: "Tasks",
    ...partial,
  };
}

/**
 * The demonstration of the issue: add two items (typing, then Enter), tick the first, switch to
 * the Active view. Snapshots as the capture takes them: the typing and its Enter share the
 * after-snapshot; a settled snapshot follows each change.
 */
function todoDemonstration() {
  clock = 0;
  const snapshots = new Map<string, PageSnapshot>();
  const ref = (name: string, snapshot: PageSnapshot) => {
    snapshots.set(name, snapshot);
    return `snapshot:${name}`;
  };
  const s0 = ref("s0", page("http://app.test/#/", { texts: [] }));
  const s1 = ref(
    "s1",
    page("http://app.test/#/", { lists: list(1), toggles: [box(1, "unchecked")], texts: ["1 item left"], hover: ["Remove"], buttons: ["Remove"] }),
  );
  const s2 = ref("s2", page("http://app.test/#/", { lists: list(2), toggles: [box(1, "unchecked"), box(2, "unchecked")], texts: ["2 items left"] }));
  const s3 = ref(
    "s3",
    page("http://app.test/#/", { lists: list(2, 1), toggles: [box(1, "checked"), box(2, "unchecked")], texts: ["1 item left"], buttons: ["Clear completed"] }),
  );
  const s4 = ref(
    "s4",
    page("http://app.test/#/active", { lists: list(1), toggles: [box(1, "unchecked")], texts: ["1 item left"], buttons: ["Clear completed"] }),
  );
  const field = { target_name: "New todo", target_role: "textbox", target_tag: "input", selectors: [['aria/New todo[role="textbox"]']] };
  const steps: NormalizedStep[] = [
    step({ action: "fill", label: "Fill 'New todo'", ...field, masked_value: { value_hash: "h1" }, before_state_ref: s0, after_state_ref: s1 }),
    step({ action: "press", label: "Press Enter in 'New todo'", ...field, before_state_ref: s0, after_state_ref: s1 }),
    step({ action: "fill", label: "Fill 'New todo'", ...field, masked_value: { value_hash: "h2" }, before_state_ref: s1, after_state_ref: s2 }),
    step({ action: "press", label: "Press Enter in 'New todo'", ...field, before_state_ref: s1, after_state_ref: s2 }),
    step({
      action: "toggle",
      label: "Check the checkbox",
      target_role: "checkbox",
      target_tag: "input",
      selectors: [["li:nth-child(1) input"]],
      before_state_ref: s2,
      after_state_ref: s3,
    }),
    step({ action: "click", label: "Click 'Active'", target_name: "Active", target_role: "link", before_state_ref: s3, after_state_ref: s4 }),
  ];
  steps.forEach((entry, index) => {
    entry.step_id = `s${index + 1}`;
  });
  // Settled snapshots: one after each Enter, the tick and the click (none between typing and its Enter).
  const moments = [
    { at: new Date(Date.parse(steps[1]!.created_at) + 300).toISOString(), ref: s1 },
    { at: new Date(Date.parse(steps[3]!.created_at) + 300).toISOString(), ref: s2 },
    { at: new Date(Date.parse(steps[4]!.created_at) + 300).toISOString(), ref: s3 },
    { at: new Date(Date.parse(steps[5]!.created_at) + 300).toISOString(), ref: s4 },
  ];
  const trace: NormalizedTrace = {
    steps,
    goal: "Add two tasks and tick the first",
    pages: [{ url: "http://app.test/#/", title: "Tasks" }],
    dropped: { noise: 0, outside_boundaries: 0, merged: 0 },
  };
  return { trace, snapshots, moments };
}

describe("checkpoints per sub-goal, proven by lasting evidence (issue #14)", () => {
  const { trace, snapshots, moments } = todoDemonstration();
  const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });

  it("makes typing and the Enter that adds a row one checkpoint, and words every checkpoint as a check the rehearsal can run", () => {
    expect(interpretation.checkpoints.map((checkpoint) => checkpoint.step_ids)).toEqual([["s1", "s2"], ["s3", "s4"], ["s5"], ["s6"]]);
    expect(interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition)).toEqual([
      "An item showing {{new_todo_1}} is in the list",
      "An item showing {{new_todo_2}} is in the list",
      "The checkbox of the item showing {{new_todo_1}} is checked",
      'The address ends with "/#/active"',
    ]);
    for (const checkpoint of interpretation.checkpoints) {
      expect(parseSuccessCondition(checkpoint.success_condition).kind, checkpoint.success_condition).not.toBe("by_hand");
      expect(checkpoint.verification?.by).toBe("page");
    }
    expect(interpretation.questions.some((question) => question.field === "success_condition")).toBe(false);
    expect(lintCheckpoints(interpretation.checkpoints).passed).toBe(true);
  });

  it("never credits the typing with what its Enter did, and never uses a control shown only on hover", () => {
    const all = JSON.stringify(interpretation.checkpoints);
    expect(all).not.toContain("Remove");
    expect(interpretation.checkpoints[0]?.goal).toBe("{{new_todo_1}} is added to the list");
  });

  it("makes a field filled twice two numbered parameters with human names, and says why", () => {
    expect(interpretation.parameters.map((parameter) => [parameter.name, parameter.label])).toEqual([
      ["new_todo_1", "New todo 1"],
      ["new_todo_2", "New todo 2"],
    ]);
    expect(interpretation.parameters[0]?.note).toMatch(/numbered/);
  });

  it("names a checkbox without a name by the row it sits in, never only by its role", () => {
    const labels = interpretation.graph.steps.filter((entry) => entry.step_type === "action").map((entry) => entry.label);
    expect(labels).toContain("Check the checkbox of the item showing {{new_todo_1}}");
    expect(labels).not.toContain("Check the checkbox");
  });

  it("keeps only changes that still hold once the page settled: a toast that went away is no evidence", () => {
    clock = 100;
    const snaps = new Map<string, PageSnapshot>([
      ["a", page("http://app.test/settings", { texts: ["Saved 0 times"] })],
      ["b", page("http://app.test/settings", { status: ["Settings saved"], texts: ["Saved 0 times"] })],
      ["c", page("http://app.test/settings", { texts: ["Saved 1 times"] })],
    ]);
    const save = step({
      action: "click",
      label: "Click 'Save'",
      target_name: "Save",
      target_role: "button",
      before_state_ref: "snapshot:a",
      after_state_ref: "snapshot:b",
    });
    save.step_id = "s1";
    const later = { at: new Date(Date.parse(save.created_at) + 2500).toISOString(), ref: "snapshot:c" };
    const soon = { at: new Date(Date.parse(save.created_at) + 300).toISOString(), ref: "snapshot:b" };
    const result = interpretTrace({
      trace: { steps: [save], pages: [], dropped: { noise: 0, outside_boundaries: 0, merged: 0 } },
      snapshots: snaps,
      moments: [soon, later],
      answers: {},
    });
    expect(result.checkpoints.map((checkpoint) => checkpoint.success_condition)).toEqual(['The number in "Saved # times" goes up by 1']);
  });

  it("asks only when nothing observable changed, says why a person must confirm, and turns an answer naming the page into a check", () => {
    clock = 200;
    const snaps = new Map<string, PageSnapshot>([["a", page("http://app.test/x", { buttons: ["Archive"] })]]);
    const click = step({
      action: "click",
      label: "Click 'Archive'",
      target_name: "Archive",
      target_role: "button",
      before_state_ref: "snapshot:a",
      after_state_ref: "snapshot:a",
    });
    click.step_id = "s1";
    const input = { trace: { steps: [click], pages: [], dropped: { noise: 0, outside_boundaries: 0, merged: 0 } }, snapshots: snaps, moments: [] };
    const unanswered = interpretTrace({ ...input, answers: {} });
    expect(unanswered.checkpoints[0]?.verification).toMatchObject({ by: "person", reason: expect.stringMatching(/Nothing on the page changed/) });
    expect(unanswered.questions.find((question) => question.field === "success_condition")?.required).toBe(true);
    const answered = interpretTrace({ ...input, answers: { success_condition: 'The page shows "Archived"' } });
    expect(answered.checkpoints[0]?.success_condition).toBe('The page says "Archived"');
    expect(answered.checkpoints[0]?.verification).toMatchObject({ by: "page", from_answer: true });
  });
});

describe("the user's answer as a check", () => {
  const final = page("http://app.test/done", { buttons: ["Download receipt"] });
  it("reads a quoted text, a heading or button of the final page, or an address; keeps anything else for a person", () => {
    expect(answerToCheck("It says 'Order placed'", final)).toEqual({ kind: "page_says", text: "Order placed" });
    expect(answerToCheck("the tasks heading is there", final)).toEqual({ kind: "heading", text: "Tasks" });
    expect(answerToCheck("a download receipt button shows up", final)).toEqual({ kind: "button", name: "Download receipt" });
    expect(answerToCheck("it goes to /orders/done", final)).toEqual({ kind: "route", route: "/orders/done" });
    expect(answerToCheck("The new task shows in the list and the counter changes", final).kind).toBe("by_hand");
  });
});

describe("an address with a masked part (issue #35)", () => {
  it("is never a route checkpoint: `*` and `*typed-<ref>*` cannot be matched as written", () => {
    const { trace, snapshots, moments } = todoDemonstration();
    const active = snapshots.get("s4")!;
    snapshots.set("s4", { ...active, url: "http://app.test/#/tasks/*typed-abcdefabcdef*" });
    const interpretation = interpretTrace({ trace, snapshots, moments, answers: {} });
    const conditions = interpretation.checkpoints.map((checkpoint) => checkpoint.success_condition);
    expect(conditions.join("\n")).not.toContain("*");
    expect(conditions.some((condition) => condition.startsWith("The address ends with"))).toBe(false);
  });
});

describe("success condition sentences", () => {
  it("reads back every sentence it writes", () => {
    const checks: SuccessCheck[] = [
      { kind: "route", route: "/#/active" },
      { kind: "list_has_value", parameter: "task_1", list: "Todos" },
      { kind: "list_has_value", parameter: "task_1", list: undefined },
      { kind: "list_count", list: undefined, delta: 1 },
      { kind: "list_count", list: "Cart", delta: -2 },
      { kind: "control_state", name: "Dark mode", row: undefined, role: "switch", state: "checked" },
      { kind: "control_state", name: undefined, row: { parameter: "task_1" }, role: "checkbox", state: "checked" },
      { kind: "control_state", name: undefined, row: { text: "Buy bread" }, role: "checkbox", state: "unchecked" },
      { kind: "control_state", name: undefined, row: { position: 2, list: "Todos" }, role: "radio", state: "checked" },
      { kind: "control_state", name: "Name", row: undefined, role: "columnheader", state: "sorted ascending" },
      { kind: "counter", pattern: "# items left", delta: -1 },
      { kind: "counter", pattern: "Count: #", delta: undefined },
      { kind: "page_says", text: "Saved" },
      { kind: "dialog_open", name: "Delete?" },
    ];
    for (const check of checks) expect(parseSuccessCondition(writeSuccessCondition(check)), writeSuccessCondition(check)).toEqual(check);
  });
});
