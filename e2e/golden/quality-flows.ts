import { fileURLToPath } from "node:url";
import type { FixtureSiteRoutes } from "./fixture-server";
import type { FlowActor } from "./flows";
import { WORK_PERFORM, WORK_SETUPS, type WorkSetup } from "./work-flows";

export const QUALITY_SITES_DIR = fileURLToPath(new URL("./quality-sites/", import.meta.url));

/** What the quality demonstrations type: checked never to reach what the agent stores. */
export const QUALITY_CANARIES = {
  tasks: ["Canary water plants K4TZ", "Canary call plumber K4TZ"],
  pantry: ["Canary quinoa R8WD"],
  chores: ["Canary sweep porch J2MV", "Canary fold laundry J2MV"],
  apply: ["Canary Lin Okafor P5QS", "canary.p5qs@example.test"],
  errands: ["Canary post the parcel W7HN"],
} as const;

/** One fixture app of `npm run learn-quality` and the demonstration done on it (issue #14). */
export interface QualityFlow {
  name: string;
  /** The pattern of real sites it stands for. */
  pattern: string;
  routes: Omit<FixtureSiteRoutes, "sitesDir" | "transform">;
  startPath: string;
  goal: string;
  textEntry: "mask_text" | "hash_only";
  /** What the user says to "How can you tell it worked?", if the proposal asks. */
  answer?: string;
  perform(actor: FlowActor): Promise<void>;
  /**
   * Issue #35: a server-rendered app of our own (work-apps/) instead of a static site: the harness
   * also validates through the agent, installs, runs later with new inputs and checks the app's state.
   */
  work?: WorkSetup;
}

const [task1, task2] = QUALITY_CANARIES.tasks;
const [chore1, chore2] = QUALITY_CANARIES.chores;
const [applicant, applicantEmail] = QUALITY_CANARIES.apply;

export const QUALITY_FLOWS: readonly QualityFlow[] = [
  {
    name: "tasks",
    pattern: "single-page list: add, toggle, filter over hash routes",
    routes: { folder: "tasks" },
    startPath: "/index.html",
    goal: "Add two tasks, tick the first and show the open ones",
    textEntry: "hash_only",
    async perform(actor) {
      await actor.type(".c-new", task1);
      await actor.press("Enter");
      await actor.type(".c-new", task2);
      await actor.press("Enter");
      await actor.click(".c-item:nth-child(1) .c-toggle");
      await actor.click('a[href="#/open"]');
    },
  },
  {
    name: "counter",
    pattern: "a counter",
    routes: { folder: "counter" },
    startPath: "/index.html",
    goal: "Record visitors at the door",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.click(".c-plus");
      await actor.click(".c-plus");
      await actor.click(".c-minus");
    },
  },
  {
    name: "pantry",
    pattern: "controls revealed on hover",
    routes: { folder: "pantry" },
    startPath: "/index.html",
    goal: "Stock a new item and take lentils off the pantry list",
    textEntry: "hash_only",
    async perform(actor) {
      await actor.type(".c-add", QUALITY_CANARIES.pantry[0]);
      await actor.press("Enter");
      await actor.click(".c-row:nth-child(2) .c-remove");
    },
  },
  {
    name: "chores",
    pattern: "web components with open shadow roots",
    routes: { folder: "shadow-tasks" },
    startPath: "/index.html",
    goal: "Add two chores and tick the first",
    textEntry: "hash_only",
    async perform(actor) {
      await actor.type("chore-app >>> .c-entry", chore1);
      await actor.press("Enter");
      await actor.type("chore-app >>> .c-entry", chore2);
      await actor.press("Enter");
      await actor.click("chore-app >>> chore-item >>> .c-check");
    },
  },
  {
    name: "errands",
    pattern: "a list drawn again after each change (rows replaced, finished ones sorted last, saved after a wait) in a shadow root",
    routes: { folder: "errands" },
    startPath: "/index.html",
    goal: "Add an errand and mark the library books done",
    textEntry: "hash_only",
    async perform(actor) {
      await actor.type("errand-board >>> .c-what", QUALITY_CANARIES.errands[0]);
      await actor.press("Enter");
      await actor.click("errand-board >>> li:nth-child(1) .c-toggle");
    },
  },
  {
    name: "files",
    pattern: "a modal confirm flow",
    routes: { folder: "files" },
    startPath: "/index.html",
    goal: "Delete the March meeting minutes",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.click('button[aria-label="Delete minutes-march.docx"]');
      await actor.click(".c-yes");
    },
  },
  {
    name: "settings",
    pattern: "a toast that disappears after 2 s",
    routes: { folder: "settings" },
    startPath: "/index.html",
    goal: "Turn on the weekly digest email",
    textEntry: "mask_text",
    answer: 'A message "Settings saved" pops up in the corner',
    async perform(actor) {
      await actor.click(".c-digest");
      await actor.click(".c-save");
    },
  },
  {
    name: "orders",
    pattern: "a spinner before data arrives",
    routes: { folder: "orders" },
    startPath: "/index.html",
    goal: "Look up the recent orders",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.click(".c-load");
    },
  },
  {
    name: "apply",
    pattern: "a multi-page form",
    routes: { folder: "apply", posts: { "/details": "/step2.html", "/plan": "/step3.html", "/send": "/done.html" } },
    startPath: "/step1.html",
    goal: "Apply for the team plan",
    textEntry: "hash_only",
    async perform(actor) {
      await actor.type('[name="full_name"]', applicant);
      await actor.type('[name="email"]', applicantEmail);
      await actor.clickAndLoad(".c-next");
      await actor.click('input[value="team"]');
      await actor.clickAndLoad(".c-next");
      await actor.clickAndLoad(".c-send");
    },
  },
  {
    name: "prices",
    pattern: "a sortable table",
    routes: { folder: "prices" },
    startPath: "/index.html",
    goal: "Sort the price list from the most expensive",
    textEntry: "mask_text",
    async perform(actor) {
      await actor.click("th:nth-child(2) .c-sort");
      await actor.click("th:nth-child(2) .c-sort");
    },
  },
];

/** Issue #35's work apps: sign in, then create something with a title and text, on multi-page server-rendered apps. */
export const WORK_FLOWS: readonly QualityFlow[] = [
  {
    name: "wiki",
    pattern: 'wiki: sign-in with CSRF, ?page=…&do=… addresses, search "[F]", "Create this page", textarea, 303 to ?page=<title>',
    routes: { folder: "" },
    startPath: "/index.php?page=start",
    goal: "Create a wiki page with a title and text",
    textEntry: "mask_text",
    work: WORK_SETUPS.wiki,
    perform: WORK_PERFORM.wiki,
  },
  {
    name: "blog",
    pattern: "blog: sign-in, dashboard widgets and avatar from a second origin, rich text editor, 303 to ?id=<new id>",
    routes: { folder: "" },
    startPath: "/login",
    goal: "Write a new blog draft with a title and text and save it",
    textEntry: "mask_text",
    work: WORK_SETUPS.blog,
    perform: WORK_PERFORM.blog,
  },
  {
    name: "console",
    pattern: 'admin console: sign-in, ?route=… addresses, "Insert Insert" tab, unlabelled grid cells under column headers, changing row id',
    routes: { folder: "" },
    startPath: "/index.php",
    goal: "Add a contact row with a name and email in the contacts table",
    textEntry: "mask_text",
    work: WORK_SETUPS.console,
    perform: WORK_PERFORM.console,
  },
];

export function qualityNeedles(): string[] {
  return Object.values(QUALITY_CANARIES).flatMap((values) => [...values]);
}
