import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import type { PageSnapshot } from "../../shared/observation/page-snapshot";
import { captureConfig, startContentHarness, type ContentHarness, type HarnessPage } from "../../e2e/test-support/content-harness";

/**
 * When the capture reads the page for a snapshot (issue #4, BENCHMARKS.md): after an action that
 * changed nothing a snapshot reads, the last snapshot is the after-state and the page is not read
 * again; anything it reads that changed (a node, a text, an attribute, the URL, a popover, CSS
 * that follows a checked box, a typed value already on the page) makes it read again. And the
 * listeners that replaced the per-keystroke `input` listener still report every edit once.
 * Real Chromium, through the content harness; the capture runs in the page's world so the test can
 * ask it how often it read the page.
 */

let harness: ContentHarness;

beforeAll(async () => {
  harness = await startContentHarness();
});

afterAll(async () => {
  await harness?.close();
});

async function open(settleDelayMs?: number): Promise<HarnessPage> {
  const capture = await harness.open("/signup.html", {
    config: captureConfig([harness.origin]),
    world: "main",
    ...(settleDelayMs === undefined ? {} : { settleDelayMs }),
  });
  await capture.flush();
  return capture;
}

const reads = (capture: HarnessPage): Promise<number> =>
  capture.page.evaluate(() => (globalThis as unknown as { __elnorHarness: { snapshotReads: number } }).__elnorHarness.snapshotReads);

function lastEvent(capture: HarnessPage, label: string): ObservedActionEventWithDetail {
  const event = capture.events().findLast((candidate) => candidate.action_label === label);
  expect(
    event,
    `${label} in ${capture
      .events()
      .map((e) => e.action_label)
      .join(" | ")}`,
  ).toBeDefined();
  return event!;
}

function snapshotOf(capture: HarnessPage, ref: string | undefined): PageSnapshot {
  const upload = capture.snapshots().find((candidate) => `snapshot:${candidate.sha256}` === ref);
  expect(upload, `an uploaded snapshot for ${ref}`).toBeDefined();
  return upload!.snapshot;
}

/** Adds page content (as the page's own script would) and lets the capture take the snapshot that change calls for. */
async function addToPage(capture: HarnessPage, html: string): Promise<void> {
  await capture.page.evaluate((markup) => document.querySelector("main")!.insertAdjacentHTML("beforeend", markup), html);
  await capture.page.click("h1");
  await capture.flush();
}

