import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSuccessCondition, parseSuccessCondition, readBaseline } from "./checkpoint-check";
import { textMatcher } from "../pages/text-match";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe("reading success conditions back into checks", () => {
  it("recognizes every template interpret.ts writes", () => {
    expect(parseSuccessCondition('The page says "Order placed"')).toEqual({ kind: "page_says", text: "Order placed" });
    expect(parseSuccessCondition('A dialog "Confirm order" is open')).toEqual({ kind: "dialog_open", name: "Confirm order" });
    expect(parseSuccessCondition("A dialog is open")).toEqual({ kind: "dialog_open", name: undefined });
    expect(parseSuccessCondition('The "Confirm order" dialog is closed')).toEqual({ kind: "dialog_closed", name: "Confirm order" });
    expect(parseSuccessCondition('A page titled "Orders — Shop" is shown')).toEqual({ kind: "page_title", text: "Orders — Shop" });
    expect(parseSuccessCondition('The heading "Your orders" appears')).toEqual({ kind: "heading", text: "Your orders" });
    expect(parseSuccessCondition('A "Download receipt" button appears')).toEqual({ kind: "button", name: "Download receipt" });
  });

  it("keeps quotes inside the text, and reads a condition cut at 240 characters as a prefix", () => {
    expect(parseSuccessCondition('The page says "Saved "Q3 plan" to Drafts"')).toEqual({ kind: "page_says", text: 'Saved "Q3 plan" to Drafts' });
    const long = `The page says "${"x".repeat(300)}"`.slice(0, 240);
    expect(parseSuccessCondition(long)).toEqual({ kind: "page_says", text: `${"x".repeat(240 - 'The page says "'.length)}…` });
  });

  it("leaves a person's own words, and the placeholder for an unanswered question, to be confirmed by hand", () => {
    expect(parseSuccessCondition("The customer list shows the new customer")).toEqual({ kind: "by_hand", text: "The customer list shows the new customer" });
    expect(parseSuccessCondition("Not yet known: ask the user what shows this worked").kind).toBe("by_hand");
    expect(parseSuccessCondition('The page says ""').kind).toBe("by_hand");
  });

  it("matches a scrubbed typed value as anything, a shortened text as a prefix, and ignores case and spacing", () => {
    expect(textMatcher("Welcome, •••!", true)("Welcome, Test User!")).toBe(true);
    expect(textMatcher("Welcome, •••!", true)("Goodbye, Test User!")).toBe(false);
    expect(textMatcher("Results for the quarterly…", true)("Results for the quarterly report of 2026")).toBe(true);
    expect(textMatcher("Your Orders", true)("  your   orders ")).toBe(true);
    expect(textMatcher("Your orders", true)("Your orders and returns")).toBe(false);
    expect(textMatcher("Order placed", false)("Thanks! Order placed at 10:02")).toBe(true);
  });

  it("matches {{parameter}} as this run's value of that input, and as anything when the run has none (issue #35)", () => {
    const values = { page_name: "Garden (plans)" };
    expect(textMatcher("{{page_name}} [Notes]", true, values)("Garden  (plans) [Notes]")).toBe(true);
    expect(textMatcher("{{page_name}} [Notes]", true, values)("Kitchen [Notes]")).toBe(false);
    expect(textMatcher("Page {{page_name}} saved", false, values)("Done. Page garden (plans) saved.")).toBe(true);
    expect(textMatcher("{{page_name}} [Notes]", true)("Kitchen [Notes]")).toBe(true);
  });
});

