import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import { createAgentClient } from "../agent-link/agent-client";
import { CONTROLS_UNCHECKED, FEATURES_UNREAD, NOT_AVAILABLE_YET, READING_AGENT_FEATURES } from "../common/learn-labels";
import { noBrowser } from "../common/no-browser";
import { SkillsCatalogState, type Ability } from "./skills-catalog.svelte";
import SkillsView from "./SkillsView.svelte";

// Port 9 (discard): nothing here calls the agent; the states are set as an answer would set them.
const deps = { client: createAgentClient({ baseUrl: "http://127.0.0.1:9" }), browser: noBrowser, features: { has: () => false }, onFailure: () => {} };

const learned: Ability = {
  ability_id: "learned.export-invoices",
  title: "Export the monthly invoices",
  family: "browser",
  source: "learned",
  install_lane: "approved_workspace",
  enabled: true,
  usable_now: true,
};

function readySkills({ stale }: { stale: boolean }): SkillsCatalogState {
  const skills = new SkillsCatalogState(deps);
  skills.abilities = [learned];
  skills.snapshotAsOf = "2026-11-25T01:20:00.000Z";
  skills.stale = stale;
  skills.status = "ready";
  return skills;
}

const shownSkills = (props: Record<string, unknown>) =>
  render(SkillsView, { props: { state: readySkills({ stale: false }), features: deps.features, onimprove: () => {}, ...props } }).body;

/** The snapshot line of a rendered Skills view. */
function snapshotLine(body: string): string {
  const line = /<p[^>]*data-snapshot-line[\s\S]*?<\/p>/.exec(body)?.[0];
  if (line === undefined) throw new Error(`no snapshot line in ${body.slice(0, 400)}`);
  return line;
}

/** The line with what says which state it is in taken out: the text it holds and lays out. */
const laidOut = (line: string) =>
  line
    .replace(/\s(aria-busy|aria-hidden|data-snapshot-line)="[^"]*"/g, "")
    .replace(/\boff\b/g, "")
    .replace(/\s+"/g, '"');

describe("the Skills snapshot line (§0C.11B refreshing / as of)", () => {
  it("says it is refreshing, and when the list it shows is from, in one line that holds the same text in both states", () => {
    const lineOf = (stale: boolean) => snapshotLine(shownSkills({ state: readySkills({ stale }) }));
    const refreshing = lineOf(true);
    const asOf = lineOf(false);
    expect(refreshing).toContain('data-snapshot-line="refreshing"');
    expect(asOf).toContain('data-snapshot-line="as-of"');
    // What the line says: the shown text is not hidden from anyone…
    expect(visibleText(refreshing)).toBe("Refreshing abilities…");
    expect(visibleText(asOf)).toMatch(/^As of \S/);
    // …and the other state's text keeps its place, invisible, so the line has one height in both.
    expect(laidOut(refreshing)).toBe(laidOut(asOf));
  });
});

describe("Skills when the agent's description could not be read", () => {
  it("says so above the skills, with why and Try again, and shows each skill's controls as not available", () => {
    const body = shownSkills({ featuresFailure: "The agent did not answer." });
    expect(body).toContain(`${FEATURES_UNREAD.skills} The agent did not answer.`);
    expect(body).toMatch(/data-features-failure[\s\S]*<button[^>]*>Try again<\/button>/);
    expect(body.indexOf("data-features-failure")).toBeLessThan(body.indexOf(learned.title));
    // Not "arrive with the next agent update": whether they exist is what could not be checked.
    expect(body).toContain(CONTROLS_UNCHECKED);
    expect(body).not.toContain(NOT_AVAILABLE_YET.ability_controls);
  });

  it("has no notice once it is read, nor while it is read again (it says it is checking, and shows no skill)", () => {
    expect(shownSkills({})).not.toContain("data-features-failure");
    const reading = shownSkills({ reading: true });
    expect(reading).toContain(READING_AGENT_FEATURES);
    expect(reading).not.toContain("data-features-failure");
    expect(reading).not.toContain(learned.title);
  });
});

/** The text of the spans a person sees (not marked `off`). */
function visibleText(line: string): string {
  return [...line.matchAll(/<span class="([^"]*)"[^>]*>([^<]*)<\/span>/g)]
    .filter((span) => !/\boff\b/.test(span[1]!))
    .map((span) => span[2]!.trim())
    .join("");
}