describe("snapshot reads", () => {
  it("does not read an unchanged page again: the action's after-state is the snapshot before it", async () => {
    // No settled-page read comes due during the test: on a loaded machine the page's own one (2.5 s after its first
    // read) could fall between the count before and the click, which takes it.
    const capture = await open(60_000);
    const before = await reads(capture);
    await capture.page.click("h1");
    await capture.flush();
    const click = lastEvent(capture, "Click 'Create your account'");
    expect(await reads(capture)).toBe(before);
    expect(click.after_state_ref).toBeDefined();
    expect(click.after_state_ref).toBe(click.before_state_ref);
    expect(click.caused_state_change).toBe(false);
    await capture.close();
  });

  it("reads the page again when a text changes, and the new snapshot shows it", async () => {
    const capture = await open();
    const before = await reads(capture);
    await capture.page.click("#counter");
    await capture.flush();
    const click = lastEvent(capture, "Click 'Clicked 0 times'");
    expect(await reads(capture)).toBe(before + 1);
    expect(click.caused_state_change).toBe(true);
    expect(snapshotOf(capture, click.after_state_ref).buttons).toContain("Clicked 1 times");
    await capture.close();
  });

  it("reads the page again when an attribute it reads changes (hidden)", async () => {
    const capture = await open();
    await addToPage(capture, `<button type="button" id="hide-terms" onclick="document.querySelector('#terms-section h2').hidden = true">Hide terms</button>`);
    const before = await reads(capture);
    await capture.page.click("#hide-terms");
    await capture.flush();
    const click = lastEvent(capture, "Click 'Hide terms'");
    expect(await reads(capture)).toBe(before + 1);
    expect(snapshotOf(capture, click.before_state_ref).headings.map((heading) => heading.text)).toContain("Terms");
    expect(snapshotOf(capture, click.after_state_ref).headings.map((heading) => heading.text)).not.toContain("Terms");
    await capture.close();
  });

  it("reads the page again when only the URL changes", async () => {
    const capture = await open();
    await addToPage(capture, `<button type="button" id="next-step" onclick="history.replaceState(null, '', '?step=2')">Next step</button>`);
    const before = await reads(capture);
    await capture.page.click("#next-step");
    await capture.flush();
    const click = lastEvent(capture, "Click 'Next step'");
    expect(await reads(capture)).toBe(before + 1);
    // The page routes by `step`, which nobody typed: it stays (issue #35).
    expect(snapshotOf(capture, click.after_state_ref).url).toBe(`${harness.origin}/signup.html?step=2`);
    await capture.close();
  });

  it("reads the page again when a popover opens (no DOM change, a toggle event)", async () => {
    const capture = await open();
    await addToPage(
      capture,
      `<button type="button" popovertarget="more" id="more-button">More</button><div popover id="more"><button type="button">Export all</button></div>`,
    );
    const before = await reads(capture);
    await capture.page.click("#more-button");
    // The browser fires `toggle` a task after the popover opens (the capture's own debounce waits far longer than this).
    await capture.page.waitForFunction(() => document.getElementById("more")!.matches(":popover-open"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await capture.flush();
    const click = lastEvent(capture, "Click 'More'");
    expect(await reads(capture)).toBe(before + 1);
    expect(snapshotOf(capture, click.before_state_ref).buttons).not.toContain("Export all");
    expect(snapshotOf(capture, click.after_state_ref).buttons).toContain("Export all");
    await capture.close();
  });

  it("reads the page again after a checked box: its state is in the snapshot (issue #14), and so is what CSS shows on `:checked`", async () => {
    const capture = await open();
    // No node changes when a box is ticked, but the snapshot's control states do.
    let before = await reads(capture);
    await capture.page.click("#terms");
    await capture.flush();
    const terms = lastEvent(capture, "Check 'Accept terms'");
    expect(terms.caused_state_change).toBe(true);
    expect(await reads(capture)).toBe(before + 1);
    expect(snapshotOf(capture, terms.after_state_ref).toggles).toContainEqual({ name: "Accept terms", role: "checkbox", state: "checked" });

    await addToPage(
      capture,
      `<style>.drawer { display: none } #show-drawer:checked ~ .drawer { display: block }</style>
       <input type="checkbox" id="show-drawer" aria-label="Show drawer"><nav class="drawer" aria-label="Drawer"><a href="#saved">Saved carts</a></nav>`,
    );
    before = await reads(capture);
    await capture.page.click("#show-drawer");
    await capture.flush();
    const check = lastEvent(capture, "Check 'Show drawer'");
    expect(await reads(capture)).toBe(before + 1);
    expect(check.caused_state_change).toBe(true);
    expect(snapshotOf(capture, check.after_state_ref).links).toContain("Saved carts");
    await capture.close();
  });

  it("reads the page again when a value typed since is already on it, and cuts the value out", async () => {
    const capture = await open();
    expect(
      capture
        .snapshots()
        .at(-1)
        ?.snapshot.headings.map((heading) => heading.text),
    ).toContain("Terms");
    const before = await reads(capture);
    // The page does not echo this field: no DOM change, but "Terms" is on the page already.
    await capture.page.type("#bio", "Terms");
    await capture.page.click("h1");
    await capture.flush();
    const fill = lastEvent(capture, "Fill 'About you'");
    expect(await reads(capture)).toBe(before + 1);
    const after = snapshotOf(capture, fill.after_state_ref);
    expect(JSON.stringify(after)).not.toMatch(/terms/i);
    expect(after.headings.map((heading) => heading.text)).toContain("•••");
    await capture.close();
  });
});

describe("the settled-page snapshot while a person types", () => {
  it("waits for the edit to end: options the typing shows are the Fill's doing, not the action before it", async () => {
    const capture = await open();
    // An autocomplete, as a travel site has one: each key press renders options under the field.
    await capture.page.evaluate(() => {
      document
        .querySelector("main")!
        .insertAdjacentHTML(
          "beforeend",
          '<label>Destination <input id="dest" role="combobox" aria-controls="opts"></label><ul id="opts" role="listbox" aria-label="Destinations"></ul>',
        );
      const field = document.getElementById("dest") as HTMLInputElement;
      field.addEventListener("input", () => {
        document
          .getElementById("opts")!
          .replaceChildren(
            ...["city", "region"].map((kind) => Object.assign(document.createElement("li"), { role: "option", textContent: `${field.value} (${kind})` })),
          );
      });
    });
    await capture.page.click("h1");
    // The click's snapshot is taken (300 ms); the settled-page snapshot is due 2.5 s later, while the person still types.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await capture.flush();
    const click = lastEvent(capture, "Click 'Create your account'");
    await capture.page.type("#dest", "Lisbon", { delay: 40 });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await capture.page.keyboard.press("Tab");
    await capture.flush();
    const fill = lastEvent(capture, "Fill 'Destination'");
    const between = capture.events().slice(capture.events().indexOf(click) + 1, capture.events().indexOf(fill));
    // No page state with the options is reported before the Fill (the action before it did not show them).
    expect(between.map((event) => event.after_state_ref)).not.toContain(fill.after_state_ref);
    expect(fill.before_state_ref).toBe(click.after_state_ref);
    expect(fill.caused_state_change).toBe(true);
    await capture.close();
  });
});

describe("snapshots read in idle time (issue #32)", () => {
  /** Idle callbacks the page never gets to run: the capture's due snapshot waits until something else asks for it. */
  const NO_IDLE_TIME = `window.requestIdleCallback = () => 1; window.cancelIdleCallback = () => undefined;`;

  it("reads a due snapshot before the next action starts, not after the page reacted to it", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig([harness.origin]), world: "main", prelude: NO_IDLE_TIME });
    await capture.flush();
    const before = await reads(capture);
    await capture.page.click("#counter");
    // Well past the debounce (and the name warming's limit, whose idle slices never run either):
    // the snapshot is due, and waits for idle time that never comes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await reads(capture)).toBe(before);
    // The page reacts to a pointer pressed on the button before its click (as a menu that opens on press).
    await capture.page.evaluate(() => {
      document.getElementById("counter")!.addEventListener("pointerdown", (event) => {
        (event.currentTarget as HTMLElement).textContent = "Pressed";
      });
    });
    await capture.page.click("#counter");
    await capture.flush();
    const first = lastEvent(capture, "Click 'Clicked 0 times'");
    const second = lastEvent(capture, "Click 'Pressed'");
    const settled = JSON.stringify(snapshotOf(capture, first.after_state_ref));
    expect(settled).toContain("Clicked 1 times");
    expect(settled).not.toContain("Pressed");
    expect(second.before_state_ref).toBe(first.after_state_ref);
    expect(JSON.stringify(snapshotOf(capture, second.after_state_ref))).toContain("Clicked 2 times");
    await capture.close();
  });

  it("reads a due snapshot before a key press reaches the page (the key listener is there while a read is due)", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig([harness.origin]), world: "main", prelude: NO_IDLE_TIME });
    await capture.flush();
    // The page reacts to a key in the field (as a search box that filters as it is typed into).
    await capture.page.evaluate(() => {
      document.getElementById("full-name")!.addEventListener("keydown", () => {
        document.querySelector("main")!.insertAdjacentHTML("beforeend", "<h2>Key seen</h2>");
      });
    });
    await capture.page.click("#counter");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await capture.page.focus("#full-name");
    await capture.page.keyboard.press("A");
    await capture.flush();
    const click = lastEvent(capture, "Click 'Clicked 0 times'");
    const settled = JSON.stringify(snapshotOf(capture, click.after_state_ref));
    expect(settled).toContain("Clicked 1 times");
    expect(settled).not.toContain("Key seen");
    await capture.close();
  });

  it("masks a field's value in idle time under the mode it was typed in, though the session's mode changed before", async () => {
    const config = captureConfig([harness.origin]);
    const capture = await harness.open("/signup.html", { config, world: "main", prelude: NO_IDLE_TIME });
    await capture.flush();
    await capture.page.type("#full-name", "Grace Hopper");
    await capture.page.focus("#email");
    // The edit is held (no idle time: its mask not yet worked out) when the session starts sending what is typed.
    await capture.setConfig({ ...config, text_entry_mode: "none" });
    await capture.flush();
    const fill = lastEvent(capture, "Fill 'Full name'");
    expect(fill.browser_detail?.masked_field?.masked).toBe(true);
    expect(JSON.stringify(capture.events())).not.toContain("Grace Hopper");
    await capture.close();
  });
});

