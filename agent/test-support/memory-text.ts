import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/** Every file under `folder` as text (latin1, so no byte is lost), joined: what a privacy check searches for a canary. */
export async function memoryText(folder: string): Promise<string> {
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  return (await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name)).then((bytes) => bytes.toString("latin1"))))).join("\n");
}
