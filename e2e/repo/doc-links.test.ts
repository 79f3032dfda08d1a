import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../agent/test-support/agent-process";

/**
 * Issue #31: files move (the screenshots went into a folder per feature); a Markdown file that
 * still names the old place shows a broken image. Every relative link and image of the
 * repository's Markdown files must name a file or folder that exists.
 */
const SKIPPED = new Set(["node_modules", ".output", ".wxt", ".git", "artifacts"]);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(full);
    return entry.name.endsWith(".md") ? [full] : [];
  });
}

/** The relative targets of `[text](target)` and `<img src="target">`, anchors left off. */
export function relativeTargets(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)|\bsrc="([^"]+)"/g)]
    .map((match) => (match[1] ?? match[2] ?? "").split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
}

describe("links between the repository's documents (issue #31)", () => {
  it("reads links and images, and leaves out web addresses and anchors", () => {
    const markdown = `See [the policy](docs/privacy.md#retention), <img src="docs/screenshots/learn/a.png" alt="">, [site](https://example.com), [top](#layout).`;
    expect(relativeTargets(markdown)).toEqual(["docs/privacy.md", "docs/screenshots/learn/a.png"]);
  });

  it("names only files that exist in every relative link and image of a Markdown file", () => {
    const files = markdownFiles(projectRoot);
    expect(files.map((file) => path.relative(projectRoot, file))).toContain("README.md");
    const targets = files.flatMap((file) => relativeTargets(readFileSync(file, "utf8")).map((target) => ({ file, target })));
    expect(targets.filter(({ target }) => target.startsWith("docs/screenshots/")).length).toBeGreaterThan(20);
    const broken = targets.filter(({ file, target }) => !existsSync(path.resolve(path.dirname(file), target)));
    expect(broken.map(({ file, target }) => `${path.relative(projectRoot, file)}: ${target}`)).toEqual([]);
  });
});
