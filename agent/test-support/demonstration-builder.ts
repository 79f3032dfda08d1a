import type { PageSnapshot } from "../../shared/observation/page-snapshot";
import { interpretTrace } from "../learning/compiler/interpret";
import type { NormalizedStep, NormalizedTrace } from "../learning/compiler/normalize-trace";

/**
 * Demonstrations for the compiler's tests (issue #35 "Goal evidence first"), shaped as the capture
 * records a multi-page app (server-rendered pages, a sign-in, forms that post and redirect): a page
 * snapshot, a step-by-step builder that compiles to a skill, and the wiki demonstration several tests share.
 */

export type Lists = NonNullable<PageSnapshot["lists"]>;

/** A settled snapshot of a page with the parts given (a site navigation landmark and two links always). */
export function page(
  url: string,
  title: string,
  parts: { headings?: string[]; lists?: Lists; texts?: string[]; buttons?: string[]; status?: string[]; toggles?: PageSnapshot["toggles"] } = {},
): PageSnapshot {
  return {
    url,
    title,
    headings: (parts.headings ?? []).map((text) => ({ level: 1, text })),
    landmarks: [{ role: "navigation", name: "Site" }],
    dialogs: [],
    forms: [],
    buttons: parts.buttons ?? [],
    links: ["Home", "Recent changes"],
    status_messages: parts.status ?? [],
    lists: parts.lists ?? [],
    toggles: parts.toggles ?? [],
    texts: parts.texts ?? [],
    hover_revealed: [],
    schema_version: 1,
  };
}

/** A demonstration built step by step: each action ends on the page given, with a settled snapshot of it. */
export function demonstration(goal: string) {
  let clock = 0;
  const at = (offset = 0) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, (clock += 1000) + offset)).toISOString();
  const snapshots = new Map<string, PageSnapshot>();
  const moments: Array<{ at: string; ref: string }> = [];
  const steps: NormalizedStep[] = [];
  let current: string | undefined;
  let url = "";
  let title = "";
  const ref = (snapshot: PageSnapshot) => {
    const name = `p${snapshots.size}`;
    snapshots.set(name, snapshot);
    return `snapshot:${name}`;
  };
  const builder = {
    open(snapshot: PageSnapshot) {
      const after = ref(snapshot);
      ({ url, title } = snapshot);
      steps.push({
        step_id: "",
        action: "navigate",
        label: `Open '${title}'`,
        user_labelled: false,
        page_url: url,
        page_title: title,
        selectors: [],
        caused_state_change: true,
        event_ids: [],
        created_at: at(),
        after_state_ref: after,
      });
      current = after;
      return builder;
    },
    /** An action; `then` is the page it led to (a settled snapshot is taken), none when nothing changed. */
    act(partial: Partial<NormalizedStep> & Pick<NormalizedStep, "action" | "label">, then?: PageSnapshot) {
      const created_at = at();
      const after = then === undefined ? current : ref(then);
      steps.push({
        step_id: "",
        user_labelled: false,
        selectors: [["#x"]],
        caused_state_change: then !== undefined,
        event_ids: [],
        created_at,
        page_url: url,
        page_title: title,
        before_state_ref: current,
        after_state_ref: after,
        ...partial,
      });
      if (then !== undefined) {
        moments.push({ at: new Date(Date.parse(created_at) + 300).toISOString(), ref: after as string });
        ({ url, title } = then);
        current = after;
      }
      return builder;
    },
    fill(name: string, hash: string, extra: Partial<NormalizedStep> = {}, then?: PageSnapshot) {
      return builder.act(
        {
          action: "fill",
          label: `Fill '${name}'`,
          target_name: name,
          target_role: "textbox",
          target_tag: "input",
          masked_value: { value_hash: hash },
          ...extra,
        },
        then,
      );
    },
    password(then?: PageSnapshot) {
      return builder.act(
        {
          action: "fill",
          label: "Fill 'Password'",
          target_name: "Password",
          target_role: "textbox",
          target_tag: "input",
          input_type: "password",
          masked_value: { reason: "secret_field" },
        },
        then,
      );
    },
    click(name: string, then?: PageSnapshot) {
      return builder.act({ action: "click", label: `Click '${name}'`, target_name: name, target_role: "button", target_tag: "button" }, then);
    },
    compile() {
      steps.forEach((step, index) => {
        step.step_id = `s${index + 1}`;
      });
      const pages = [...snapshots.values()].map((snapshot) => ({ url: snapshot.url, title: snapshot.title }));
      const trace: NormalizedTrace = { steps, goal, pages, dropped: { noise: 0, outside_boundaries: 0, merged: 0 } };
      return interpretTrace({ trace, snapshots, moments, answers: {} });
    },
  };
  return builder;
}

/** The notes wiki's origin. */
export const W = "http://127.0.0.1:4100";
export const signedOut = page(`${W}/login`, "Log in [Notes]", { headings: ["Log in"], buttons: ["Log in"] });
/** After signing in: the menu and the dashboard widgets appear, a counter moves. */
export const dashboard = (notifications: number, recent: number) =>
  page(`${W}/start`, "Start [Notes]", {
    headings: ["Welcome"],
    buttons: ["Log out", "New page"],
    lists: [
      { name: "Sidebar menu", role: "list", items: 6, checked: 0 },
      { name: "Recent changes", role: "list", items: recent, checked: 0 },
    ],
    texts: [`Notifications (${notifications})`],
  });

/** Sign in, open a new page, name it, write it and save it: the wiki page the capture left masked. */
export function wikiDemonstration() {
  return demonstration("Create a wiki page")
    .open(signedOut)
    .fill("Username", "u1")
    .password()
    .click("Log in", dashboard(3, 4))
    .click(
      "New page",
      page(`${W}/edit`, "Edit page [Notes]", {
        headings: ["New page"],
        buttons: ["Log out", "Save"],
        lists: [{ name: "Sidebar menu", role: "list", items: 6, checked: 0 }],
      }),
    )
    .fill("Page name", "t1")
    .fill("Text", "b1", { target_tag: "textarea" })
    .click(
      "Save",
      page(`${W}/wiki/•••`, "••• [Notes]", {
        headings: ["•••"],
        buttons: ["Log out", "Edit"],
        status: ["Page saved at 10:42"],
        lists: [
          { name: "Sidebar menu", role: "list", items: 6, checked: 0 },
          { name: "Saved queries", role: "list", items: 4, checked: 0 },
        ],
        texts: ["Notifications (4)"],
      }),
    )
    .compile();
}
