import { describe, expect, it } from "vitest";
import type { PageSnapshot } from "../../../../shared/observation/page-snapshot";
import { MAX_TRIGGERS, triggerPhrasings } from "./trigger-phrasing";

function snapshot(title: string, headings: string[]): PageSnapshot {
  return {
    url: "https://shop.example.com/x",
    title,
    headings: headings.map((text) => ({ level: 2, text })),
    landmarks: [],
    dialogs: [],
    forms: [],
    buttons: [],
    links: [],
    status_messages: [],
    schema_version: 1,
  };
}

describe("triggerPhrasings (issue #15)", () => {
  const pages = [
    { url: "https://shop.example.com/cart", title: "Cart – Example Shop" },
    { url: "https://shop.example.com/checkout", title: "Checkout" },
  ];

  it("adds each part of the goal, the goal on the site's name, and the headings the demonstration passed through", () => {
    const phrases = triggerPhrasings({
      title: "Check out the cart and place the order",
      useConditions: ["When the user asks to buy what is in the cart"],
      site: "shop.example.com",
      pages,
      snapshots: new Map([["a", snapshot("Cart", ["Shopping cart", "Order confirmation"])]]),
    });
    expect(phrases.slice(0, 3)).toEqual([
      "check out the cart and place the order",
      "help me check out the cart and place the order",
      "can you check out the cart and place the order",
    ]);
    expect(phrases).toEqual(
      expect.arrayContaining([
        "buy what is in the cart",
        "check out the cart",
        "place the order",
        "check out the cart and place the order on example shop",
        "check out the cart and place the order in shopping cart",
        "check out the cart and place the order in order confirmation",
      ]),
    );
    // A heading alone names a page, not the task: it never becomes a trigger on its own (two skills on one site would share it).
    for (const heading of ["shopping cart", "order confirmation", "checkout"]) expect(phrases).not.toContain(heading);
    expect(phrases.length).toBeLessThanOrEqual(MAX_TRIGGERS);
    expect(new Set(phrases).size).toBe(phrases.length);
  });

  it("leaves out headings that look like data, greetings with a name, long sentences and page furniture", () => {
    const phrases = triggerPhrasings({
      title: "Track my order",
      useConditions: [],
      site: "127.0.0.1:8123",
      pages: [{ url: "http://127.0.0.1:8123/orders", title: "Orders" }],
      snapshots: new Map([
        [
          "a",
          snapshot("Orders", [
            "Order #12345",
            "Welcome back, Jane",
            "jane@example.com",
            "Search",
            "This heading is far too long to be a way of asking",
            "Shipment progress",
          ]),
        ],
      ]),
    });
    expect(phrases).toContain("track my order in shipment progress");
    expect(phrases).toContain("track my order in orders");
    for (const left of ["order #12345", "welcome back, jane", "jane@example.com", "search"]) expect(phrases.join("|")).not.toContain(left);
    expect(phrases.some((phrase) => phrase.includes(" on 127"))).toBe(false);
  });
});
