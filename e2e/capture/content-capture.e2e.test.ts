import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ObservedActionEventWithDetailSchema, type ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { PAGE_SNAPSHOT_MAX_BYTES, canonicalJson } from "../../shared/observation/page-snapshot";
import { SnapshotUploadSchema } from "../../shared/observation/capture-protocol";
import { urlRefusal } from "../../shared/observation/url-rule";
import { ContentMessageSchema, type CaptureConfig } from "../../extension/observation/common/capture-messages";
import { captureConfig, startContentHarness, type ContentHarness, type HarnessPage } from "../test-support/content-harness";

/**
 * The content half of observation (issue #4) in real Chromium: what the capture would hand to the
 * background, collected through the content harness while puppeteer types and clicks on a fixture
 * sign-up page (text, email, password, textarea, contenteditable, card, select, checkbox, file,
 * shadow-DOM button, same-origin iframe, hash link, pushState link).
 */

/** One unique canary per text-like field; none of them may leave the page in a masked mode. */
const CANARY = {
  text: "Qv7-text-canary",
  email: "qv7.email.canary@example.com",
  password: "Qv7-pass-canary!",
  textarea: "Qv7 textarea canary",
  editable: "Qv7-editable-canary",
  card: "4929 3812 7766 5502",
} as const;
const CARD_DIGITS = CANARY.card.replace(/\s/g, "");
/** A query value the page routes by, which the person never typed: it stays in every address (issue #35). */
const ROUTING_VALUE = "qv7-route-value";
const FILE_NAME = "qv7-canary-avatar.txt";

let harness: ContentHarness;
let fileDir: string;
let avatarFile: string;

beforeAll(async () => {
  harness = await startContentHarness();
  fileDir = await mkdtemp(path.join(tmpdir(), "elnor-upload-"));
  avatarFile = path.join(fileDir, FILE_NAME);
  await writeFile(avatarFile, "not a real avatar");
});

afterAll(async () => {
  await harness?.close();
  await rm(fileDir, { recursive: true, force: true });
});

const config = (overrides: Partial<CaptureConfig> = {}): CaptureConfig => captureConfig([harness.origin], overrides);

/** Everything a person does on the fixture, in the order a person would. */
async function demonstrate(capture: HarnessPage): Promise<void> {
  const { page } = capture;
  await page.type("#full-name", CANARY.text);
  await page.type("#email", CANARY.email);
  await page.type("#email-confirm", CANARY.email);
  await page.type("#password", CANARY.password);
  await page.type("#bio", CANARY.textarea);
  await page.click("#notes");
  await page.keyboard.type(CANARY.editable);
  await page.type("#card", CANARY.card);
  await page.focus("#shipping");
  await page.keyboard.press("ArrowDown");
  await page.click("#terms");
  const avatar = await page.$("input#avatar");
  await avatar!.uploadFile(avatarFile);
  await page.click("pierce/.promo-apply");
  const helpFrame = page.frames().find((frame) => frame.url().endsWith("/help-frame.html"));
  await helpFrame!.click("#contact");
  await page.keyboard.down("Control");
  await page.keyboard.press("k");
  await page.keyboard.up("Control");
  await page.click("a.nav-link");
  await page.click('[data-testid="create-account"]');
  // A last edit closed by Enter: the edit must be reported before the key press.
  await page.type("#full-name", " Jr");
  await page.keyboard.press("Enter");
  await page.click("#orders-link");
  await capture.flush();
}

/**
 * What the page sends that the background forwards to the agent: everything but the session's
 * typed values (`capture/typed-values`), which stay in the extension's memory for the session's
 * other pages (the leak corpus checks every WebSocket frame to the agent).
 */
function everything(capture: HarnessPage): string {
  return JSON.stringify(capture.messages.filter((message) => message.type !== "capture/typed-values"));
}

function find(events: ObservedActionEventWithDetail[], label: string): ObservedActionEventWithDetail {
  const event = events.find((candidate) => candidate.action_label === label);
  expect(event, `an event labelled ${label}; got ${events.map((e) => e.action_label).join(" | ")}`).toBeDefined();
  return event!;
}

