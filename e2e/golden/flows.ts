import type { KeyInput } from "puppeteer-core";
import { GOLDEN_CANARIES } from "./canaries";
import type { FixtureSiteRoutes } from "./fixture-server";

/** What a flow does on the page, with real input (CDP mouse and keyboard, so the events are trusted). */
export interface FlowActor {
  /** Clicks into a field and types into it, as a person does. */
  type(selector: string, text: string): Promise<void>;
  click(selector: string): Promise<void>;
  press(key: KeyInput): Promise<void>;
  /** A click that loads another page; resolves once the capture runs there. */
  clickAndLoad(selector: string): Promise<void>;
  pressAndLoad(key: KeyInput): Promise<void>;
  /**
   * Types into a field and at once (no pause) clicks or presses what submits it, as someone who
   * knows their password does: the page unloads while the field's last value is in flight (issue #35).
   */
  typeThenLoad(selector: string, text: string, submit: { click: string } | { press: KeyInput }): Promise<void>;
}

export type GoldenFlowName = "signup" | "search" | "checkout" | "dialog";

export interface GoldenFlow {
  name: GoldenFlowName;
  routes: FixtureSiteRoutes;
  /** Fixed, so snapshots (which carry the masked page URL) keep their hashes from one recording to the next. */
  port: number;
  startPath: string;
  /** Marked through `POST …/mark-goal` before the first action; flows without one exercise the goal question. */
  goal?: string;
  /** `hash_only` lets a value typed twice be recognized as one parameter. */
  textEntry: "mask_text" | "hash_only";
  perform(actor: FlowActor): Promise<void>;
}

const field = (name: string) => `[name="${name}"]`;

/** The four golden demonstrations of issue #5 (Tests, first bullet). */
export const GOLDEN_FLOWS: readonly GoldenFlow[] = [
  {
    name: "signup",
    routes: { folder: "signup", posts: { "/signup": "/welcome.html" } },
    port: 47311,
    startPath: "/signup.html",
    goal: "Create a customer account on Fixture Shop",
    textEntry: "hash_only",
    async perform(actor) {
      const typed = GOLDEN_CANARIES.signup;
      await actor.type(field("full_name"), typed.full_name);
      await actor.type(field("email"), typed.email);
      await actor.type(field("password"), typed.password);
      await actor.type(field("email_confirm"), typed.email);
      await actor.click(field("terms"));
      await actor.clickAndLoad('button[type="submit"]');
    },
  },
  {
    name: "search",
    routes: { folder: "search", pages: { "/search": "/results.html" } },
    port: 47312,
    startPath: "/index.html",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.type(field("q"), GOLDEN_CANARIES.search.query);
      await actor.pressAndLoad("Enter");
      await actor.clickAndLoad('a[href="/articles/return-an-item.html"]');
    },
  },
  {
    name: "checkout",
    routes: { folder: "checkout", posts: { "/checkout/shipping": "/checkout/payment.html", "/checkout/payment": "/checkout/confirmation.html" } },
    port: 47313,
    startPath: "/cart.html",
    goal: "Check out the cart and place the order",
    textEntry: "mask_text",
    async perform(actor) {
      const typed = GOLDEN_CANARIES.checkout;
      await actor.clickAndLoad('a[href="/checkout/shipping.html"]');
      await actor.type(field("full_name"), typed.full_name);
      await actor.type(field("street"), typed.street);
      await actor.type(field("city"), typed.city);
      // Keyboard choice, as a person tabbing through the form: Tab to the select, Down to "Express".
      await actor.press("Tab");
      await actor.press("ArrowDown");
      await actor.clickAndLoad('button[type="submit"]');
      await actor.type(field("card"), typed.card_number);
      await actor.clickAndLoad('button[type="submit"]');
    },
  },
  {
    name: "dialog",
    routes: { folder: "dialog" },
    port: 47314,
    startPath: "/project.html",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.click("#delete");
      await actor.click("#confirm-delete");
    },
  },
];
