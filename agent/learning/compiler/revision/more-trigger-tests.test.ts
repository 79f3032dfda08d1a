import { describe, expect, it } from "vitest";
import { moreTriggerTests } from "./more-trigger-tests";

describe("more trigger tests", () => {
  const skill = { title: "Export the monthly invoices", triggers: ["export the monthly invoices"] };
  const current = {
    positive: ["export the monthly invoices"],
    paraphrases: ["could you export the monthly invoices for me"],
    negative: ["summarize quarterly earnings"],
  };

  it("adds the user's examples, paraphrases of them, and unrelated requests that share no word with the skill", () => {
    const added = moreTriggerTests(current, skill, { positive_examples: ["Please export this month's invoices."], negative_examples: ["delete the invoices"] });
    expect(added.positive).toEqual(["Please export this month's invoices."]);
    expect(added.paraphrases.slice(0, 2)).toEqual(["could you export this month's invoices for me", "i need to export this month's invoices"]);
    expect(added.negative[0]).toBe("delete the invoices");
    const generated = added.negative.slice(1);
    expect(generated).toHaveLength(3);
    expect(generated).not.toContain("summarize quarterly earnings");
    for (const request of generated) for (const word of request.split(" ")) expect(skill.title.toLowerCase()).not.toContain(word);
  });

  it("leaves out what the proposal already tests, in any case or spacing", () => {
    const added = moreTriggerTests(current, skill, { positive_examples: ["  Export the  MONTHLY invoices "], negative_examples: [] });
    expect(added.positive).toEqual([]);
    expect(added.paraphrases).not.toContain("could you export the monthly invoices for me");
  });
});
