import { lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ChildProcess } from "node:child_process";

/** Every file under a folder, relative, in a stable order. */
export function filesUnder(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const absolute = path.join(folder, name);
      if (lstatSync(absolute).isDirectory()) walk(absolute);
      else files.push(path.relative(root, absolute));
    }
  };
  walk(root);
  return files;
}

export interface IntegrityReport {
  /** Files a reader would choke on: a view that is not JSON, a log line (newline-terminated) that is not. */
  corrupt: string[];
  /** Logs ending in a partial line: allowed after a crash (the store cuts it before the next append), reported. */
  tornTails: string[];
  /** Temp files of an atomic write or projection folders cut short by a crash: garbage, not corruption, reported. */
  leftovers: string[];
}

/**
 * DESIGN §5's promises, checked on the files themselves: current views replaced atomically (so
 * always whole JSON), logs append-only with at most one torn last line.
 */
export function checkMemoryIntegrity(root: string): IntegrityReport {
  const report: IntegrityReport = { corrupt: [], tornTails: [], leftovers: [] };
  for (const file of filesUnder(root)) {
    const absolute = path.join(root, file);
    // Temp files of an atomic write, and a projection's staging or replaced folder (built beside
    // the skill's folder, then swapped in with a rename): cut short by a crash, never read.
    if (/\.tmp-\d+-[0-9a-f]+$/.test(file) || /(^|\/)[^/]+\.(staging|previous)-[0-9a-f]+\//.test(file)) {
      report.leftovers.push(file);
      continue;
    }
    if (file.endsWith(".jsonl")) {
      const text = readFileSync(absolute, "utf8");
      const lines = text.split("\n");
      const tail = lines.pop() ?? "";
      if (tail.length > 0) report.tornTails.push(file);
      lines.forEach((line, index) => {
        try {
          JSON.parse(line);
        } catch {
          report.corrupt.push(`${file} line ${index + 1}`);
        }
      });
    } else if (file.endsWith(".json")) {
      try {
        JSON.parse(readFileSync(absolute, "utf8"));
      } catch {
        report.corrupt.push(file);
      }
    }
  }
  return report;
}

/** The complete lines of a JSONL log, parsed (a torn last line is not a record). */
export function readLog<T>(file: string): T[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const lines = text.split("\n");
  lines.pop();
  return lines.map((line) => JSON.parse(line) as T);
}

/** SIGKILL, and wait until the process is really gone (its lock is then stale). */
export function killHard(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGKILL");
  });
}
