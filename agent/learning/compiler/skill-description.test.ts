import { describe, expect, it } from "vitest";
import { validateMetadata } from "skills-ref";
import { toAgentSkillsMarkdown } from "../../../shared/skills/agent-skills-format";
import { readFrontmatterMapping } from "../../../shared/skills/frontmatter";
import { wikiDemonstration } from "../../test-support/demonstration-builder";
import { asWhatItDoes, buildFrontmatter, emitSkillMarkdown } from "./emit-skill";

/** Issue #35: the description a compiled skill gets says what it does, where, and with which inputs. */

describe("a description that says what, where and with what (issue #35)", () => {
  const wiki = wikiDemonstration();

  it("names the outcome, the site and its address, the sign-in and the inputs, not the title again", () => {
    expect(buildFrontmatter(wiki).description).toBe(
      "Creates a wiki page on Notes (127.0.0.1:4100) after signing in. Inputs: username, page name, text; a password asked at each run and never stored.",
    );
  });

  it("projects to an Agent Skills bundle the reference validator accepts, with when to use it", () => {
    const projected = readFrontmatterMapping(toAgentSkillsMarkdown(emitSkillMarkdown(wiki)));
    if (!projected.ok) throw new Error(projected.reason);
    expect(validateMetadata(projected.value, `/skills/${wiki.slug}`)).toEqual([]);
    expect(projected.value.description).toMatch(
      /^Creates a wiki page on Notes \(127\.0\.0\.1:4100\) after signing in\. Inputs: username, page name, text;.* Use when the user asks to create a wiki page/,
    );
  });

  it("says an instruction as what the skill does", () => {
    expect(asWhatItDoes("Check out the cart and place the order")).toBe("Checks out the cart and places the order");
    expect(asWhatItDoes("Add two tasks, tick the first and show the open ones.")).toBe("Adds two tasks, ticks the first and shows the open ones");
    expect(asWhatItDoes("Apply for the team plan")).toBe("Applies for the team plan");
    expect(asWhatItDoes("Search the help center")).toBe("Searches the help center");
    expect(asWhatItDoes("The monthly report")).toBe("The monthly report");
    expect(asWhatItDoes("Downloads invoices")).toBe("Downloads invoices");
  });
});