describe("field edits without an input listener", () => {
  it("reports text entered without key presses (as a paste or autofill puts it) when the field is left", async () => {
    const capture = await open();
    await capture.page.focus("#email-confirm");
    const cdp = await capture.page.createCDPSession();
    await cdp.send("Input.insertText", { text: "pasted@example.org" });
    await capture.page.focus("#bio");
    await capture.flush();
    expect(capture.events().filter((event) => event.action_label === "Fill 'Confirm email'")).toHaveLength(1);
    await capture.close();
  });

  it("reports an edit once, before the Enter that submits it, and not again when the page clears the field", async () => {
    const capture = await open();
    // A chat-like field: the page empties it after Enter.
    await capture.page.evaluate(() =>
      document.getElementById("full-name")!.addEventListener("keydown", (event) => {
        if ((event as KeyboardEvent).key === "Enter") setTimeout(() => ((event.target as HTMLInputElement).value = ""));
      }),
    );
    await capture.page.type("#full-name", "Ada");
    await capture.page.keyboard.press("Enter");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await capture.page.keyboard.press("Tab");
    await capture.flush();
    const labels = capture.events().map((event) => event.action_label);
    expect(labels.filter((label) => label === "Fill 'Full name'")).toHaveLength(1);
    expect(labels.indexOf("Fill 'Full name'")).toBeLessThan(labels.indexOf("Press Enter in 'Full name'"));
    await capture.close();
  });

  it("reports the edit of a field whose formatter sets the value itself (no `change` fires) when the field is left, before the next action", async () => {
    const capture = await open();
    // An input mask: it takes every key and writes the value itself, as phone and card formatters do.
    await capture.page.evaluate(() =>
      document.getElementById("full-name")!.addEventListener("keydown", (event) => {
        const key = (event as KeyboardEvent).key;
        if (key.length !== 1) return;
        event.preventDefault();
        const input = event.target as HTMLInputElement;
        input.value = `${input.value}${key.toUpperCase()}`;
      }),
    );
    await capture.page.type("#full-name", "ada");
    expect(await capture.page.$eval("#full-name", (input) => (input as HTMLInputElement).value)).toBe("ADA");
    await capture.page.click("h1");
    await capture.flush();
    const labels = capture.events().map((event) => event.action_label);
    expect(labels.filter((label) => label === "Fill 'Full name'")).toHaveLength(1);
    expect(labels.indexOf("Fill 'Full name'")).toBeLessThan(labels.indexOf("Click 'Create your account'"));
    await capture.close();
  });

  it("reports a pasted value before the Enter that follows it", async () => {
    const capture = await open();
    await capture.page.focus("#full-name");
    const cdp = await capture.page.createCDPSession();
    await cdp.send("Input.insertText", { text: "Ada Lovelace" });
    await capture.page.keyboard.press("Enter");
    await capture.flush();
    const labels = capture.events().map((event) => event.action_label);
    expect(labels.filter((label) => label === "Fill 'Full name'")).toHaveLength(1);
    expect(labels.indexOf("Fill 'Full name'")).toBeLessThan(labels.indexOf("Press Enter in 'Full name'"));
    await capture.close();
  });

  it("reports a pasted value still in the focused field when the capture is flushed (the page is hidden or capture stops)", async () => {
    const capture = await open();
    await capture.page.focus("#email-confirm");
    const cdp = await capture.page.createCDPSession();
    await cdp.send("Input.insertText", { text: "pasted@example.org" });
    await capture.flush();
    expect(capture.events().filter((event) => event.action_label === "Fill 'Confirm email'")).toHaveLength(1);
    await capture.flush();
    expect(capture.events().filter((event) => event.action_label === "Fill 'Confirm email'")).toHaveLength(1);
    await capture.close();
  });

  it("reports an editable region's edit once, when focus leaves it", async () => {
    const capture = await open();
    await capture.page.click("#notes");
    await capture.page.keyboard.type("Some notes");
    await capture.page.keyboard.press("Enter");
    await capture.page.keyboard.type("More");
    await capture.page.click("h1");
    await capture.flush();
    const labels = capture.events().map((event) => event.action_label);
    expect(labels.filter((label) => label === "Fill 'Notes'")).toHaveLength(1);
    expect(labels.indexOf("Fill 'Notes'")).toBeLessThan(labels.indexOf("Click 'Create your account'"));
    await capture.close();
  });
});
