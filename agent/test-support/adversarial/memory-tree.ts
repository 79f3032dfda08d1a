import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync, type BigIntStats } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Every entry under a folder: relative path → kind, size and content hash (a symlink by its target). */
export type MemoryTree = ReadonlyMap<string, string>;

/** A file's content digest, and what lstat said of the file when it was read. */
interface KnownDigest {
  stamp: string;
  digest: string;
}

/** Each root's last read: when it started (ns since the epoch) and its files' digests (replaced whole, so a removed file is forgotten). */
const lastReads = new Map<string, { startedNs: bigint; digests: Map<string, KnownDigest> }>();

/**
 * A file whose ctime is this close to the start of the last read, or later, is read again even with
 * its lstat unchanged (git's "racily clean" rule): a new inode's times are not fine-grained until a
 * stat asks for them, and an inode number can be reused.
 */
const RACY_NS = 100_000_000n;

/** Per device: whether its file system gives every change after a stat a new ctime (see `changesAlwaysSeen`). */
const finelyStamped = new Map<bigint, boolean>();

/**
 * Whether a file's change since it was last stat-ed always shows in its ctime on this device. Linux
 * (6.13 on) stamps a change with a fine-grained time when the old time was read since ("multigrain
 * timestamps": ext4, xfs, btrfs, tmpfs); elsewhere a change may keep the stamp of the last tick. A
 * probe on the same device finds out: a file rewritten in place at the same size, many times in a
 * row, each write right after a stat, must never keep its ctime. Where it may, every file is read
 * and digested at every read, as before.
 */
function changesAlwaysSeen(device: bigint): boolean {
  const known = finelyStamped.get(device);
  if (known !== undefined) return known;
  const folder = mkdtempSync(path.join(tmpdir(), "elnor-ctime-probe-"));
  let fine = false;
  try {
    const file = path.join(folder, "probe");
    writeFileSync(file, "a");
    let before = lstatSync(file, { bigint: true });
    fine = before.dev === device;
    for (let round = 0; fine && round < 64; round += 1) {
      writeFileSync(file, round % 2 === 0 ? "b" : "a");
      const after = lstatSync(file, { bigint: true });
      fine = after.ctimeNs !== before.ctimeNs;
      before = after;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  finelyStamped.set(device, fine);
  return fine;
}

const stampOf = (info: BigIntStats) => `${info.ino}:${info.size}:${info.mode}:${info.mtimeNs}:${info.ctimeNs}`;

/**
 * Synchronous on purpose: a tree of a hundred small files reads ten times faster without a
 * thread-pool round trip per file, and nothing else may run in between anyway. A file whose lstat
 * is as it was at the last read of this root, and whose ctime is well before that read (`RACY_NS`),
 * keeps its digest where the file system shows every change in the ctime (`changesAlwaysSeen`); any
 * other file is read and digested.
 */
export function readMemoryTree(root: string): MemoryTree {
  const entries = new Map<string, string>();
  const startedNs = BigInt(Date.now()) * 1_000_000n;
  const previous = lastReads.get(root);
  const settledBefore = previous === undefined ? 0n : previous.startedNs - RACY_NS;
  const digests = new Map<string, KnownDigest>();
  let reuse: boolean | undefined;
  const walk = (folder: string): void => {
    const names = readdirSync(folder).sort();
    for (const name of names) {
      const absolute = path.join(folder, name);
      const relative = path.relative(root, absolute);
      const info = lstatSync(absolute, { bigint: true });
      const mode = (Number(info.mode) & 0o777).toString(8);
      if (info.isDirectory()) {
        entries.set(relative, `dir mode=${mode}`);
        walk(absolute);
      } else if (info.isSymbolicLink()) {
        entries.set(relative, `link -> ${readlinkSync(absolute)}`);
      } else {
        const stamp = stampOf(info);
        const kept = previous?.digests.get(relative);
        reuse ??= changesAlwaysSeen(info.dev);
        const unchanged = reuse && kept?.stamp === stamp && info.ctimeNs < settledBefore;
        const digest = unchanged && kept !== undefined ? kept.digest : createHash("sha256").update(readFileSync(absolute)).digest("hex");
        digests.set(relative, { stamp, digest });
        entries.set(relative, `file size=${info.size} mode=${mode} sha256=${digest}`);
      }
    }
  };
  walk(root);
  lastReads.set(root, { startedNs, digests });
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
