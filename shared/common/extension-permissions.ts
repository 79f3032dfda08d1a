/**
 * Why the extension asks for each permission and host pattern (issue #36): the one source of the
 * manifest's lists (wxt.config.ts builds `permissions`, `host_permissions` and
 * `optional_host_permissions` from it), of `docs/permissions.md` (rendered by
 * `renderPermissionsDoc`, a test keeps the committed file equal) and of the side panel's
 * "Why these permissions" view. Plain text, no markdown: the panel renders it as text.
 */

export type PermissionKind = "permission" | "host_permission" | "optional_host_permission";

export interface PermissionExplanation {
  /** As written in the manifest. */
  name: string;
  kind: PermissionKind;
  /** One line, what the side panel lists before the details are opened. */
  summary: string;
  /** What in the extension uses it. */
  usedBy: string;
  /** When it is used. */
  when: string;
  /** What the person sees while it is used (or at install). */
  youSee: string;
}

export const EXTENSION_PERMISSIONS: readonly PermissionExplanation[] = [
  {
    name: "storage",
    kind: "permission",
    summary: "Remembers the pairing with your agent and a recording in progress.",
    usedBy:
      "The pairing with your local agent (its address and token, kept in this browser only, never synced), your answer to in-tab runs, and the state of a recording in progress and of the run questions asked in notifications (kept in memory, never on disk, so a restart of the extension's worker does not lose it).",
    when: "From pairing on; a recording's state only while the recording lasts.",
    youSee: "Nothing: Chrome shows no warning for it. Unpair this browser (at the foot of the panel) forgets the token.",
  },
  {
    name: "sidePanel",
    kind: "permission",
    summary: "Shows the Ability Learning side panel.",
    usedBy: "The Ability Learning side panel, where you set up a demonstration, review what was learned, and run your abilities.",
    when: "When you click the toolbar button.",
    youSee: "The panel beside the page; close it like any side panel.",
  },
  {
    name: "scripting",
    kind: "permission",
    summary: "Records a demonstration, only on the sites you allow, only between Start and Stop.",
    usedBy: "The recorder of a demonstration: it is registered for the sites you allowed when you press Start and removed at Stop or Cancel.",
    when: "Only between Start and Stop of a demonstration, only on the sites you allowed.",
    youSee: "The toolbar badge ARM, REC or II, the banner at the top of the panel, and an indicator with Stop on each recorded page.",
  },
  {
    name: "alarms",
    kind: "permission",
    summary: "Keeps the link to your agent awake, so a recording, a run and a run's question reach you.",
    usedBy:
      "A 30-second wake-up that keeps the link to your local agent alive while Chrome would otherwise put the extension's worker to sleep: a recording's events reach the agent, and a run that waits for your answer reaches you even with the panel closed.",
    when: "While this browser is paired with your agent (Unpair this browser stops it), and while a recording, a run in your tab or events still to send are in progress.",
    youSee: "Nothing: Chrome shows no warning for it.",
  },
  {
    name: "notifications",
    kind: "permission",
    summary: "Asks you, where you are, before a run of your ability does a step with consequences, and tells you how it ended.",
    usedBy:
      "Runs of your abilities that an assistant started (over MCP or the local API) or that run while the side panel is closed: before a step such as sending, paying or deleting, a notification asks \"<ability> wants to: <step> on <site>\" with Do it and Don't; when such a run ends, one line says how. The words come from the run's record, never from what was typed into it.",
    when: "Only when a run waits for your answer and no side panel is open, and when a run you did not start from the open panel ends.",
    youSee:
      "Chrome's notification, with Do it and Don't (one answer per question, however often you click); clicking it opens the side panel. The toolbar badge ASK while a run waits. You can turn the extension's notifications off in Chrome's settings; the panel then is the one place that asks.",
  },
  {
    name: "activeTab",
    kind: "permission",
    summary: "Suggests the site of the tab you are on when you set up a demonstration.",
    usedBy: "The set-up of a demonstration reads the address of the tab you are on, to suggest its site for the allow-list.",
    when: "Only after you click the toolbar button, and only for that tab.",
    youSee: "The site filled in under Sites to watch; you can change or remove it before Start.",
  },
  {
    name: "debugger",
    kind: "permission",
    summary: "Lets the assistant act in your own tab, only after you allowed it, with a bar and Stop on the page.",
    usedBy:
      "Runs of your abilities in your own browser (\"in my browser\"): the assistant opens a tab of this Chrome, where you are signed in, and clicks and types there with Chrome's trusted input, only on the skill's sites. Also the Coaching Agent's turns in the tab it records with you.",
    when: 'Only for runs in your own tab, only after you allowed it in this panel (asked at the first such run; "Stop allowing it to act in my tabs" withdraws it), and only in the one tab lent to that run, until the run ends or you press Stop.',
    youSee:
      'The toolbar badge RUN, a bar at the bottom of the page with Stop, and Chrome\'s own notice that the extension is debugging the tab, with Cancel. Chrome lists it at install as "Access the page debugger backend".',
  },
  {
    name: "http://127.0.0.1/*",
    kind: "host_permission",
    summary: "Talks to your local agent on this computer.",
    usedBy: "The link to your local agent (HTTP and WebSocket on this computer), where what you demonstrate is learned and stored.",
    when: "Whenever the panel or a recording talks to your agent.",
    youSee: "Connected (or why not) at the top of the panel. No website is reached through it.",
  },
  {
    name: "http://localhost/*",
    kind: "host_permission",
    summary: "Talks to your local agent, when its address is localhost.",
    usedBy: "The same link to your local agent, when its address is written as localhost.",
    when: "Only if you paired with a localhost address.",
    youSee: "Connected (or why not) at the top of the panel.",
  },
  {
    name: "http://*/*",
    kind: "optional_host_permission",
    summary: "Asked per site at Start, for the sites you allow to be recorded (http).",
    usedBy: "Access to a site you allow for a demonstration (http sites), so the recorder can run there.",
    when: "Asked for each site when you press Start; given back when the recording ends. Never held for every site.",
    youSee: "Chrome's prompt naming the site, which you may refuse; then the badge and page indicator while it records.",
  },
  {
    name: "https://*/*",
    kind: "optional_host_permission",
    summary: "Asked per site at Start, for the sites you allow to be recorded (https).",
    usedBy: "Access to a site you allow for a demonstration (https sites), so the recorder can run there.",
    when: "Asked for each site when you press Start; given back when the recording ends. Never held for every site.",
    youSee: "Chrome's prompt naming the site, which you may refuse; then the badge and page indicator while it records.",
  },
];