describe("checking success conditions in a live page", () => {
  let browser: Browser;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    profile = await mkdtemp(path.join(tmpdir(), "elnor-checkpoint-check-"));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      userDataDir: profile,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await rm(profile, { recursive: true, force: true });
  });

  const check = (condition: string, timeoutMs = 300) => checkSuccessCondition(page, condition, { timeoutMs });

  it("finds what the page says in a status or alert region, then in the page text", async () => {
    await page.setContent(`<p role="alert">Payment failed</p><p role="status">  Order   placed </p><main>Saved to Drafts</main>`);
    expect(await check('The page says "Order placed"')).toEqual({ result: "passed", details: 'found status "Order placed"' });
    expect(await check('The page says "Payment failed"')).toEqual({ result: "passed", details: 'found status "Payment failed"' });
    expect(await check('The page says "Saved to Drafts"')).toEqual({
      result: "passed",
      details: 'found "Saved to Drafts" in the page text (not in a status or alert region)',
    });
    expect(await check('The page says "Order shipped"')).toEqual({
      result: "failed",
      details: 'expected the page to say "Order shipped"; status messages on the page: "Payment failed", "Order placed"; not in the page text either',
    });
  });

  it("reads status text inside an open shadow root", async () => {
    await page.setContent(`<toast-host></toast-host><script>
      const root = document.querySelector("toast-host").attachShadow({ mode: "open" });
      root.innerHTML = '<div role="status">Copied to clipboard</div>';
    </script>`);
    expect(await check('The page says "Copied to clipboard"')).toEqual({ result: "passed", details: 'found status "Copied to clipboard"' });
  });

  it("waits for a state that comes a moment after the step", async () => {
    await page.setContent(`<p role="status" id="s"></p><script>setTimeout(() => (document.getElementById("s").textContent = "Order placed"), 400)</script>`);
    expect((await check('The page says "Order placed"', 3_000)).result).toBe("passed");
  });

  it("checks the page title and visible headings", async () => {
    await page.setContent(`<title>Orders — Shop</title><h1>Your orders</h1><h2 hidden>Archived orders</h2>`);
    expect(await check('A page titled "Orders — Shop" is shown')).toEqual({ result: "passed", details: 'page title is "Orders — Shop"' });
    expect(await check('A page titled "Cart — Shop" is shown')).toEqual({
      result: "failed",
      details: 'expected the page title "Cart — Shop"; the title is "Orders — Shop"',
    });
    expect(await check('The heading "Your orders" appears')).toEqual({ result: "passed", details: 'found heading "Your orders"' });
    expect(await check('The heading "Archived orders" appears')).toEqual({
      result: "failed",
      details: 'expected a heading "Archived orders"; headings on the page: "Your orders"',
    });
  });

  it("checks open and closed dialogs by name", async () => {
    await page.setContent(`<dialog id="a" aria-label="Confirm order"><p>Sure?</p></dialog><div role="dialog" hidden aria-label="Help"></div>`);
    expect((await check('A dialog "Confirm order" is open')).result).toBe("failed");
    expect((await check("A dialog is open")).details).toBe("expected an open dialog; none is open");
    expect(await check('The "Confirm order" dialog is closed')).toEqual({
      result: "passed",
      details: 'dialog "Confirm order" is not open (open dialogs: none)',
    });
    await page.evaluate(() => (document.getElementById("a") as HTMLDialogElement).showModal());
    expect(await check('A dialog "Confirm order" is open')).toEqual({ result: "passed", details: 'found open dialog "Confirm order"' });
    expect(await check("A dialog is open")).toEqual({ result: "passed", details: 'found open dialog "Confirm order"' });
    expect(await check('The "Confirm order" dialog is closed')).toEqual({
      result: "failed",
      details: 'expected dialog "Confirm order" to be closed; it is still open',
    });
  });

  it("checks issue #14's checks: a row showing a test value, a control of that row, a count and a number that change, the address", async () => {
    await page.setContent(`<h2>Todos</h2><ul id="l"><li><input type="checkbox"> Buy milk</li></ul><span id="c"><strong>1</strong> item left</span>
      <todo-row></todo-row>
      <script>
        const row = document.querySelector("todo-row").attachShadow({ mode: "open" });
        row.innerHTML = '<ul aria-label="Shadow list"><li><input type="checkbox" checked> Pay rent</li></ul>';
        function add(text) { const li = document.createElement("li"); li.innerHTML = '<input type="checkbox"> ' + text; document.getElementById("l").append(li); document.querySelector("#c strong").textContent = String(document.getElementById("l").children.length); }
      </script>`);
    const values = { task_1: "Buy milk", task_2: "Walk dog", rent: "Pay rent" };
    const checkWith = (condition: string, baseline?: Awaited<ReturnType<typeof readBaseline>>) =>
      checkSuccessCondition(page, condition, { timeoutMs: 300, values, baseline });
    expect((await checkWith("An item showing {{task_1}} is in the list")).result).toBe("passed");
    expect((await checkWith('An item showing {{task_1}} is in the "Todos" list')).result).toBe("passed");
    expect((await checkWith("An item showing {{task_2}} is in the list")).result).toBe("failed");
    expect((await checkWith("The checkbox of the item showing {{task_1}} is unchecked")).result).toBe("passed");
    expect((await checkWith("The checkbox of the item showing {{task_1}} is checked")).details).toMatch(/it is unchecked/);
    expect((await checkWith("The checkbox of the item showing {{rent}} is checked")).result).toBe("passed");
    const countBaseline = await readBaseline(page, 'The "Todos" list has 1 item more');
    const numberBaseline = await readBaseline(page, 'The number in "# item left" goes up by 1');
    expect(countBaseline).toBeDefined();
    await page.evaluate(`add("Walk dog")`);
    expect((await checkWith('The "Todos" list has 1 item more', countBaseline)).result).toBe("passed");
    expect((await checkWith('The "Todos" list has 2 items more', countBaseline)).result).toBe("failed");
    expect((await checkWith('The number in "# item left" goes up by 1', numberBaseline)).result).toBe("passed");
    expect((await checkWith('The number in "# item left" goes down by 1', numberBaseline)).result).toBe("failed");
    expect((await checkWith('The "Todos" list has 1 item more')).details).toMatch(/not read before/);
    expect((await checkWith('The address ends with "about:blank"')).result).toBe("failed");
  });

  it("checks a button by its accessible name, inside shadow DOM too", async () => {
    await page.setContent(`<receipt-bar></receipt-bar><button aria-label="Close panel">×</button><script>
      document.querySelector("receipt-bar").attachShadow({ mode: "open" }).innerHTML = "<button>Download receipt</button>";
    </script>`);
    expect(await check('A "Download receipt" button appears')).toEqual({ result: "passed", details: 'found button "Download receipt"' });
    expect(await check('A "Close panel" button appears')).toEqual({ result: "passed", details: 'found button "Close panel"' });
    expect(await check('A "Print" button appears')).toEqual({
      result: "failed",
      details: 'expected a button "Print"; buttons on the page: "Download receipt", "Close panel"',
    });
  });

  it("skips a free-text condition without looking at the page", async () => {
    expect(await check("The customer list shows the new customer")).toEqual({
      result: "skipped",
      details: 'not machine-checkable; confirm by hand: "The customer list shows the new customer"',
    });
  });
});
