import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import CheckpointEvidence from "./CheckpointEvidence.svelte";

describe("the review drawer's checkpoint evidence (issue #14)", () => {
  it("says in words what the rehearsal checks, and which checkpoints a person must confirm and why", () => {
    // The text as a reader sees it: markup's line breaks and indentation read as one space.
    const body = render(CheckpointEvidence, {
      props: {
        checkpoints: [
          {
            checkpoint_id: "cp-01",
            goal: "{{task_1}} is added to the list",
            success_condition: "An item showing {{task_1}} is in the list",
            verification: { by: "page" },
          },
          { checkpoint_id: "cp-02", goal: "The count changes", success_condition: 'The number in "# tasks left" goes up by 1', verification: { by: "page" } },
          { checkpoint_id: "cp-03", goal: '"Save" is done', success_condition: 'The page says "Saved"', verification: { by: "page", from_answer: true } },
          {
            checkpoint_id: "cp-04",
            goal: '"Archive" has taken effect',
            success_condition: "The archive shows it",
            verification: { by: "person", reason: "Nothing on the page changed after these steps that a check could look for." },
          },
        ],
      },
    }).body.replace(/\s+/g, " ");
    expect(body).toContain("3 of 4 are checked in the page by the rehearsal; 1 needs you to confirm it.");
    expect(body).toContain("Checks that an item of the list shows the value given for {{task_1}}.");
    expect(body).toContain("Reads the number in “… tasks left” before and after these steps: up by 1.");
    expect(body).toContain("From your answer to “How can you tell it worked?”.");
    expect(body).toMatch(/data-checkpoint="cp-04" data-confirmed-by="person"/);
    expect(body).toContain("Why: Nothing on the page changed after these steps that a check could look for.");
  });
});
