import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../shared/observation/page-snapshot";
import { captureConfig, startContentHarness, type ContentHarness } from "../../../e2e/test-support/content-harness";

/**
 * What issue #14 adds to a snapshot, read by the capture in real Chromium: lists and their counts,
 * controls' states (known by row position inside a list, and since issue #35 by the row's text as
 * well, scrubbed of typed values like every page text), counters, and buttons shown only on hover.
 * A list item's text leaves the page only as a row's text: never as a counter, never a typed value.
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
           <button type="button" aria-expanded="false" aria-controls="more-menu">More</button><ul id="more-menu" hidden><li><a href="/settings">Settings</a></li></ul>
           <table><caption>Stock</caption><tr><td>Bolts</td></tr><tr><td>Nuts</td></tr></table>`,
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
    // A table is named by its caption.
    expect(snapshot.lists).toContainEqual({ name: "Stock", role: "table", items: 2, checked: 0 });
    expect(snapshot.toggles).toEqual(
      expect.arrayContaining([
        { role: "checkbox", state: "checked", row: 1, row_text: `${ROW_TEXT} Drop` },
        { role: "checkbox", state: "unchecked", row: 2, row_text: "Two" },
        { name: "Weekly digest", role: "checkbox", state: "unchecked" },
      ]),
    );
    expect(snapshot.texts).toContain("1 chores left");
    expect(snapshot.hover_revealed).toContain("Drop");
    // Issue #35: a closed menu's controls are there for whoever opens it (an account menu's "Log out"); the menu's own button is shown.
    expect(snapshot.hover_revealed).toEqual(expect.arrayContaining(["Edit profile", "Log out", "Settings"]));
    expect(snapshot.hover_revealed).not.toContain("Howdy, Jon");
    expect(snapshot.hover_revealed).not.toContain("More");
    expect(snapshot.texts?.join(" ")).not.toContain(ROW_TEXT);
    await capture.close();
  });

  it("says a row's text with any typed value in it cut out, and cuts a long one after the typed value is gone (issue #35)", async () => {
    const capture = await harness.open("/signup.html", { config: captureConfig([harness.origin]), world: "main" });
    await capture.flush();
    const typed = "Canary errand Vb52";
    await capture.page.type('input[name="full_name"]', typed);
    // The page echoes the typed value into a list row (as a to-do list does), and a long row straddles the cut at 80 characters.
    const long = `${"Fetch the dry cleaning ".repeat(3)}${typed} please`;
    await capture.page.evaluate(
      (value, longRow) =>
        document
          .querySelector("main")!
          .insertAdjacentHTML(
            "beforeend",
            `<h2>Errands</h2><ul><li><input type="checkbox"> ${value}</li><li><input type="checkbox" checked> ${longRow}</li></ul>`,
          ),
      typed,
      long,
    );
    await capture.page.click("h1");
    await capture.flush();
    const snapshot = capture.snapshots().at(-1)?.snapshot as PageSnapshot;
    const rows = (snapshot.toggles ?? []).filter((toggle) => toggle.row !== undefined);
    expect(rows).toContainEqual({ role: "checkbox", state: "unchecked", row: 1, row_text: "•••" });
    const longText = rows.find((toggle) => toggle.row === 2)?.row_text ?? "";
    expect(longText.length).toBeLessThanOrEqual(80);
    expect(longText).toMatch(/^Fetch the dry cleaning .*•••/);
    const sent = JSON.stringify(capture.snapshots()).toLowerCase();
    // No part of the value either (the scrubber also cuts the start of one a cut text ends in).
    for (const part of ["canary", "vb52"]) expect(sent).not.toContain(part);
    await capture.close();
  });
});
