/**
 * The work apps of `npm run learn-quality` (issue #35): what each demonstration does (sign in,
 * create a page/draft/row with a title and text, save), the values a person gives at validation and
 * at a later run, and how the harness checks the app's own state afterwards.
 */
import type { SkillParameter } from "../../shared/execution/checkpoint-plan";
import type { Account, WorkApp } from "./work-apps/app-kit";
import { startBlog, type BlogState } from "./work-apps/blog";
import { startConsole, type ConsoleState } from "./work-apps/console";
import { startWiki, type WikiState } from "./work-apps/wiki";
import type { FlowActor } from "./flows";

/** What a demonstration, a validation or a run types; `round` is where. */
export type Round = "demonstration" | "validation" | "run" | `rehearsal ${string}`;

/** One field a person types, in the order they type them; `match` recognises the parameter a compiler made of it. */
export interface Role {
  role: string;
  match: RegExp;
  secret?: boolean;
}

export interface WorkSetup {
  start(): Promise<WorkApp>;
  account: Account;
  roles: readonly Role[];
  /** The values of each role (credentials are always the account's: the app knows no other). */
  values(round: Round): Record<string, string>;
  /** Why the app's state does not hold what `values` created, or undefined when it does. */
  verify(state: unknown, values: Record<string, string>): string | undefined;
}

const tag = (round: Round) => round.replace(/[^a-z0-9]+/gi, " ").trim();
/** Fresh for each harness run, so values of one run are never found in another's state. */
const RUN = Math.random().toString(36).slice(2, 6).toUpperCase();

/**
 * Credentials and content typed during the demonstration: distinctive, so a search of what the
 * agent stored finds them if they leaked. The password is a typed value like any other.
 */
export const WORK_CANARIES = {
  wiki: { username: "canary.mara.w3qx", password: "Canary-Pw-W3QX-91!", title: "Canary Harbor Notes W3QX", text: "Canary tide table goes here W3QX" },
  blog: { username: "canary.jon.b7kd", password: "Canary-Pw-B7KD-42!", title: "Canary Soup Of The Week B7KD", text: "Canary lentil and lemon on Fridays B7KD" },
  console: { username: "canary.ops.c5ny", password: "Canary-Pw-C5NY-17!", name: "Canary Lin Okafor C5NY", email: "canary.lin.c5ny@example.test" },
} as const;

const CREDENTIALS: readonly Role[] = [
  { role: "username", match: /user|login|account|log\b|\bu\b/i },
  { role: "password", match: /pass|pwd|\bp\b/i, secret: true },
];

export const WORK_SETUPS = {
  wiki: {
    start: () => startWiki([{ username: WORK_CANARIES.wiki.username, password: WORK_CANARIES.wiki.password, display: "Mara Quinn" }]),
    account: { username: WORK_CANARIES.wiki.username, password: WORK_CANARIES.wiki.password, display: "Mara Quinn" },
    roles: [...CREDENTIALS, { role: "title", match: /title|page|name|search|\bq\b|\bf\b/i }, { role: "text", match: /text|content|body|wiki/i }],
    values: (round: Round) =>
      round === "demonstration"
        ? { ...WORK_CANARIES.wiki }
        : {
            username: WORK_CANARIES.wiki.username,
            password: WORK_CANARIES.wiki.password,
            title: `Page ${tag(round)} ${RUN}`,
            text: `Text written at ${tag(round)} ${RUN}`,
          },
    verify(state: unknown, values: Record<string, string>) {
      const pages = (state as WikiState).pages;
      const page = pages.find((candidate) => candidate.title === values.title);
      if (page === undefined) return `no page titled "${values.title}" (pages: ${pages.map((candidate) => candidate.title).join(", ")})`;
      return page.text === values.text ? undefined : `the page "${values.title}" holds other text (${page.text.length} characters)`;
    },
  },
  blog: {
    start: () => startBlog([{ username: WORK_CANARIES.blog.username, password: WORK_CANARIES.blog.password, display: "Jon" }]),
    account: { username: WORK_CANARIES.blog.username, password: WORK_CANARIES.blog.password, display: "Jon" },
    roles: [...CREDENTIALS, { role: "title", match: /title|name|subject/i }, { role: "text", match: /text|content|body|draft/i }],
    values: (round: Round) =>
      round === "demonstration"
        ? { ...WORK_CANARIES.blog }
        : {
            username: WORK_CANARIES.blog.username,
            password: WORK_CANARIES.blog.password,
            title: `Draft ${tag(round)} ${RUN}`,
            text: `Body written at ${tag(round)} ${RUN}`,
          },
    verify(state: unknown, values: Record<string, string>) {
      const drafts = (state as BlogState).drafts;
      const draft = drafts.find((candidate) => candidate.title === values.title);
      if (draft === undefined) return `no draft titled "${values.title}" (drafts: ${drafts.map((candidate) => candidate.title).join(", ")})`;
      return draft.text === values.text ? undefined : `the draft "${values.title}" holds other text (${draft.text.length} characters)`;
    },
  },
  console: {
    start: () => startConsole([{ username: WORK_CANARIES.console.username, password: WORK_CANARIES.console.password, display: "Ops" }]),
    account: { username: WORK_CANARIES.console.username, password: WORK_CANARIES.console.password, display: "Ops" },
    roles: [...CREDENTIALS, { role: "name", match: /name/i }, { role: "email", match: /mail/i }],
    values: (round: Round) =>
      round === "demonstration"
        ? { ...WORK_CANARIES.console }
        : {
            username: WORK_CANARIES.console.username,
            password: WORK_CANARIES.console.password,
            name: `Contact ${tag(round)} ${RUN}`,
            email: `${tag(round).replace(/ /g, ".").toLowerCase()}.${RUN.toLowerCase()}@example.test`,
          },
    verify(state: unknown, values: Record<string, string>) {
      const rows = (state as ConsoleState).tables.contacts ?? [];
      const row = rows.find((candidate) => candidate.name === values.name);
      if (row === undefined) return `no contacts row named "${values.name}" (rows: ${rows.map((candidate) => candidate.name).join(", ")})`;
      return row.email === values.email ? undefined : `the row "${values.name}" holds another email`;
    },
  },
} satisfies Record<string, WorkSetup>;

