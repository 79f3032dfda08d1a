import { describe, expect, it, vi } from "vitest";
import type { CaptureSessionState } from "../../../shared/observation/capture-protocol";
import type { CaptureConfig } from "../../observation/common/capture-messages";
import type { BackgroundStore, HashKeyRecord, TypedValuesRecord } from "../worker/background-storage";
import type { BadgeSpec } from "./capture-badge";
import type { CaptureScripts } from "./capture-scripts";
import { createCaptureSession } from "./capture-session";

const A = "7b0a5c8e-8f64-4a43-9d0c-1f2d3e4a5b6c";
const B = "9c1b2d3e-0000-4000-8000-000000000000";
const session = (id: string, state: CaptureSessionState["state"], sites: string[]): CaptureSessionState => ({
  learn_session_id: id,
  state,
  target_app_whitelist: sites,
  redaction_modes: { text_entry: "hash_only" },
});

/** Our own seams, recorded: the store in memory, and what the scripts and badge were asked to do. */
function setup() {
  let mirror: CaptureSessionState | null = null;
  let hashKey: HashKeyRecord | null = null;
  let typedValues: TypedValuesRecord | null = null;
  const store = {
    loadMirror: async () => mirror,
    saveMirror: async (value: CaptureSessionState | null) => {
      mirror = value;
    },
    loadHashKey: async () => hashKey,
    saveHashKey: async (record: HashKeyRecord) => {
      hashKey = record;
    },
    forgetHashKey: async () => {
      hashKey = null;
    },
    loadTypedValues: async () => typedValues,
    saveTypedValues: async (record: TypedValuesRecord) => {
      typedValues = record;
    },
    forgetTypedValues: async () => {
      typedValues = null;
    },
  } as Partial<BackgroundStore> as BackgroundStore;
  const log: string[] = [];
  const configs: Array<{ config: CaptureConfig | null; sites: readonly string[] }> = [];
  const scripts: CaptureScripts = {
    register: async (sites) => {
      log.push(`register ${sites.join(",")}`);
      return [...sites];
    },
    unregister: async () => {
      log.push("unregister");
    },
    broadcast: async (configFor, sites) => {
      // What a page on the first site would be told.
      const config = await configFor(`https://${sites[0] ?? "none.example"}/`);
      configs.push({ config, sites });
      log.push(`broadcast ${config === null ? "null" : config.state} ${sites.join(",")}`);
    },
  };
  const released: string[] = [];
  const badges: BadgeSpec[] = [];
  const active: boolean[] = [];
  let counter = 0;
  const capture = createCaptureSession({
    store,
    scripts,
    action: {
      setBadgeText: async ({ text }) => void badges.push({ text, color: "", title: "" }),
      setBadgeBackgroundColor: async () => undefined,
      setBadgeTextColor: async () => undefined,
      setTitle: async () => undefined,
    },
    releaseSites: async (origins) => {
      released.push(...origins);
      return true;
    },
    randomBytes: (bytes) => bytes.fill((counter += 1)),
    now: () => new Date("2025-01-01T00:00:00Z"),
    onActiveChange: (value) => active.push(value),
  });
  return { capture, log, configs, released, badges, active, hashKey: () => hashKey, typedValues: () => typedValues };
}

