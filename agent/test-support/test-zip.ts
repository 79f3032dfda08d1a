import { deflateRawSync } from "node:zlib";

/**
 * Builds zip archives byte by byte for tests, including the hostile ones no archiver will make
 * (names that climb out, symlink entries, non-UTF-8 names, lying sizes). Writing only: the agent
 * reads archives with yauzl. Layout per APPNOTE 4.3: local headers and data, central directory,
 * end of central directory.
 */
export interface TestZipEntry {
  name: string | Buffer;
  data?: string | Buffer;
  /** Unix mode bits stored in the external attributes (file type included), e.g. 0o100755. */
  mode?: number;
  /** Deflate the data (default true for data over 64 bytes). */
  deflate?: boolean;
  /** Lie about the inflated size in the headers. */
  declaredSize?: number;
  /** Set the UTF-8 name flag (bit 11); default true for string names. */
  utf8Flag?: boolean;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function buildTestZip(entries: readonly TestZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === "string" ? Buffer.from(entry.name, "utf8") : entry.name;
    const data = entry.data === undefined ? Buffer.alloc(0) : typeof entry.data === "string" ? Buffer.from(entry.data, "utf8") : entry.data;
    const deflate = entry.deflate ?? data.length > 64;
    const stored = deflate ? deflateRawSync(data) : data;
    const flags = (entry.utf8Flag ?? typeof entry.name === "string") ? 0x800 : 0;
    const size = entry.declaredSize ?? data.length;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(0, 10);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, stored);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the mode bits mean what they say
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A folder of files as a zip, the way a person zips a skill folder (one top folder). */
export function zipFolder(folder: string, files: Readonly<Record<string, string | Buffer | { data: string | Buffer; mode: number }>>): Buffer {
  return buildTestZip(
    Object.entries(files).map(([name, value]) =>
      typeof value === "object" && !Buffer.isBuffer(value)
        ? { name: `${folder}/${name}`, data: value.data, mode: value.mode }
        : { name: `${folder}/${name}`, data: value },
    ),
  );
}
