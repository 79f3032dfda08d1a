import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";

/**
 * Calls `onPath` with the root-relative path of every file or folder created or changed under
 * `root`, folders made later included. Node's own `watch(root, { recursive: true })` on Linux
 * rescans a new folder with `readdirSync` inside its event handler, so a folder removed a moment
 * after it appeared (an install's staging folder) throws an uncaught ENOENT into the test run (seen
 * in a full run). Here each folder gets its own watcher, and a folder gone before it is watched is
 * simply skipped.
 */
export function watchTree(root: string, onPath: (relative: string) => void): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  const add = (folder: string, announce: boolean) => {
    if (closed || watchers.has(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (_event, name) => {
        if (name === null) return;
        const full = path.join(folder, name.toString());
        onPath(path.relative(root, full));
        if (isFolder(full)) add(full, true);
      });
    } catch {
      return; // gone already
    }
    watcher.on("error", () => watcher.close());
    watchers.set(folder, watcher);
    let entries: string[] = [];
    try {
      entries = readdirSync(folder);
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(folder, entry);
      // Files that arrived in a new folder before it was watched are reported now.
      if (announce) onPath(path.relative(root, full));
      if (isFolder(full)) add(full, announce);
    }
  };
  add(root, false);
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function isFolder(full: string): boolean {
  try {
    return statSync(full).isDirectory();
  } catch {
    return false;
  }
}
