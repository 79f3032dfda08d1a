import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * Every file under `folder` as text (latin1 by default, so no byte is lost; utf8 where a check
 * normalizes characters, as the leak corpus does), joined: what a privacy check searches for a canary.
 * A live agent writes atomically (a temp file, then a rename), so a file listed can be gone when it is read. Its text
 * is then in the file it was renamed to: the folder is listed and read again, until one listing reads whole.
 */
export async function memoryText(folder: string, encoding: "latin1" | "utf8" = "latin1"): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    const texts = await Promise.all(
      files.map((entry) =>
        readFile(path.join(entry.parentPath, entry.name)).then(
          (bytes) => bytes.toString(encoding),
          (error: NodeJS.ErrnoException) => {
            if (error.code === "ENOENT" && attempt < 20) return undefined;
            throw error;
          },
        ),
      ),
    );
    if (texts.every((text) => text !== undefined)) return texts.join("\n");
  }
}
