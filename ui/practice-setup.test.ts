import { describe, expect, it } from "vitest";
import { parseInputSets } from "./practice-setup.svelte";

describe("parseInputSets", () => {
  it("reads one 'name = value' per line, a blank line starting the next set, and skips lines that are not inputs", () => {
    expect(parseInputSets("message = Hello there\naccess_code=abc\n\nmessage = Second\nnot an input line\n")).toEqual([
      { message: "Hello there", access_code: "abc" },
      { message: "Second" },
    ]);
    expect(parseInputSets("  \n\n")).toEqual([]);
  });
});