/**
 * The values a person gives for the parameters a proposal asks for, as they would read them: a
 * secret is the password; otherwise the first field whose role the parameter's name or label
 * names; otherwise the next field in the order they typed them.
 */
export function valuesFor(
  setup: WorkSetup,
  parameters: ReadonlyArray<Pick<SkillParameter, "name" | "label" | "type_hint">>,
  round: Round,
): Record<string, string> {
  const values = setup.values(round);
  const left = [...setup.roles];
  const take = (role: Role | undefined) => {
    if (role !== undefined) left.splice(left.indexOf(role), 1);
    return role;
  };
  const out: Record<string, string> = {};
  for (const parameter of parameters) {
    const words = `${parameter.name} ${parameter.label}`;
    const role =
      parameter.type_hint === "secret"
        ? take(left.find((candidate) => candidate.secret === true))
        : (take(left.find((candidate) => candidate.secret !== true && candidate.match.test(words))) ??
          take(left.find((candidate) => candidate.secret !== true)));
    out[parameter.name] = role === undefined ? `${parameter.label} ${tag(round)}` : (values[role.role] ?? "");
  }
  return out;
}

/** Every value a demonstration types, for the privacy checks. */
export function workNeedles(): string[] {
  return Object.values(WORK_CANARIES).flatMap((values) => Object.values(values));
}

/** The demonstrations themselves: open the app, sign in, create, save. */
export const WORK_PERFORM: Record<keyof typeof WORK_SETUPS, (actor: FlowActor) => Promise<void>> = {
  async wiki(actor) {
    const typed = WORK_CANARIES.wiki;
    await actor.clickAndLoad(".c-login");
    await actor.type('[name="u"]', typed.username);
    // Password typed, "Log in" clicked at once: the page navigates away right after the last key.
    await actor.typeThenLoad('[name="p"]', typed.password, { click: ".c-submit" });
    await actor.type('[name="q"]', typed.title);
    await actor.pressAndLoad("Enter");
    await actor.clickAndLoad(".c-create");
    await actor.type('[name="wikitext"]', typed.text);
    await actor.clickAndLoad(".c-save");
  },
  async blog(actor) {
    const typed = WORK_CANARIES.blog;
    await actor.type('[name="log"]', typed.username);
    await actor.type('[name="pwd"]', typed.password);
    await actor.clickAndLoad(".c-submit");
    await actor.clickAndLoad(".c-new");
    await actor.type('[name="post_title"]', typed.title);
    await actor.type("[contenteditable]", typed.text);
    await actor.clickAndLoad(".c-save");
  },
  async console(actor) {
    const typed = WORK_CANARIES.console;
    await actor.type('[name="pma_username"]', typed.username);
    // Password typed, Enter at once: the page unloads while the field's last value is still in flight.
    await actor.typeThenLoad('[name="pma_password"]', typed.password, { press: "Enter" });
    await actor.clickAndLoad('.c-table-link[href*="table=contacts"]');
    await actor.clickAndLoad(".c-insert");
    await actor.type('[name="fields[name]"]', typed.name);
    // The last cell typed, then "Go" at once; Go submits from a script (no submit event).
    await actor.typeThenLoad('[name="fields[email]"]', typed.email, { click: ".c-go" });
  },
};