describe("content capture in real Chromium (browser_dom, browser_snapshot)", () => {
  describe.each(["mask_text", "hash_only"] as const)("in %s mode", (mode) => {
    let capture: HarnessPage;
    beforeAll(async () => {
      capture = await harness.open(`/signup.html?ref=${ROUTING_VALUE}`, { config: config({ text_entry_mode: mode }) });
      await demonstrate(capture);
    });
    afterAll(() => capture.close());

    it("never lets a typed canary, the card number, the file name or a secret query value leave the page", () => {
      const sent = everything(capture);
      for (const canary of Object.values(CANARY)) expect(sent).not.toContain(canary);
      expect(sent).not.toContain(CARD_DIGITS);
      expect(sent).not.toMatch(/canary/i);
      expect(sent).not.toContain("nav-token-value");
      // The test can see what it looks for: the page did get the canaries.
      expect(capture.events().length).toBeGreaterThan(10);
    });

    it("tells the background (only) every value typed, so the session's other pages cut them out too", () => {
      const told = capture.messages.flatMap((message) => (message.type === "capture/typed-values" ? message.values : []));
      for (const canary of [CANARY.text, CANARY.email, CANARY.password, CANARY.textarea, CANARY.editable, CANARY.card]) expect(told).toContain(canary);
    });

    it("sends only messages the background can parse, with every field masked", () => {
      for (const message of capture.messages) expect(ContentMessageSchema.safeParse(message).success).toBe(true);
      const fills = capture.events().filter((event) => event.browser_detail?.dom_event_kind === "change" && event.browser_detail.masked_field);
      expect(fills.length).toBeGreaterThanOrEqual(6);
      for (const fill of fills) {
        expect(fill.redaction_mode).toBe(mode);
        expect(fill.browser_detail?.masked_field?.masked).toBe(true);
        expect(fill.browser_detail?.masked_field?.value).toBeUndefined();
      }
      // An ordinary value is named by its keyed reference (what an address carrying it says instead); a secret by none.
      expect(find(capture.events(), "Fill 'Email'").browser_detail?.masked_field?.value_ref).toMatch(/^[0-9a-f]{12}$/);
      expect(find(capture.events(), "Fill 'Password'").browser_detail?.masked_field?.value_ref).toBeUndefined();
    });

    it("gives every step a person's label and at least two selectors, best first", () => {
      const events = capture.events();
      for (const event of events) expect(event.action_label).toMatch(/^(Open|Snapshot of|Click|Fill|Select|Check|Uncheck|Choose|Submit|Press) \S/);
      const steps = events.filter((event) => event.browser_detail?.target_tag !== undefined);
      expect(steps.length).toBeGreaterThan(12);
      for (const step of steps) {
        expect(step.action_label, JSON.stringify(step.browser_detail)).not.toMatch(/undefined|null/);
        expect(step.browser_detail!.selectors.length, step.action_label).toBeGreaterThanOrEqual(2);
      }
      const labels = events.map((event) => event.action_label);
      for (const expected of [
        "Open 'Sign up — Fixture Shop'",
        "Fill 'Full name'",
        "Fill 'Email'",
        "Fill 'Confirm email'",
        "Fill 'Password'",
        "Fill 'About you'",
        "Fill 'Notes'",
        "Fill 'Card'",
        "Select 'Express' in 'Shipping'",
        "Check 'Accept terms'",
        "Choose 1 file for 'Avatar'",
        "Click 'Apply promo'",
        "Click 'Contact support'",
        "Press Ctrl+K",
        "Click 'Terms'",
        "Click 'Create account'",
        "Submit 'Sign up'",
        "Press Enter in 'Full name'",
        "Click 'Orders'",
        "Open 'Orders — Fixture Shop'",
      ]) {
        expect(
          labels.some((label) => label === expected || label.startsWith(`${expected} `)),
          `${expected} in ${labels.join(" | ")}`,
        ).toBe(true);
      }
      // Ordinary typing is never a key event; keystrokes are one edit per field.
      for (const key of events.filter((event) => event.browser_detail?.dom_event_kind === "keydown")) {
        expect(key.action_label).toMatch(/^Press (Enter|Escape|Ctrl\+K)\b/);
      }
      expect(labels.filter((label) => label === "Fill 'Email'")).toHaveLength(1);
      // The edit closed by Enter comes before the key press and the submit it caused.
      const lastFill = labels.lastIndexOf("Fill 'Full name'");
      const enter = labels.indexOf("Press Enter in 'Full name'");
      expect(lastFill).toBeGreaterThan(-1);
      expect(lastFill).toBeLessThan(enter);
      expect(labels.indexOf("Submit 'Sign up'", enter)).toBeGreaterThan(enter);
      // Best first: a test id beats a role+name selector, which beats css and xpath.
      const create = find(events, "Click 'Create account'");
      expect(create.browser_detail!.selectors[0]).toEqual(['[data-testid="create-account"]']);
      expect(create.browser_detail!.selectors[1]).toEqual(['aria/Create account[role="button"]']);
      expect(create.browser_detail!.selectors.at(-1)![0]).toMatch(/^xpath\//);
    });

    it("captures clicks inside an open shadow root and inside a same-origin iframe", () => {
      const events = capture.events();
      const promo = find(events, "Click 'Apply promo'");
      expect(promo.browser_detail?.selectors).toContainEqual(["#promo", '[data-testid="apply-promo"]']);
      const contact = find(events, "Click 'Contact support'");
      expect(contact.browser_detail?.frame_path).toEqual([0]);
      expect(contact.browser_detail?.selectors).toContainEqual(["#contact"]);
    });

    it("keeps the query values that route, masks the secret ones in every URL, and names pages by their title", () => {
      for (const event of capture.events()) {
        const url = event.browser_detail?.page_url ?? "";
        expect(url.startsWith(harness.origin)).toBe(true);
        expect(urlRefusal(url), url).toBeUndefined();
      }
      expect(find(capture.events(), "Open 'Orders — Fixture Shop'").browser_detail?.page_url).toBe(`${harness.origin}/orders?page=2&token=*`);
      expect(capture.events()[0]?.browser_detail?.page_url).toBe(`${harness.origin}/signup.html?ref=${ROUTING_VALUE}`);
    });

    it("ties each DOM event to the snapshots before and after it, and uploads every referenced snapshot", () => {
      const events = capture.events();
      const uploads = capture.snapshots();
      const uploaded = new Set(uploads.map((upload) => `snapshot:${upload.sha256}`));
      for (const upload of uploads) {
        expect(SnapshotUploadSchema.safeParse(upload).success).toBe(true);
        // Content-addressed: SHA-256 over the snapshot's canonical JSON, as the agent checks it.
        expect(createHash("sha256").update(canonicalJson(upload.snapshot)).digest("hex")).toBe(upload.sha256);
      }
      for (const event of events) {
        for (const ref of [event.before_state_ref, event.after_state_ref]) if (ref !== undefined) expect(uploaded.has(ref), ref).toBe(true);
        if (event.adapter_kind === "browser_dom") {
          expect(event.after_state_ref, event.action_label).toBeDefined();
          expect(event.caused_state_change).toBe(event.before_state_ref !== event.after_state_ref);
        }
      }
      const submit = find(events, "Submit 'Sign up'");
      expect(submit.caused_state_change).toBe(true);
      const after = uploads.find((upload) => `snapshot:${upload.sha256}` === submit.after_state_ref);
      expect(after?.snapshot.status_messages).toContain("Account created");
      expect(events.filter((event) => event.adapter_kind === "browser_snapshot").length).toBeGreaterThanOrEqual(2);
    });

    it("keeps snapshots structural: labels and types of fields, never values or echoed text", () => {
      const snapshots = capture.snapshots();
      for (const { snapshot } of snapshots) {
        expect(new TextEncoder().encode(canonicalJson(snapshot)).length).toBeLessThanOrEqual(PAGE_SNAPSHOT_MAX_BYTES);
        expect(JSON.stringify(snapshot)).not.toMatch(/canary|4929/i);
      }
      const signUp = snapshots[0]!.snapshot.forms.find((form) => form.name === "Sign up");
      expect(signUp?.fields.map((field) => field.type)).toEqual([
        "text",
        "email",
        "email",
        "password",
        "textarea",
        "contenteditable",
        "text",
        "select",
        "checkbox",
        "file",
      ]);
      expect(signUp?.fields[0]).toEqual({ label: "Full name", type: "text", required: true });
      // The page echoes the typed name ("Welcome, …!"): the echo is cut out.
      expect(snapshots.flatMap(({ snapshot }) => snapshot.status_messages)).toContain("Welcome, •••!");
    });

    if (mode === "hash_only") {
      it("gives equal values equal hashes and different values different ones, and never hashes secrets", () => {
        const events = capture.events();
        const hashOf = (label: string) => find(events, label).browser_detail?.masked_field?.value_hash;
        expect(hashOf("Fill 'Email'")).toMatch(/^[0-9a-f]{64}$/);
        expect(hashOf("Fill 'Email'")).toBe(hashOf("Fill 'Confirm email'"));
        expect(hashOf("Fill 'Full name'")).not.toBe(hashOf("Fill 'Email'"));
        expect(find(events, "Fill 'Password'").browser_detail?.masked_field).toEqual({ masked: true, length_class: "medium", reason: "secret_field" });
        expect(find(events, "Fill 'Card'").browser_detail?.masked_field).toEqual({ masked: true, length_class: "medium", reason: "card_number" });
      });
    }
  });

  describe("with the user's consent to record text (none)", () => {
    it("sends ordinary values but never the password or the card number", async () => {
      const capture = await harness.open("/signup.html", { config: config({ text_entry_mode: "none" }) });
      await demonstrate(capture);
      const sent = everything(capture);
      // Proof that a leak would be seen: the ordinary field's value is there.
      expect(find(capture.events(), "Fill 'Email'").browser_detail?.masked_field).toEqual({
        masked: false,
        length_class: "medium",
        value: CANARY.email,
        value_ref: expect.stringMatching(/^[0-9a-f]{12}$/),
      });
      expect(sent).toContain(CANARY.text);
      expect(sent).not.toContain(CANARY.password);
      expect(sent).not.toContain(CANARY.card);
      expect(sent).not.toContain(CARD_DIGITS);
      expect(sent).not.toContain(FILE_NAME);
      for (const event of capture.events()) expect(ObservedActionEventWithDetailSchema.safeParse(event).success).toBe(true);
      await capture.close();
    });
  });

  describe("when it must not observe", () => {
    async function doSomething(capture: HarnessPage): Promise<void> {
      await capture.page.type("#full-name", CANARY.text);
      await capture.page.click("#terms");
      await capture.page.click("#counter");
      await capture.page.click("#orders-link");
      await capture.flush();
    }
    const indicatorPresent = (capture: HarnessPage) => capture.page.evaluate(() => document.querySelector("elnor-learn-indicator") !== null);

    it("emits nothing while paused, and observes again once resumed", async () => {
      const capture = await harness.open("/signup.html", { config: config({ state: "paused" }) });
      await doSomething(capture);
      expect(capture.messages).toEqual([]);
      expect(await indicatorPresent(capture)).toBe(true);
      await capture.setConfig(config({ state: "capturing" }));
      await capture.page.click("#counter");
      await capture.flush();
      // The page moved on (pushState) while paused: resuming says where it is now. Our listener runs
      // before the page's own, so the button still reads "Clicked 1 times".
      expect(capture.events().map((event) => event.action_label)).toEqual([
        "Open 'Orders — Fixture Shop'",
        "Click 'Clicked 1 times'",
        "Snapshot of 'Orders — Fixture Shop'",
      ]);
      await capture.close();
    });

    it("emits nothing without a config, and shows no indicator", async () => {
      const capture = await harness.open("/signup.html", { config: null });
      await doSomething(capture);
      expect(capture.messages).toEqual([]);
      expect(await indicatorPresent(capture)).toBe(false);
      await capture.close();
    });

    it("emits nothing on an origin the session does not allow", async () => {
      const capture = await harness.open("/signup.html", { config: config(), origin: "other" });
      expect(capture.page.url().startsWith(harness.otherOrigin)).toBe(true);
      await doSomething(capture);
      expect(capture.messages).toEqual([]);
      expect(await indicatorPresent(capture)).toBe(false);
      await capture.close();
    });

    it("stops emitting once the config is withdrawn (Stop elsewhere)", async () => {
      const capture = await harness.open("/signup.html", { config: config() });
      await capture.setConfig(null);
      const before = capture.messages.length;
      await doSomething(capture);
      expect(capture.messages.length).toBe(before);
      expect(await indicatorPresent(capture)).toBe(false);
      await capture.close();
    });
  });

  describe("the in-page indicator", () => {
    it("pauses and stops through capture/control, and is never observed itself", async () => {
      const capture = await harness.open("/signup.html", { config: config() });
      const pill = capture.page.locator("::-p-aria(Pause recording)");
      await pill.click();
      await capture.page.locator("::-p-aria(Resume recording)").wait();
      expect(capture.controls()).toEqual(["pause"]);
      const countAfterPause = capture.events().length;
      await capture.page.click("#counter");
      await capture.flush();
      expect(capture.events().length).toBe(countAfterPause);
      await capture.page.locator("::-p-aria(Stop recording)").click();
      await capture.page.waitForFunction(() => document.querySelector("elnor-learn-indicator") === null);
      expect(capture.controls()).toEqual(["pause", "stop"]);
      expect(capture.events().some((event) => /Pause|Resume|Stop|Recording/.test(event.action_label))).toBe(false);
      // The pill sits in a closed shadow root and does not change the page's layout.
      expect(await capture.page.evaluate(() => document.body.getBoundingClientRect().height > 0)).toBe(true);
      await capture.close();
    });
  });

  describe("robustness", () => {
    it("keeps the page working when the sink throws, with at most one prefixed warning", async () => {
      const capture = await harness.open("/signup.html", { config: config(), world: "main", throwInSink: true });
      for (let round = 0; round < 3; round += 1) await capture.page.click("#counter");
      await capture.page.type("#full-name", "Ada");
      await capture.flush();
      expect(await capture.page.$eval("#counter", (button) => button.textContent)).toBe("Clicked 3 times");
      expect(await capture.page.evaluate(() => (window as unknown as { pageErrors: number }).pageErrors)).toBe(0);
      // It kept observing: every click reached the (throwing) sink.
      expect(
        new Set(
          capture
            .events()
            .filter((event) => event.action_label.startsWith("Click 'Clicked"))
            .map((event) => event.event_id),
        ).size,
      ).toBe(3);
      // The sink did throw (every send failed): one prefixed warning, and nothing else in the console.
      const ours = capture.consoleLines.filter((line) => line.startsWith("[elnor-learn]"));
      expect(ours).toHaveLength(1);
      expect(capture.consoleLines).toEqual(ours);
      await capture.close();
    });

    it("trims a huge page's snapshot to 32 KB", async () => {
      const capture = await harness.open("/signup.html?big=1", { config: config() });
      await capture.page.click("#counter");
      await capture.flush();
      const uploads = capture.snapshots();
      expect(uploads.length).toBeGreaterThan(0);
      for (const upload of uploads) {
        expect(SnapshotUploadSchema.safeParse(upload).success).toBe(true);
        const size = new TextEncoder().encode(canonicalJson(upload.snapshot)).length;
        expect(size).toBeLessThanOrEqual(PAGE_SNAPSHOT_MAX_BYTES);
        expect(size).toBeGreaterThan(PAGE_SNAPSHOT_MAX_BYTES / 4);
        expect(upload.snapshot.forms[0]?.name).toBe("Sign up");
      }
      await capture.close();
    });
  });
});
