import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as barrel from "./index";

const sharedDir = path.dirname(fileURLToPath(import.meta.url));

/** Every contract file under a folder of shared/, its subfolders included (`learning/sessions/`…). */
function contractFiles(folder = ""): string[] {
  return readdirSync(path.join(sharedDir, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (entry.isDirectory()) return contractFiles(relative);
    const isContract = folder !== "" && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && entry.name !== "index.ts";
    return isContract ? [`./${relative.replace(/\.ts$/, "")}`] : [];
  });
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
