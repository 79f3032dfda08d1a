import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { AppError } from "../errors/app-error";

/**
 * Reads an uploaded skill bundle (a zip) into memory with yauzl, refusing anything that could
 * write outside the bundle or exhaust the machine before a byte of it is kept: path traversal,
 * absolute paths, symlinks, names that are not UTF-8, duplicate names, encrypted entries, too many
 * entries, and zip bombs (declared or actual sizes over the limits, extreme compression ratios).
 * Nothing here runs or interprets a file; bytes are kept exactly as the archive holds them.
 */

export const BUNDLE_LIMITS = {
  /** Public bundles hold tens of files; a skill with thousands is not a skill. */
  maxEntries: 2_000,
  maxFileBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxPathLength: 240,
  /** An entry that inflates more than this many times (and past 1 MiB) is a bomb, not a font. */
  maxEntryRatio: 200,
  ratioFloorBytes: 1024 * 1024,
} as const;

export interface BundleFile {
  /** "/"-separated, relative, as the archive names it (its top folder included, if any). */
  path: string;
  bytes: Buffer;
  /** Unix permission bits from the archive (0 when the archive does not say). */
  mode: number;
  /** The archive marks it executable (any x bit); never run, always flagged. */
  executable: boolean;
}

export interface BundleArchive {
  files: BundleFile[];
  /** Folder entries and archiver litter (`__MACOSX/`, `.DS_Store`) left out, by name. */
  skipped: string[];
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

const unsafe = (message: string) => new AppError("SKILL_IMPORT_ARCHIVE_UNSAFE", message);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The entry's name as text, or a refusal that says what is wrong with it. */
export function checkedEntryName(raw: Buffer): string {
  let name: string;
  try {
    name = utf8.decode(raw);
  } catch {
    throw unsafe("The archive has a file name that is not UTF-8; re-create the zip with UTF-8 names.");
  }
  const shown = JSON.stringify(name.slice(0, 80));
  if (name.length === 0) throw unsafe("The archive has an entry without a name.");
  if (name.length > BUNDLE_LIMITS.maxPathLength) throw unsafe(`The archive has a path longer than ${BUNDLE_LIMITS.maxPathLength} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw unsafe("The archive has a file name with control characters.");
  if (name.includes("\\")) throw unsafe(`The archive names ${shown} with a backslash; use "/" between folders.`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw unsafe(`The archive has an absolute path (${shown}); a bundle's paths must be relative.`);
  const segments = name.replace(/\/$/, "").split("/");
  if (segments.some((segment) => segment === "..")) throw unsafe(`The archive has a path that climbs out of the bundle (${shown}).`);
  if (segments.some((segment) => segment === "." || segment === "")) throw unsafe(`The archive has a malformed path (${shown}).`);
  return name;
}

function isLitter(name: string): boolean {
  return name.startsWith("__MACOSX/") || name === ".DS_Store" || name.endsWith("/.DS_Store");
}

function readStream(zip: ZipFile, entry: Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream: Readable) => {
      if (error !== null) return reject(unsafe(`An entry cannot be read (${error.message.slice(0, 120)}).`));
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        // yauzl also stops at the declared size; this guards the limit whatever the header says.
        if (size > BUNDLE_LIMITS.maxFileBytes) {
          stream.destroy();
          reject(unsafe(`An entry inflates past ${BUNDLE_LIMITS.maxFileBytes / 1024 / 1024} MiB.`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on("error", (streamError: Error) => reject(unsafe(`An entry is damaged (${streamError.message.slice(0, 120)}).`)));
      stream.on("end", () => resolve(Buffer.concat(chunks, size)));
    });
  });
}

function openZip(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (error, zip) => {
      if (error !== null) return reject(new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "The file is not a zip archive (or its directory is damaged)."));
      resolve(zip);
    });
  });
}

/** Every file of the archive, checked; throws a coded refusal at the first problem. */
export async function readBundleArchive(bytes: Buffer): Promise<BundleArchive> {
  const zip = await openZip(bytes);
  try {
    if (zip.entryCount > BUNDLE_LIMITS.maxEntries)
      throw unsafe(`The archive has ${zip.entryCount} entries; a skill bundle may have at most ${BUNDLE_LIMITS.maxEntries}.`);
    const entries = await new Promise<Entry[]>((resolve, reject) => {
      const all: Entry[] = [];
      zip.on("entry", (entry) => {
        all.push(entry);
        zip.readEntry();
      });
      zip.on("end", () => resolve(all));
      zip.on("error", (error) => reject(unsafe(`The archive's directory is damaged (${error.message.slice(0, 120)}).`)));
      zip.readEntry();
    });

    // Every name and size is checked before any entry is inflated.
    const seen = new Map<string, string>();
    let declaredTotal = 0;
    const kept: Array<{ entry: Entry; name: string; mode: number }> = [];
    const skipped: string[] = [];
    for (const entry of entries) {
      const name = checkedEntryName(entry.fileNameRaw ?? entry.fileName);
      const key = name.replace(/\/$/, "").normalize("NFC").toLowerCase();
      const earlier = seen.get(key);
      if (earlier !== undefined)
        throw unsafe(`The archive holds ${JSON.stringify(name.slice(0, 80))} twice${earlier === name ? "" : " (names differing only in case)"}.`);
      seen.set(key, name);
      const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const type = mode & S_IFMT;
      if (type === S_IFLNK) throw unsafe(`The archive holds a symbolic link (${JSON.stringify(name.slice(0, 80))}); bundles must contain plain files.`);
      if (name.endsWith("/") || type === S_IFDIR) {
        skipped.push(name);
        continue;
      }
      if (entry.isEncrypted()) throw unsafe(`The archive holds an encrypted entry (${JSON.stringify(name.slice(0, 80))}).`);
      if (entry.uncompressedSize > BUNDLE_LIMITS.maxFileBytes)
        throw unsafe(`An entry declares ${entry.uncompressedSize} bytes; the limit per file is ${BUNDLE_LIMITS.maxFileBytes}.`);
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > BUNDLE_LIMITS.maxTotalBytes) throw unsafe(`The archive inflates past ${BUNDLE_LIMITS.maxTotalBytes / 1024 / 1024} MiB.`);
      if (entry.uncompressedSize > BUNDLE_LIMITS.ratioFloorBytes && entry.uncompressedSize > Math.max(entry.compressedSize, 1) * BUNDLE_LIMITS.maxEntryRatio) {
        throw unsafe(
          `An entry inflates ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))} times its size; that is a zip bomb, not a skill.`,
        );
      }
      if (isLitter(name)) {
        skipped.push(name);
        continue;
      }
      kept.push({ entry, name, mode });
    }

    const files: BundleFile[] = [];
    for (const { entry, name, mode } of kept) {
      const data = await readStream(zip, entry);
      if (data.length !== entry.uncompressedSize) throw unsafe(`An entry's size does not match its header (${JSON.stringify(name.slice(0, 80))}).`);
      files.push({ path: name, bytes: data, mode: mode & 0o7777, executable: (mode & 0o111) !== 0 });
    }
    return { files, skipped };
  } finally {
    zip.close();
  }
}
