import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as barrel from "./index";

const sharedDir = path.dirname(fileURLToPath(import.meta.url));

function contractFiles(): string[] {
  return readdirSync(sharedDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((folder) =>
      readdirSync(path.join(sharedDir, folder.name))
        .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && file !== "index.ts")
        .map((file) => `./${folder.name}/${file.replace(/\.ts$/, "")}`),
    );
}

describe("shared contracts barrel", () => {
  it("R11.2-01: exports every identifier of every contract file exactly once, unchanged", async () => {
    const files = contractFiles();
    expect(files.length).toBeGreaterThan(30);
    const owners = new Map<string, string>();
    for (const file of files) {
      const module = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        const previous = owners.get(name);
        // An alias re-export (§0C.28) is the same object, so it is one identifier, not a duplicate.
        if (previous !== undefined) {
          const earlier = (await import(/* @vite-ignore */ previous)) as Record<string, unknown>;
          expect(earlier[name], `${name} is defined in both ${previous} and ${file}`).toBe(value);
        }
        owners.set(name, file);
        expect((barrel as Record<string, unknown>)[name], `${name} from ${file} is missing from the barrel`).toBe(value);
      }
    }
  });

  it("R11.2-02: exports none of the schemas §0C.19 marks as superseded", () => {
    for (const superseded of ["TeachSessionSchema", "LearningEntryPointSchema"]) {
      expect(superseded in barrel, superseded).toBe(false);
    }
  });

  it("R11.2-03: does not export the superseded LearningEntryPointSchema", () => {
    expect("LearningEntryPointSchema" in barrel).toBe(false);
    expect(Object.keys(barrel).filter((name) => /entry_?point/i.test(name))).toEqual([]);
  });

  it("keeps node and browser APIs out of shared/ (DESIGN §3)", async () => {
    const { readFileSync } = await import("node:fs");
    for (const file of contractFiles()) {
      const source = readFileSync(path.join(sharedDir, `${file}.ts`), "utf8");
      expect(source, file).not.toMatch(/from "node:|from "wxt|chrome\.|browser\./);
    }
  });
});
