import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffMemoryTrees, readMemoryTree } from "./memory-tree";

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "elnor-memory-tree-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("readMemoryTree: every change between two reads shows, however quick", () => {
  it("sees a file rewritten in place at the same size, read after read, with nothing in between", () => {
    const file = path.join(root, "view.json");
    writeFileSync(file, "0000");
    let before = readMemoryTree(root);
    for (let round = 1; round <= 200; round += 1) {
      writeFileSync(file, String(round % 10).repeat(4));
      const after = readMemoryTree(root);
      expect(diffMemoryTrees(before, after), `round ${round}`).toHaveLength(1);
      before = after;
    }
  });

  it("sees a same-size rewrite of a file whose digest the last read kept (written well before it)", async () => {
    const file = path.join(root, "kept.json");
    writeFileSync(file, "aaaa");
    await new Promise((resolve) => setTimeout(resolve, 250));
    readMemoryTree(root);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const before = readMemoryTree(root);
    writeFileSync(file, "bbbb");
    expect(diffMemoryTrees(before, readMemoryTree(root))).toEqual([expect.stringMatching(/^~ kept\.json \(file size=4 /)]);
  });

  it("sees a file replaced by a rename, its mode changed, a file added and one removed", () => {
    writeFileSync(path.join(root, "a"), "same");
    writeFileSync(path.join(root, "b"), "gone");
    const before = readMemoryTree(root);
    writeFileSync(path.join(root, "a.tmp"), "diff");
    renameSync(path.join(root, "a.tmp"), path.join(root, "a"));
    rmSync(path.join(root, "b"));
    writeFileSync(path.join(root, "c"), "new");
    const after = readMemoryTree(root);
    expect(diffMemoryTrees(before, after).map((line) => line.slice(0, 3))).toEqual(["~ a", "+ c", "- b"]);
    chmodSync(path.join(root, "c"), 0o600);
    expect(diffMemoryTrees(after, readMemoryTree(root))).toEqual([expect.stringMatching(/^~ c \(.*mode=6\d\d .*mode=600/)]);
  });

  it("answers the same tree for files that did not change", () => {
    writeFileSync(path.join(root, "kept"), "kept bytes");
    const first = readMemoryTree(root);
    expect(diffMemoryTrees(first, readMemoryTree(root))).toEqual([]);
    expect(first.get("kept")).toMatch(/^file size=10 mode=\d+ sha256=[0-9a-f]{64}$/);
  });
});
