import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EXTENSION_PERMISSIONS, renderPermissionsDoc } from "./extension-permissions";
import { PRIVACY_FIVE_LINES, renderPrivacyPolicy } from "./privacy-facts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const readme = () => readFileSync(path.join(root, "README.md"), "utf8");
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

describe("docs generated from the shared facts (issue #36)", () => {
  it("docs/permissions.md is exactly the render of the permission explanations", async () => {
    await expect(renderPermissionsDoc()).toMatchFileSnapshot(path.join(root, "docs/permissions.md"));
  });

  it("docs/privacy.md is exactly the render of the privacy facts", async () => {
    await expect(renderPrivacyPolicy()).toMatchFileSnapshot(path.join(root, "docs/privacy.md"));
  });

  it("the README's five privacy lines are the facts' five lines, in order", () => {
    const section = /^## Privacy, in five lines\n([\s\S]*?)(?=^#)/m.exec(readme())?.[1];
    expect(section, "README has a 'Privacy, in five lines' section").toBeDefined();
    // The numbered list: "N. " lines and their indented continuations, up to the first other line.
    const list = /^\s*((?:\d+\. .*\n(?: {2,}\S.*\n)*)+)/.exec(section!)?.[1] ?? "";
    const items = list
      .split(/^\d+\. /m)
      .slice(1)
      .map(squash);
    expect(items).toEqual(PRIVACY_FIVE_LINES.map(squash));
  });

  it("the README links the permissions and the privacy policy", () => {
    expect(readme()).toContain("](docs/permissions.md)");
    expect(readme()).toContain("](docs/privacy.md)");
  });

  it("explains each permission once, with what uses it, when, and what the person sees", () => {
    const names = EXTENSION_PERMISSIONS.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    for (const entry of EXTENSION_PERMISSIONS) {
      for (const text of [entry.usedBy, entry.when, entry.youSee]) expect(text.trim().length, entry.name).toBeGreaterThan(10);
    }
    const debuggerEntry = EXTENSION_PERMISSIONS.find((entry) => entry.name === "debugger")!;
    expect(debuggerEntry.when).toMatch(/only for runs in your own tab, only after you allowed it/i);
    expect(debuggerEntry.youSee).toMatch(/bar .* with Stop/);
  });
});
