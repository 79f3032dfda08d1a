import { describe, expect, it } from "vitest";
import { showBadge, type BadgeSurface } from "../capture/capture-badge";
import { askBadge, createLayeredBadge } from "./ask-badge";

/** A stand-in for `chrome.action` that records every state Chrome would show (text with its tooltip). */
function recordingAction() {
  const shown = { text: "", title: "" };
  const states: string[] = [];
  const action: BadgeSurface = {
    async setBadgeBackgroundColor() {},
    async setBadgeTextColor() {},
    async setBadgeText({ text }) {
      shown.text = text;
      states.push(`${shown.text}|${shown.title}`);
    },
    async setTitle({ title }) {
      shown.title = title;
      states.push(`${shown.text}|${shown.title}`);
    },
  };
  return { action, states, shown };
}

describe("the layered toolbar badge (issue #33)", () => {
  it("never shows a new badge text under the previous state's tooltip", async () => {
    const chrome = recordingAction();
    const badge = createLayeredBadge(chrome.action);
    await showBadge(badge.surface, { text: "REC", color: "#d93025", title: "Ability Learning: recording on shop.test" });
    chrome.states.length = 0;
    await showBadge(badge.surface, { text: "", color: "#d93025", title: "Ability Learning" });
    // Once the text is the new one (empty), the tooltip is the new one too.
    expect(chrome.states.filter((state) => state.startsWith("|") && state !== "|Ability Learning")).toEqual([]);
    expect(chrome.shown).toEqual({ text: "", title: "Ability Learning" });
  });

  it("puts ASK over an empty badge and into the tooltip of REC", async () => {
    const chrome = recordingAction();
    const badge = createLayeredBadge(chrome.action);
    await badge.ask(askBadge(["Send a message"]));
    expect(chrome.shown.text).toBe("ASK");
    await showBadge(badge.surface, { text: "REC", color: "#d93025", title: "Ability Learning: recording on shop.test" });
    expect(chrome.shown.text).toBe("REC");
    expect(chrome.shown.title).toContain("Send a message waits");
  });
});
