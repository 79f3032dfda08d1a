import type { Page } from "puppeteer-core";
import { assertNever } from "../../shared/common/assert-never";
import { ROWS } from "./content-page";
import { MARK_PREFIX } from "./content-trace";

// The content-script bench's 240 interactions, driven as real input through CDP.

/** One thing a person does; each is driven through CDP Input, so the page sees trusted events. */
export type Step =
  | { kind: "click"; selector: string }
  /** Click into the field, then type (the edit is reported when focus leaves it, in the next step). */
  | { kind: "type"; selector: string; text: string }
  /** Click the select's label (focuses it without opening the popup), then ArrowDown/ArrowUp. */
  | { kind: "choose"; labelSelector: string; key: "ArrowDown" | "ArrowUp" };

const WORDS = [
  "Ada",
  "Lovelace",
  "ada@example.org",
  "+44 20 7946 0018",
  "Analytical Engines Ltd",
  "12 Marylebone Road",
  "Flat 3",
  "London",
  "NW1 5LR",
  "WELCOME10",
  "Leave at the door",
  "s3cret-Passw0rd",
];
const TEXT_FIELDS = [
  "first-name",
  "last-name",
  "email",
  "phone",
  "company",
  "address-1",
  "address-2",
  "city",
  "postcode",
  "coupon",
  "notes",
  "account-password",
];
const SELECTS = ["country", "region", "delivery"];
const TOGGLES = ["#newsletter", "#gift-wrap", "#invoice", "#contact-email", "#contact-phone", "#contact-post"];
const BUTTONS = ["#apply-coupon", "#save", "#checkout", "#clear-cart"];

/** 240 steps in a fixed order: 90 row clicks, 60 field edits, 30 select changes, 30 toggles, 30 buttons. */
export function scriptedSteps(): Step[] {
  const steps: Step[] = [];
  for (let index = 0; index < 240; index += 1) {
    const round = Math.floor(index / 8);
    switch (index % 8) {
      case 0:
      case 2:
      case 4: {
        const row = (index * 211 + 17) % ROWS;
        steps.push({ kind: "click", selector: `#row-${row} button` });
        break;
      }
      case 1:
      case 5: {
        const which = (round * 2 + (index % 8 === 5 ? 1 : 0)) % TEXT_FIELDS.length;
        // Each visit types something new, so every edit is a real change.
        steps.push({ kind: "type", selector: `#${TEXT_FIELDS[which]!}`, text: `${WORDS[which]!} ${round}` });
        break;
      }
      case 3:
        steps.push({ kind: "choose", labelSelector: `label[for="${SELECTS[round % SELECTS.length]!}"]`, key: round % 4 === 3 ? "ArrowUp" : "ArrowDown" });
        break;
      case 6:
        steps.push({ kind: "click", selector: TOGGLES[round % TOGGLES.length]! });
        break;
      case 7:
        steps.push({ kind: "click", selector: BUTTONS[round % BUTTONS.length]! });
        break;
      default:
        throw new Error("unreachable: index % 8");
    }
  }
  return steps;
}

/**
 * Marks the step's start in the trace, brings its target into view (as a person scrolls to it) and
 * returns the point to press, in one evaluation: puppeteer's `page.click` takes several round trips
 * and waits a frame per click, which would triple the bench's running time for nothing measured.
 */
function markAndLocate(page: Page, index: number, selector: string): Promise<{ x: number; y: number }> {
  return page.evaluate(
    (mark, target) => {
      performance.mark(mark);
      const element = document.querySelector(target);
      if (element === null) throw new Error(`no element matches ${target}`);
      element.scrollIntoView({ block: "nearest" });
      const box = element.getBoundingClientRect();
      return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
    },
    `${MARK_PREFIX}${index}`,
    selector,
  );
}

/**
 * Real input through CDP: mouse presses and key strokes, the page sees trusted events. Each step
 * ends with the cursor drifting a few pixels, as a person's hand does after a click or a key.
 * Without it Chromium grants the page no idle period after CDP input until the next input comes
 * (measured: an idle callback asked for 0–300 ms after a CDP click ran only at its timeout, 1 s
 * later; after one mouse move it ran within 0–14 ms), which no person's session looks like.
 */
export async function perform(page: Page, index: number, step: Step): Promise<void> {
  const { x, y } = await markAndLocate(page, index, step.kind === "choose" ? step.labelSelector : step.selector);
  await press(page, step, x, y);
  await page.mouse.move(x + 3, y + 2);
}

async function press(page: Page, step: Step, x: number, y: number): Promise<void> {
  switch (step.kind) {
    case "click":
      await page.mouse.click(x, y);
      return;
    case "type":
      await page.mouse.click(x, y, { count: 3 }); // a triple click selects what is there: typing replaces it
      await page.keyboard.type(step.text);
      return;
    case "choose":
      await page.mouse.click(x, y);
      await page.keyboard.press(step.key);
      return;
    default:
      assertNever(step);
  }
}
