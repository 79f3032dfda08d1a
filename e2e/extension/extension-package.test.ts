import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl, { type Entry } from "yauzl";
import { EXTENSION_PERMISSIONS, permissionNames } from "../../shared/common/extension-permissions";
import { EXTENSION_DIR, launchExtensionBrowser } from "../test-support/extension-browser";
import { projectRoot } from "../../agent/test-support/agent-process";

/**
 * What a person takes to another machine (issue #36): the built extension lists its own icons at
 * the sizes it says, every permission it asks for is explained, and `npm run zip` packs exactly
 * the extension the other browser tests load, with a sources archive that rebuilds it.
 */

const exec = promisify(execFile);
const ICON_SIZES = ["16", "32", "48", "128"];

interface Manifest {
  icons?: Record<string, string>;
  action?: { default_icon?: Record<string, string> };
  permissions?: string[];
  host_permissions?: string[];
  optional_host_permissions?: string[];
}

/** Width and height from a PNG's IHDR chunk, which the format puts first. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "a PNG signature").toBe(true);
  expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Every file of a zip archive, by name (yauzl, as the skill importer reads archives; names as raw bytes). */
async function readZip(file: string): Promise<Map<string, Buffer>> {
  const bytes = await readFile(file);
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false }, (error, zip) => {
      if (error !== null) return reject(error);
      const files = new Map<string, Buffer>();
      zip.on("error", reject);
      zip.on("end", () => resolve(files));
      zip.on("entry", (entry: Entry) => {
        const name = entry.fileName.toString("utf8");
        if (name.endsWith("/")) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError !== null) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.on("error", reject);
          stream.on("end", () => {
            files.set(name, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

function expectIcons(manifest: Manifest, readIcon: (file: string) => Buffer | undefined): void {
  expect(Object.keys(manifest.icons ?? {}).sort()).toEqual([...ICON_SIZES].sort());
  expect(manifest.action?.default_icon).toEqual(manifest.icons);
  for (const [size, file] of Object.entries(manifest.icons ?? {})) {
    const bytes = readIcon(file);
    expect(bytes, `${file} is in the package`).toBeDefined();
    expect(pngSize(bytes!), file).toEqual({ width: Number(size), height: Number(size) });
  }
}

describe("the built extension (npm run build)", () => {
  let manifest: Manifest;
  const icons = new Map<string, Buffer>();

  beforeAll(async () => {
    manifest = JSON.parse(await readFile(path.join(EXTENSION_DIR, "manifest.json"), "utf8")) as Manifest;
    for (const file of Object.values(manifest.icons ?? {})) {
      const full = path.join(EXTENSION_DIR, file);
      if (existsSync(full)) icons.set(file, await readFile(full));
    }
  });

  it("lists its own icons for the extension and the toolbar button, each PNG at its stated size", () => {
    expectIcons(manifest, (file) => icons.get(file));
  });

  it("asks for exactly the permissions and hosts that docs/permissions.md and the panel explain", () => {
    expect(manifest.permissions).toEqual(permissionNames("permission"));
    expect(manifest.host_permissions).toEqual(permissionNames("host_permission"));
    expect(manifest.optional_host_permissions).toEqual(permissionNames("optional_host_permission"));
    const explained = new Set(EXTENSION_PERMISSIONS.map((entry) => entry.name));
    const asked = [...(manifest.permissions ?? []), ...(manifest.host_permissions ?? []), ...(manifest.optional_host_permissions ?? [])];
    expect(asked.filter((name) => !explained.has(name))).toEqual([]);
  });
});

describe("npm run zip", () => {
  let outDir: string;
  let archives: string[];

  beforeAll(async () => {
    // Into a temporary folder (wxt.config.ts reads ELNOR_EXTENSION_OUT_DIR): the extension other
    // browser tests load from .output/chrome-mv3 is not rebuilt under them.
    outDir = await mkdtemp(path.join(tmpdir(), "elnor-zip-"));
    await exec("npm", ["run", "zip"], {
      cwd: projectRoot,
      env: { ...process.env, ELNOR_EXTENSION_OUT_DIR: outDir },
      timeout: 240_000,
      maxBuffer: 8 * 1024 * 1024,
    });
    archives = (await readdir(outDir)).filter((name) => name.endsWith(".zip")).sort();
  }, 300_000);

  afterAll(async () => {
    if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
  });

  it("makes the store archive and the sources archive", () => {
    expect(archives).toEqual(["elnor-learn-0.1.0-chrome.zip", "elnor-learn-0.1.0-sources.zip"]);
  });

  it("packs the same manifest as the built extension, with its icons at their sizes", async () => {
    const files = await readZip(path.join(outDir, "elnor-learn-0.1.0-chrome.zip"));
    const packed = JSON.parse(files.get("manifest.json")!.toString("utf8")) as Manifest;
    const built = JSON.parse(await readFile(path.join(EXTENSION_DIR, "manifest.json"), "utf8")) as Manifest;
    expect(packed).toEqual(built);
    expectIcons(packed, (file) => files.get(file));
    expect([...files.keys()].filter((name) => name.endsWith(".map") || name.includes("node_modules"))).toEqual([]);
  });

  it("loads, unzipped, in a fresh Chromium profile and explains its permissions before pairing", async () => {
    // What a person does on another machine: unzip the store archive, Load unpacked, open the panel.
    const unpacked = path.join(outDir, "unpacked");
    for (const [name, bytes] of await readZip(path.join(outDir, "elnor-learn-0.1.0-chrome.zip"))) {
      await mkdir(path.dirname(path.join(unpacked, name)), { recursive: true });
      await writeFile(path.join(unpacked, name), bytes);
    }
    const chrome = await launchExtensionBrowser(unpacked);
    try {
      const panel = await chrome.openSidePanel();
      await panel.locator("footer button ::-p-text(Why these permissions)").click();
      await panel.waitForSelector('[data-view="why-permissions"] li[data-permission="debugger"]');
      const listed = await panel.$$eval("[data-permission]", (items) => items.map((item) => item.getAttribute("data-permission")));
      expect(listed).toEqual(EXTENSION_PERMISSIONS.map((entry) => entry.name));
    } finally {
      await chrome.close();
    }
  });

  it("packs sources that rebuild the extension, without tests, the agent or node_modules", async () => {
    const names = [...(await readZip(path.join(outDir, "elnor-learn-0.1.0-sources.zip"))).keys()];
    for (const needed of [
      "package.json",
      "package-lock.json",
      "wxt.config.ts",
      "tsconfig.json",
      "extension/assets/icon.svg",
      "extension/entrypoints/background.ts",
      "ui/App.svelte",
      "shared/common/extension-permissions.ts",
    ]) {
      expect(names, needed).toContain(needed);
    }
    expect(names.filter((name) => /\.test\.ts$|^node_modules\/|^agent\/|^e2e\/|^\.output\//.test(name))).toEqual([]);
  });
});
