import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Issue #31: the layout shows the architecture, and this test keeps it so. Contracts live in
 * `shared/`, which imports nothing of ours; the agent, the extension, the side panel (`ui/`) and the
 * MCP server import `shared/` and not each other (the side panel's entrypoint only mounts the panel);
 * running a skill (`agent/execution`) does not reach into learning one; product code never imports
 * test code; and no two folders import each other.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TOP = ["shared", "agent", "extension", "ui", "mcp"] as const;

/** Every module specifier of a TS or Svelte source: `from "x"`, `import "x"`, `import("x")`. */
export function importSpecifiers(source: string): string[] {
  const patterns = [/\bfrom\s+["']([^"']+)["']/g, /\bimport\s+["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : sources(full);
    return /\.(ts|svelte)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** Test code: test files, and the folders and files that only tests use. */
export function isTestCode(relative: string): boolean {
  return (
    /\.test\.ts$/.test(relative) ||
    TEST_HELPER_FOLDERS.some((folder) => relative.startsWith(folder)) ||
    relative.startsWith("e2e/") ||
    relative.startsWith("bench/")
  );
}

/** The one layout for test helpers (issue #31): a `test-support/` folder in each part that has helpers. */
const TEST_HELPER_FOLDERS = ["agent/test-support/", "mcp/test-support/", "ui/test-support/", "e2e/test-support/"];

interface Edge {
  from: string;
  to: string;
}

/** Our own imports between product files (relative specifiers that land in the repository). */
function productEdges(): Edge[] {
  const files = TOP.flatMap((top) => sources(path.join(root, top))).map((file) => path.relative(root, file));
  return files
    .filter((file) => !isTestCode(file))
    .flatMap((file) =>
      importSpecifiers(readFileSync(path.join(root, file), "utf8"))
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => ({ from: file, to: path.relative(root, path.resolve(root, path.dirname(file), specifier)) })),
    );
}

/** What a product file under `from` may not import: the folder rule it breaks, or undefined. */
export function brokenRule(from: string, to: string): string | undefined {
  const [fromTop] = from.split("/");
  const [toTop] = to.split("/");
  if (isTestCode(to)) return "product code imports test code";
  if (fromTop === "shared" && toTop !== "shared") return "shared/ imports only shared/";
  if (fromTop !== toTop && toTop !== "shared") {
    // The side panel's entrypoint mounts the panel: the one place the extension reaches ui/.
    if (fromTop === "extension" && toTop === "ui" && from.startsWith("extension/entrypoints/sidepanel/")) return undefined;
    return `${fromTop}/ imports only itself and shared/`;
  }
  if (from.startsWith("agent/execution/") && to.startsWith("agent/learning/")) return "agent/execution does not import agent/learning";
  return undefined;
}

/** Pairs of folders that import each other (through product files), each as "a <-> b". */
export function folderCycles(edges: readonly Edge[]): string[] {
  const between = new Set(
    edges.map((edge) => `${path.dirname(edge.from)}|${path.dirname(edge.to)}`).filter((pair) => !pair.split("|").every((side, _, both) => side === both[0])),
  );
  const cycles = new Set<string>();
  for (const pair of between) {
    const [a, b] = pair.split("|") as [string, string];
    if (between.has(`${b}|${a}`)) cycles.add(a < b ? `${a} <-> ${b}` : `${b} <-> ${a}`);
  }
  return [...cycles].sort();
}

/** Folder cycles allowed: none (the last five went with issue #31's split of agent/learning). */
const KNOWN_CYCLES: readonly string[] = [];

describe("the import direction between folders (issue #31)", () => {
  it("reads the rules as written", () => {
    expect(importSpecifiers(`import type { A } from "../x";\nimport "./side.css";\nconst m = await import('../y');`)).toEqual(["../x", "./side.css", "../y"]);
    expect(brokenRule("shared/skills/a.ts", "agent/memory/b")).toBe("shared/ imports only shared/");
    expect(brokenRule("ui/runs/a.ts", "extension/background/b")).toBe("ui/ imports only itself and shared/");
    expect(brokenRule("extension/entrypoints/sidepanel/main.ts", "ui/App.svelte")).toBeUndefined();
    expect(brokenRule("extension/background/a.ts", "ui/common/b")).toBe("extension/ imports only itself and shared/");
    expect(brokenRule("agent/execution/a.ts", "agent/learning/compiler/b")).toBe("agent/execution does not import agent/learning");
    expect(brokenRule("agent/learning/a.ts", "agent/test-support/b")).toBe("product code imports test code");
    expect(brokenRule("agent/learning/a.ts", "shared/learning/b")).toBeUndefined();
    expect(
      folderCycles([
        { from: "a/x.ts", to: "b/y" },
        { from: "b/y.ts", to: "a/z" },
        { from: "a/x.ts", to: "a/w" },
      ]),
    ).toEqual(["a <-> b"]);
  });

  it("has no product file that imports against the direction", () => {
    const edges = productEdges();
    expect(edges.length).toBeGreaterThan(1000);
    const offenders = edges.flatMap((edge) => {
      const rule = brokenRule(edge.from, edge.to);
      return rule === undefined ? [] : [`${edge.from} imports ${edge.to}: ${rule}`];
    });
    expect(offenders).toEqual([]);
  });

  it("keeps test helpers in one layout", () => {
    const strays = TOP.flatMap((top) => sources(path.join(root, top)))
      .map((file) => path.relative(root, file))
      .filter((file) => /test-support|\/support\/|\/testing\//.test(file) && !TEST_HELPER_FOLDERS.some((folder) => file.startsWith(folder)));
    expect(strays).toEqual([]);
  });

  it("has no two folders that import each other", () => {
    expect(folderCycles(productEdges())).toEqual(KNOWN_CYCLES);
  });
});
