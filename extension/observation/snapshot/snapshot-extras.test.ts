import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { captureConfig, startContentHarness, type ContentHarness } from "../../../e2e/support/content-harness";

/**
 * What issue #14 adds to a snapshot, read by the capture in real Chromium: lists and their counts,
 * controls' states (known by row position inside a list, never by the row's text), counters, and
 * buttons shown only on hover. No list item's text leaves the page.
 */

let harness: ContentHarness;
beforeAll(async () => {
  harness = await startContentHarness();
});
afterAll(async () => {
  await harness?.close();
});

const ROW_TEXT = "Row text Zq81";

describe("the snapshot's lists, states, counters and hover-revealed controls", () => {
  it("counts items and ticked items, knows a row's checkbox by its position, reads a counter, and flags a control shown on hover", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig([harness.origin]), world: "main" });
    await capture.flush();
    await capture.page.evaluate(
      (rowText) =>
        document.querySelector("main")!.insertAdjacentHTML(
          "beforeend",
          `<style>.r .x { visibility: hidden } .r:hover .x { visibility: visible }</style>
           <h2>Chores</h2><ul><li class="r"><input type="checkbox" checked> ${rowText} <button class="x">Drop</button></li><li class="r"><input type="checkbox"> Two</li></ul>
           <p><span><strong>1</strong> chores left</span></p><ul><li><span class="host"></span></li></ul>
           <label><input type="checkbox" name="digest"> Weekly digest</label>
           <details><summary>Howdy, Jon</summary><ul><li><a href="/profile">Edit profile</a></li><li><a href="/logout">Log out</a></li></ul></details>
           <button type="button" aria-expanded="false" aria-controls="more-menu">More</button><ul id="more-menu" hidden><li><a href="/settings">Settings</a></li></ul>`,
        ),
      ROW_TEXT,
    );
    // A row whose text (with a digit in it) sits in a shadow root: still not a counter to report.
    await capture.page.evaluate((rowText) => {
      document.querySelector(".host")!.attachShadow({ mode: "open" }).innerHTML = `<span>${rowText} 2</span>`;
    }, ROW_TEXT);
    await capture.page.click("h1");
    await capture.flush();
    const snapshot = capture.snapshots().at(-1)?.snapshot as PageSnapshot;
    expect(snapshot.lists).toContainEqual({ name: "Chores", role: "list", items: 2, checked: 1 });
    expect(snapshot.toggles).toEqual(expect.arrayContaining([{ role: "checkbox", state: "checked", row: 1 }, { role: "checkbox", state: "unchecked", row: 2 }, { name: "Weekly digest", role: "checkbox", state: "unchecked" }]));
    expect(snapshot.texts).toContain("1 chores left");
    expect(snapshot.hover_revealed).toContain("Drop");
    // Issue #35: a closed menu's controls are there for whoever opens it (an account menu's "Log out"); the menu's own button is shown.
    expect(snapshot.hover_revealed).toEqual(expect.arrayContaining(["Edit profile", "Log out", "Settings"]));
    expect(snapshot.hover_revealed).not.toContain("Howdy, Jon");
    expect(snapshot.hover_revealed).not.toContain("More");
    expect(JSON.stringify(capture.snapshots())).not.toContain(ROW_TEXT);
    await capture.close();
  });
});
