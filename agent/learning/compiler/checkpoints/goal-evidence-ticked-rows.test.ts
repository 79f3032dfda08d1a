import { describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";
import { parseSuccessCondition } from "../../../../shared/learning/checkpoints/success-conditions";
import { type Lists, demonstration, page } from "../../../test-support/demonstration-builder";

/** Issue #35 "Goal evidence first": a ticked item of a list proved by its own row, wherever the list draws it. */

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
