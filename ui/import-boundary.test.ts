import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * STYLE habit 12: the panel and the service worker meet only through contracts in `shared/`
 * (shared/observation/panel-messages.ts). A file under `ui/` that imports from `extension/` couples
 * the panel to the worker's internals, so this test names every such import.
 */
const uiDir = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = path.resolve(uiDir, "../extension");

/** Every module specifier of a TS or Svelte source: `from "x"`, `import "x"`, `import("x")`. */
function importSpecifiers(source: string): string[] {
  const patterns = [/\bfrom\s+["']([^"']+)["']/g, /\bimport\s+["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

function uiSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : uiSources(full);
    return /\.(ts|svelte)$/.test(entry.name) ? [full] : [];
  });
}

function reachesExtension(file: string, specifier: string): boolean {
  if (!specifier.startsWith(".")) return false;
  const target = path.resolve(path.dirname(file), specifier);
  return target === extensionDir || target.startsWith(extensionDir + path.sep);
}

describe("ui/ import boundary", () => {
  it("finds static, side-effect and dynamic imports in a source", () => {
    const source = `import type { A } from "../extension/background/x";\nimport "./side.css";\nconst m = await import('../extension/y');`;
    expect(importSpecifiers(source)).toEqual(["../extension/background/x", "./side.css", "../extension/y"]);
    expect(reachesExtension(path.join(uiDir, "Foo.svelte"), "../extension/background/x")).toBe(true);
    expect(reachesExtension(path.join(uiDir, "Foo.svelte"), "../shared/observation/panel-messages")).toBe(false);
  });

  it("has no file under ui/ that imports from extension/", () => {
    // This file quotes forbidden specifiers as samples; it imports nothing from extension/.
    const files = uiSources(uiDir).filter((file) => file !== fileURLToPath(import.meta.url));
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.flatMap((file) =>
      importSpecifiers(readFileSync(file, "utf8"))
        .filter((specifier) => reachesExtension(file, specifier))
        .map((specifier) => `${path.relative(uiDir, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });
});
