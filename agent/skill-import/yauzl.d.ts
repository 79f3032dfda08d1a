/**
 * The part of yauzl 3 (thejoshwolfe/yauzl) that the bundle reader uses. @types/yauzl describes
 * 2.x, where `fileName` is always a string; with `decodeStrings: false` it is the raw bytes, which
 * is how we refuse names that are not UTF-8 instead of guessing CP437.
 */
declare module "yauzl" {
  import type { Readable } from "node:stream";

  export interface Entry {
    fileName: Buffer;
    fileNameRaw: Buffer;
    generalPurposeBitFlag: number;
    compressionMethod: number;
    compressedSize: number;
    uncompressedSize: number;
    externalFileAttributes: number;
    versionMadeBy: number;
    isEncrypted(): boolean;
    isCompressed(): boolean;
  }

  export interface ZipFile {
    entryCount: number;
    readEntry(): void;
    openReadStream(entry: Entry, callback: (error: Error | null, stream: Readable) => void): void;
    close(): void;
    on(event: "entry", listener: (entry: Entry) => void): this;
    on(event: "end", listener: () => void): this;
    on(event: "error", listener: (error: Error) => void): this;
  }

  export interface Options {
    lazyEntries?: boolean;
    decodeStrings?: boolean;
    validateEntrySizes?: boolean;
    strictFileNames?: boolean;
    autoClose?: boolean;
  }

  export function fromBuffer(buffer: Buffer, options: Options, callback: (error: Error | null, zipfile: ZipFile) => void): void;

  const yauzl: { fromBuffer: typeof fromBuffer };
  export default yauzl;
}
