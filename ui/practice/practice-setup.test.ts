import { describe, expect, it } from "vitest";
import { parseInputSets, practicePrefill } from "./practice-setup.svelte";

describe("parseInputSets", () => {
  it("reads one 'name = value' per line, a blank line starting the next set, and skips lines that are not inputs", () => {
    expect(parseInputSets("message = Hello there\naccess_code=abc\n\nmessage = Second\nnot an input line\n")).toEqual([
      { message: "Hello there", access_code: "abc" },
      { message: "Second" },
    ]);
    expect(parseInputSets("  \n\n")).toEqual([]);
  });
});

describe("practicePrefill", () => {
  it("takes the skill's description as the goal, its checkpoints as success and its sites", () => {
    expect(
      practicePrefill({
        description: "Send a message to the shop",
        checkpoints: [
          { checkpoint_id: "cp-01", goal: "The contact page is open.", verified_by: "page" },
          { checkpoint_id: "cp-02", goal: "The message is sent", verified_by: "page" },
        ],
        sites: ["127.0.0.1:8123", "shop.example"],
      }),
    ).toEqual({ goal: "Send a message to the shop", success: "The contact page is open; The message is sent.", sites: "127.0.0.1:8123, shop.example" });
    expect(practicePrefill({ description: "", checkpoints: [], sites: [] })).toEqual({ goal: "", success: "", sites: "" });
  });
});