/** The manifest's names of one kind, in the order above. */
export function permissionNames(kind: PermissionKind): string[] {
  return EXTENSION_PERMISSIONS.filter((entry) => entry.kind === kind).map((entry) => entry.name);
}

const KIND_HEADINGS: Record<PermissionKind, string> = {
  permission: "Permissions",
  host_permission: "Host permissions (always held)",
  optional_host_permission: "Optional host permissions (asked per site, at Start)",
};

/** The heading the side panel and docs/permissions.md give each kind. */
export function permissionKindHeading(kind: PermissionKind): string {
  return KIND_HEADINGS[kind];
}

export const PERMISSION_KINDS: readonly PermissionKind[] = ["permission", "host_permission", "optional_host_permission"];

/** `docs/permissions.md`, exactly. */
export function renderPermissionsDoc(): string {
  const lines = [
    "# Why the extension asks for these permissions",
    "",
    "<!-- Generated from shared/common/extension-permissions.ts; edit that file, then `npx vitest run shared/common/product-docs.test.ts -u`. -->",
    "",
    "One line per permission and host pattern in the built manifest: what uses it, when, and what you see.",
    "The side panel shows the same text under **Why these permissions** (at the foot of the panel).",
    "",
  ];
  for (const kind of PERMISSION_KINDS) {
    lines.push(`## ${KIND_HEADINGS[kind]}`, "");
    for (const entry of EXTENSION_PERMISSIONS.filter((candidate) => candidate.kind === kind)) {
      lines.push(`- \`${entry.name}\` — ${entry.summary} **Used by:** ${entry.usedBy} **When:** ${entry.when} **You see:** ${entry.youSee}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
