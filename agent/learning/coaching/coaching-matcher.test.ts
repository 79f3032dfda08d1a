import { describe, expect, it } from "vitest";
import { PROPOSE_MIN_SCORE, proposeControl, scoreControls, type PageControl } from "./coaching-matcher";

const page = (...controls: Array<[string, string]>): PageControl[] => controls.map(([role, name], order) => ({ role, name, order }));

const invoicesApp = page(
  ["link", "Home"],
  ["link", "Invoices"],
  ["link", "Customers"],
  ["button", "Invoice settings"],
  ["heading", "Invoices"],
  ["button", "Last month"],
  ["button", "This year"],
  ["textbox", "Search invoices"],
);

describe("coaching matcher", () => {
  it("finds the link for 'open the invoices page' and says why", () => {
    const { best } = proposeControl({ words: "open the invoices page" }, invoicesApp);
    expect(best?.target).toMatchObject({ role: "link", name: "Invoices" });
    expect(best?.target.why).toContain("'invoices' is in its name");
    expect(best?.target.why).toContain("asks for a link");
    expect(best!.target.score).toBeGreaterThanOrEqual(PROPOSE_MIN_SCORE);
  });

  it("prefers the control whose name says only what the words say", () => {
    const scored = scoreControls({ words: "open the invoices page" }, invoicesApp);
    expect(scored.map((entry) => entry.target.name)).toEqual(["Invoices", "Invoice settings"]);
  });

  it("finds a button by words that name its text, with the hint counting half", () => {
    expect(proposeControl({ words: "filter by last month" }, invoicesApp).best?.target.name).toBe("Last month");
    const withHint = proposeControl({ words: "pick the period", hint: "this year" }, invoicesApp);
    expect(withHint.best?.target.name).toBe("This year");
  });

  it("never proposes headings or fields, which are not clicked to do a step", () => {
    const scored = scoreControls({ words: "search invoices" }, invoicesApp);
    expect(scored.every((entry) => entry.target.role !== "heading" && entry.target.role !== "textbox")).toBe(true);
  });

  it("proposes nothing when no control fits the words (the person is asked to show it)", () => {
    const { best, alternatives } = proposeControl({ words: "export as CSV" }, invoicesApp);
    expect(best).toBeUndefined();
    expect(alternatives).toEqual([]);
  });

  it("proposes nothing when only a weak, partial match exists", () => {
    const { best } = proposeControl({ words: "download the yearly tax report" }, page(["button", "Report a problem with this page"]));
    expect(best).toBeUndefined();
  });

  it("is deterministic: the same page and words give the same answer, ties in page order", () => {
    const twice = page(["link", "Invoices"], ["button", "Invoices"]);
    expect(proposeControl({ words: "invoices" }, twice).best?.target.role).toBe("link");
    expect(scoreControls({ words: "open the invoices page" }, invoicesApp)).toEqual(scoreControls({ words: "open the invoices page" }, invoicesApp));
  });
});
