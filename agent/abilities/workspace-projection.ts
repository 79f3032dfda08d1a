import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { PORTABLE_SKILL_NAME_PATTERN } from "../../shared/skills/frontmatter";
import { AppError } from "../errors/app-error";
import { SKILL_MD } from "../../shared/skills/skill-folder";

/**
 * The read-only copy of an installed skill in the assistant's workspace
 * (`$OPENCLAW_WORKSPACE/skills/<skill-name>/`, §0C.23). Derived, never the source of truth: the
 * folder is built beside its final place and swapped in with a rename, so the assistant never
 * sees half a skill.
 */
/** A projected file: text, bytes kept exactly, or bytes an imported bundle marked executable. */
export type ProjectedFile = string | Uint8Array | { bytes: Uint8Array; executable: boolean };

export interface WorkspaceProjector {
  readonly root: string;
  project(skillName: string, files: Readonly<Record<string, ProjectedFile>>): Promise<string>;
  remove(skillName: string): Promise<void>;
  exists(skillName: string): Promise<boolean>;
  /** The projected files by relative path, to put them back as they were; undefined when none. */
  read(skillName: string): Promise<Record<string, string> | undefined>;
  /** Removes staging and replaced folders a crash left beside the skills (never a skill itself). */
  sweep(): Promise<string[]>;
}

/** `.<skill>.staging-<hex>` and `<skill>.previous-<hex>`: what `project` builds and swaps. */
const LEFTOVER = /^(\.[a-z0-9][a-z0-9._-]*\.staging-[0-9a-f]{8}|[a-z0-9][a-z0-9._-]*\.previous-[0-9a-f]{8})$/;

/** Each segment a plain name: no "." or "..", no separators or control characters (imported bundles name files freely). */
// eslint-disable-next-line no-control-regex -- a file name may hold no control character
const FILE_SEGMENT = /^(?!\.{1,2}$)[^/\\\u0000-\u001f\u007f]{1,255}$/;
const isProjectablePath = (relative: string) => relative.length <= 1024 && relative.split("/").every((segment) => FILE_SEGMENT.test(segment));

function skillFolder(root: string, skillName: string): string {
  if (!PORTABLE_SKILL_NAME_PATTERN.test(skillName)) throw new AppError("MEMORY_PATH_INVALID", "A skill name must match the portable skill name rule.");
  return path.join(root, "skills", skillName);
}

export function createWorkspaceProjector(root: string): WorkspaceProjector {
  const absoluteRoot = path.resolve(root);
  return {
    root: absoluteRoot,
    async project(skillName, files) {
      const target = skillFolder(absoluteRoot, skillName);
      const staging = path.join(absoluteRoot, "skills", `.${skillName}.staging-${randomBytes(4).toString("hex")}`);
      try {
        for (const [relative, content] of Object.entries(files)) {
          if (!isProjectablePath(relative)) {
            throw new AppError("MEMORY_PATH_INVALID", `Refusing to project ${JSON.stringify(relative.slice(0, 120))}.`);
          }
          const file = path.join(staging, ...relative.split("/"));
          if (!file.startsWith(staging + path.sep)) throw new AppError("MEMORY_PATH_INVALID", "A projected file must stay inside its skill folder.");
          await mkdir(path.dirname(file), { recursive: true });
          // Read-only for the assistant; a script the bundle marked executable keeps its x bits.
          if (typeof content === "string" || content instanceof Uint8Array) await writeFile(file, content, { mode: 0o444 });
          else await writeFile(file, content.bytes, { mode: content.executable ? 0o555 : 0o444 });
        }
        const previous = `${target}.previous-${randomBytes(4).toString("hex")}`;
        const hadPrevious = await stat(target).then(
          () => true,
          () => false,
        );
        if (hadPrevious) await rename(target, previous);
        await rename(staging, target);
        if (hadPrevious) await rm(previous, { recursive: true, force: true });
        return target;
      } catch (error) {
        await rm(staging, { recursive: true, force: true }).catch(() => undefined);
        throw error;
      }
    },
    async remove(skillName) {
      const target = skillFolder(absoluteRoot, skillName);
      // Read-only files inside a writable folder can be removed; make sure the folder is writable.
      await chmod(target, 0o755).catch(() => undefined);
      await rm(target, { recursive: true, force: true });
    },
    exists: (skillName) =>
      stat(path.join(skillFolder(absoluteRoot, skillName), SKILL_MD)).then(
        () => true,
        () => false,
      ),
    async sweep() {
      const skills = path.join(absoluteRoot, "skills");
      const names = await readdir(skills).catch(() => [] as string[]);
      const leftovers = names.filter((name) => LEFTOVER.test(name));
      for (const name of leftovers) {
        await chmod(path.join(skills, name), 0o755).catch(() => undefined);
        await rm(path.join(skills, name), { recursive: true, force: true });
      }
      return leftovers;
    },
    async read(skillName) {
      const target = skillFolder(absoluteRoot, skillName);
      const entries = await readdir(target, { recursive: true, withFileTypes: true }).catch(() => undefined);
      if (entries === undefined) return undefined;
      const files: Record<string, string> = {};
      for (const entry of entries.filter((candidate) => candidate.isFile())) {
        const file = path.join(entry.parentPath, entry.name);
        files[path.relative(target, file).split(path.sep).join("/")] = await readFile(file, "utf8");
      }
      return files;
    },
  };
}
