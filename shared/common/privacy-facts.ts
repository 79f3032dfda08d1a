/**
 * The privacy facts (issue #36): one source for the README's "Privacy, in five lines" and for
 * `docs/privacy.md`, the policy a store listing links to. Tests keep the README's five lines and
 * the committed policy equal to what is rendered here, so the two cannot drift. Markdown.
 */

/** The README's five lines, in order (numbered there, and in the policy). */
export const PRIVACY_FIVE_LINES: readonly string[] = [
  "Nothing is observed until you press Start, only on the sites you allow, and never after Stop.",
  "Typed values are masked inside the page, before anything leaves it; passwords always.",
  "The agent listens on loopback only and answers only requests that carry your token, name a loopback `Host`, and come from no web page (only the paired extension's Origin).",
  "Raw observations are proposal inputs, purged 7 days after a session ends, or at once on delete; a run's record, events and screenshot likewise 7 days after it ended, or with its ability. Desktop adapters send nothing about what you do while no session captures.",
  "Nothing learned is shared or approved without your explicit action.",
];

export interface PrivacyPolicySection {
  heading: string;
  /** Each a bullet of the section. */
  points: readonly string[];
}

export const PRIVACY_POLICY_SECTIONS: readonly PrivacyPolicySection[] = [
  {
    heading: "What is collected, and when",
    points: [
      "Only during a demonstration you start in the side panel, and only on the sites you allowed for it: what you do (clicks, choices, field edits, pages visited) and the structure of the pages (titles, headings, the names of buttons, links and fields).",
      "The addresses of those pages, with anything you typed into them and anything that looks like a secret (a token, a session id, a one-time code) masked.",
      "What you type is masked inside the page before anything leaves it: a field's edit is recorded as `masked` with a length class, or as a keyed hash so equal values can be matched without being known. Passwords are always masked, never hashed. Only if you choose `none` for one session, and consent to it, are field values sent as typed.",
      "When you run one of your abilities in your own tab, the steps the assistant takes there and whether each succeeded. The inputs you give a run are used for that run and never stored. If you choose “Always allow this step” with “these exact inputs”, the agent keeps only keyed hashes of the inputs that are not secret (under a key of this install), never the values, so it can tell a later run with the same inputs.",
      "Nothing is collected outside a demonstration or a run you started: no browsing history, no analytics, no advertising identifiers.",
    ],
  },
  {
    heading: "Where it goes",
    points: [
      "Only to the agent on your own computer (`127.0.0.1`), which you installed and paired with this browser by a token. We run no server: nothing reaches us or anyone else, and nothing is sold or shared.",
      "Optional: if you set a model refiner yourself (`ELNOR_REFINER_URL`), the wording of a proposal (its title, goal, page names and headings, never a typed value) is sent to the address you chose, to be reworded.",
    ],
  },
  {
    heading: "Where it is kept, and for how long",
    points: [
      "On your computer, in the agent's folder (`ELNOR_MEMORY`, by default `~/.elnor/memory`). Raw observations are purged 7 days after their session ends, or at once when you delete the session; the abilities you install stay until you remove them.",
      "If you set a skill to run on a schedule, the inputs you chose for it are kept with the schedule (never logged) until you delete it; a skill that needs a secret input cannot be scheduled, so no secret is ever kept.",
      "In the browser: the pairing (the agent's address and token) in Chrome's local extension storage, never synced; values you typed during a demonstration in memory only, forgotten when it ends.",
    ],
  },
  {
    heading: "Your choices",
    points: [
      'Pause, Stop or Cancel a demonstration at any time; delete a session and its observations at once (`DELETE /api/learn/sessions/:id` on your agent); revoke a step you always allowed (Skills → Revoke); unpair this browser; withdraw in-tab runs ("Stop allowing it to act in my tabs"); remove the extension.',
      "Why the extension asks for each permission, and what you see when it uses one: [permissions.md](permissions.md), also shown in the side panel under **Why these permissions**.",
    ],
  },
];

/** The README's numbered list under "Privacy, in five lines", exactly. */
export function renderPrivacyFiveLines(): string {
  return PRIVACY_FIVE_LINES.map((line, index) => `${index + 1}. ${line}`).join("\n");
}

/** `docs/privacy.md`, exactly. */
export function renderPrivacyPolicy(): string {
  const lines = [
    "# Privacy policy: Ability Learning (elnor-learn)",
    "",
    "<!-- Generated from shared/common/privacy-facts.ts; edit that file, then `npx vitest run shared/common/product-docs.test.ts -u`. -->",
    "",
    "Ability Learning is a Chrome extension that watches a task you demonstrate, on the sites you allow, and",
    "hands it to a local agent on your own computer, which turns it into an ability your assistant can use.",
    "",
    "## In five lines",
    "",
    renderPrivacyFiveLines(),
    "",
  ];
  for (const section of PRIVACY_POLICY_SECTIONS) {
    lines.push(`## ${section.heading}`, "");
    for (const point of section.points) lines.push(`- ${point}`);
    lines.push("");
  }
  return lines.join("\n");
}
