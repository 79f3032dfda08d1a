import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * STYLE habit 12, the other way round from ui/import-boundary.test.ts: the extension meets the
 * panel only through contracts in `shared/`. The one import of `ui/` is the side panel entry
 * mounting `App.svelte`.
 */
const extensionDir = path.dirname(fileURLToPath(import.meta.url));
const uiDir = path.resolve(extensionDir, "../ui");
const MOUNT = { file: path.join(extensionDir, "entrypoints/sidepanel/main.ts"), target: path.join(uiDir, "App.svelte") };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.(ts|svelte)$/.test(entry.name) ? [full] : [];
  });
}

/** Relative specifiers of `from "x"`, `import "x"` and `import("x")` that land under `ui/`. */
function uiImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  return [...source.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)]
    .map((match) => path.resolve(path.dirname(file), match[1]!))
    .filter((target) => target === uiDir || target.startsWith(uiDir + path.sep));
}

describe("extension/ import boundary", () => {
  it("imports nothing from ui/ but the side panel entry mounting App.svelte", () => {
    const files = sources(extensionDir).filter((file) => file !== fileURLToPath(import.meta.url));
    expect(files.length).toBeGreaterThan(30);
    const offenders = files.flatMap((file) =>
      uiImports(file)
        .filter((target) => !(file === MOUNT.file && target === MOUNT.target))
        .map((target) => `${path.relative(extensionDir, file)} imports ${path.relative(extensionDir, target)}`),
    );
    expect(offenders).toEqual([]);
    expect(uiImports(MOUNT.file)).toEqual([MOUNT.target]);
  });
});