describe("capture session mirror", () => {
  it("tells pages the same per-session hash key across changes, and forgets it at the end", async () => {
    const { capture, configs, hashKey } = setup();
    await capture.apply(session(A, "armed", ["shop.example.com"]));
    await capture.apply(session(A, "capturing", ["shop.example.com"]));
    const keys = configs.map((entry) => entry.config?.hash_key);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
    expect(configs[0]?.config?.text_entry_mode).toBe("hash_only");
    await capture.apply(session(A, "stopped", ["shop.example.com"]));
    expect(hashKey()).toBeNull();
  });

  it("ends a capture in order: pages told first, then the script unregistered, then site access given back", async () => {
    const { capture, log, released, badges, active } = setup();
    await capture.apply(session(A, "capturing", ["shop.example.com"]));
    log.length = 0;
    await capture.apply(session(A, "stopped", ["shop.example.com"]));
    expect(log).toEqual(["broadcast null shop.example.com", "unregister"]);
    expect(released).toEqual(["https://shop.example.com/*", "http://shop.example.com/*"]);
    expect(badges.at(-1)?.text).toBe("");
    expect(active).toEqual([true, false]);
  });

  it("keeps the site access a following session still needs", async () => {
    const { capture, released, configs } = setup();
    await capture.apply(session(A, "capturing", ["shop.example.com", "old.example.com"]));
    await capture.apply(session(B, "armed", ["shop.example.com"]));
    expect(released).toEqual(["https://old.example.com/*", "http://old.example.com/*"]);
    expect(configs.at(-1)).toEqual({ config: null, sites: ["old.example.com"] });
    expect(configs.at(-2)?.config?.learn_session_id).toBe(B);
  });

  it("gives a page a config only while the session observes it", async () => {
    const { capture } = setup();
    await capture.apply(session(A, "paused", ["shop.example.com"]));
    expect((await capture.configForPage("https://shop.example.com/cart"))?.state).toBe("paused");
    expect(await capture.configForPage("https://other.example.com/")).toBeNull();
    await capture.apply(null);
    expect(await capture.configForPage("https://shop.example.com/cart")).toBeNull();
  });

  it("tells a page only the values typed on its own site, never another allowed site's (issue #30)", async () => {
    const { capture } = setup();
    await capture.apply(session(A, "capturing", ["*.bank.example", "127.0.0.1:8123"]));
    await capture.addTypedValues(A, "https://login.bank.example/sign-in", ["password123"]);
    await capture.addTypedValues(A, "http://127.0.0.1:8123/notes", ["a note"]);
    // The bank's subdomains are one site as the person allowed it (`*.bank.example`); the other allowed site is another.
    expect((await capture.configForPage("https://app.bank.example/home"))?.typed_values).toEqual(["password123"]);
    expect((await capture.configForPage("http://127.0.0.1:8123/search"))?.typed_values).toEqual(["a note"]);
  });

  it("tells every page of a site the values typed on any of its pages, and forgets them when the session ends", async () => {
    const { capture, configs, typedValues } = setup();
    await capture.apply(session(A, "capturing", ["shop.example.com"]));
    await capture.addTypedValues(A, "https://shop.example.com/search", ["Ada Lovelace"]);
    // Every open page is told at once; a page opened next (a search's results page) gets them in its config.
    await vi.waitFor(() => expect(configs.at(-1)?.config?.typed_values).toEqual(["Ada Lovelace"]));
    expect((await capture.configForPage("https://shop.example.com/results"))?.typed_values).toEqual(["Ada Lovelace"]);
    // Known values are not told again; values for another session are ignored.
    const told = configs.length;
    await capture.addTypedValues(A, "https://shop.example.com/search", ["Ada Lovelace"]);
    await capture.addTypedValues(B, "https://shop.example.com/search", ["not this session"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(configs.length).toBe(told);
    await capture.apply(session(A, "stopped", ["shop.example.com"]));
    expect(typedValues()).toBeNull();
    await capture.apply(session(B, "capturing", ["shop.example.com"]));
    expect((await capture.configForPage("https://shop.example.com/"))?.typed_values).toEqual([]);
  });

  it("makes a page that asks for its config wait for values still being handled", async () => {
    const { capture } = setup();
    await capture.apply(session(A, "capturing", ["shop.example.com"]));
    let release!: () => void;
    const handling = new Promise<void>((resolve) => {
      release = resolve;
    }).then(() => capture.addTypedValues(A, "https://shop.example.com/form", ["late value"]));
    capture.holdConfigsFor(handling);
    const config = capture.configForPage("https://shop.example.com/next");
    release();
    expect((await config)?.typed_values).toEqual(["late value"]);
  });
});
