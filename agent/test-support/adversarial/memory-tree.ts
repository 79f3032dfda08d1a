import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/** Every entry under a folder: relative path → kind, size and content hash (a symlink by its target). */
export type MemoryTree = ReadonlyMap<string, string>;

/**
 * Synchronous on purpose: a tree of a hundred small files reads ten times faster without a
 * thread-pool round trip per file, and nothing else may run in between anyway.
 */
export function readMemoryTree(root: string): MemoryTree {
  const entries = new Map<string, string>();
  const walk = (folder: string): void => {
    const names = readdirSync(folder).sort();
    for (const name of names) {
      const absolute = path.join(folder, name);
      const relative = path.relative(root, absolute);
      const info = lstatSync(absolute);
      if (info.isDirectory()) {
        entries.set(relative, `dir mode=${(info.mode & 0o777).toString(8)}`);
        walk(absolute);
      } else if (info.isSymbolicLink()) {
        entries.set(relative, `link -> ${readlinkSync(absolute)}`);
      } else {
        const digest = createHash("sha256").update(readFileSync(absolute)).digest("hex");
        entries.set(relative, `file size=${info.size} mode=${(info.mode & 0o777).toString(8)} sha256=${digest}`);
      }
    }
  };
  walk(root);
  return entries;
}

/** What differs between two trees, one line per path, for an assertion message. */
export function diffMemoryTrees(before: MemoryTree, after: MemoryTree): string[] {
  const changes: string[] = [];
  for (const [file, fact] of after) {
    const was = before.get(file);
    if (was === undefined) changes.push(`+ ${file} (${fact})`);
    else if (was !== fact) changes.push(`~ ${file} (${was} → ${fact})`);
  }
  for (const file of before.keys()) if (!after.has(file)) changes.push(`- ${file}`);
  return changes;
}
