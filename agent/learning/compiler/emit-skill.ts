import { PortableSkillFrontmatterSchema, skillFrontmatterBlock, type PortableSkillFrontmatter } from "../../../shared/skills/frontmatter";
import type { CapabilityManifest } from "../../../shared/capabilities/capability-manifest";
import type { TestPolicy } from "../../../shared/learning/sessions/test-policy";
import type { ProposalTriggerTests } from "../../../shared/learning/proposal-tests";
import type { Interpretation } from "./interpret";

/** Trigger tests (issue #5): phrasings that must find the skill, and ones that must not. */
export type TriggerTests = ProposalTriggerTests;

/** "When not to use" lines a skill gets when the user named none; not conditions of their own. */
export const DEFAULT_NON_USE_CONDITIONS: readonly string[] = [
  "When the user only asks about this task without asking you to do it.",
  "When any input below is missing and the user cannot provide it.",
];

/** The version of a first draft; a proposal improving an installed skill carries the next one. */
export const FIRST_SKILL_VERSION = "0.1.0";

/** Page-derived text goes into Markdown as plain text: no markup, links, HTML or code fences from a page. */
export function plainText(text: string): string {
  // {{parameter}} placeholders stay as declared; everything around them is escaped.
  return (
    text
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .split(/(\{\{[a-z0-9_]+\}\})/)
      .map((part, index) => (index % 2 === 1 ? part : part.replace(/[\\`*_[\]<>#|~]/g, (character) => `\\${character}`)))
      .join("")
      .trim()
  );
}

/** Words that start a sentence about something rather than an instruction ("The report…", "My invoices…"). */
const NOT_A_VERB =
  /^(the|a|an|this|that|these|those|my|our|your|its|their|i|we|you|it|he|she|they|when|if|to|for|on|in|with|all|every|each|new|how|what|which)$/i;

function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase();
  return /(s|sh|ch|x|z|o)$/.test(lower) ? `${verb}es` : /[^aeiou]y$/.test(lower) ? `${verb.slice(0, -1)}ies` : `${verb}s`;
}

/** A determiner after a word marks that word as an instruction's verb ("and place the order"). */
const DETERMINER = "(?:the|a|an|my|our|your|its|their|this|that|these|those|all|every|each|it|them)";

/**
 * "Create a wiki page" → "Creates a wiki page", "Check out the cart and place the order" →
 * "Checks out the cart and places the order": an instruction as what the skill does. Anything that
 * does not start with a verb is left as it is.
 */
export function asWhatItDoes(summary: string): string {
  const text = summary
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.!]+$/, "");
  const match = /^([A-Za-z][a-z]+)(\b.*)$/.exec(text);
  if (match === null) return text;
  const [, verb = "", rest = ""] = match;
  if (NOT_A_VERB.test(verb) || /(ed|ing)$/.test(verb) || (/s$/.test(verb) && !/(ss|us)$/.test(verb))) return text;
  // Later instructions of the same sentence, each with its object: "…, tick the first and show the open ones".
  const later = rest.replace(
    new RegExp(`(,\\s+|\\s+and\\s+|\\s+then\\s+)([a-z]+)(?=\\s+(?:${DETERMINER}|up|out|off|in|on)\\b)`, "g"),
    (_all, joint: string, next: string) => (NOT_A_VERB.test(next) || /(ed|ing|s)$/.test(next) ? `${joint}${next}` : `${joint}${thirdPerson(next)}`),
  );
  return `${thirdPerson(verb)}${later}`;
}

/**
 * Issue #35: the `description` an assistant reads to choose a skill says what it achieves, where
 * (the site's name and address), with what inputs and whether it signs in: "Creates a wiki page
 * on Notes (127.0.0.1:4100) after signing in. Inputs: page name, text; a password asked at each
 * run." Not the title again; the projection adds when to use it (agent-skills-format.ts).
 */
export function describeSkill(interpretation: Interpretation): string {
  const what = asWhatItDoes(interpretation.goal_summary);
  const site = interpretation.site;
  const name = interpretation.site_name;
  // The sentence may name the site already ("… on Fixture Shop"): then only its address follows.
  const named = (name !== undefined && interpretation.goal_summary.toLowerCase().includes(name.toLowerCase())) || / on (?:[A-Z][\w'’&-]*\s?)+$/.test(what);
  const where = site === undefined ? "" : named ? ` (${site})` : name !== undefined ? ` on ${name} (${site})` : ` on ${site}`;
  const signIn = interpretation.signs_in === true ? " after signing in" : "";
  const inputs = interpretation.parameters.filter((parameter) => parameter.type_hint !== "secret").map((parameter) => parameter.label.toLowerCase());
  const secrets = interpretation.parameters.filter((parameter) => parameter.type_hint === "secret").map((parameter) => `a ${parameter.label.toLowerCase()}`);
  let sentence = `${what}${where}${signIn}.`;
  if (inputs.length > 0) sentence += ` Inputs: ${inputs.join(", ")}${secrets.length > 0 ? `; ${secrets.join(", ")} asked at each run and never stored` : ""}.`;
  else if (secrets.length > 0) sentence += ` Asks for ${secrets.join(", ")} at each run and never stores it.`;
  else sentence += " No inputs.";
  return sentence.length <= 500 ? sentence : `${sentence.slice(0, 499).trimEnd()}…`;
}

export function buildFrontmatter(interpretation: Interpretation): PortableSkillFrontmatter {
  return PortableSkillFrontmatterSchema.parse({
    name: interpretation.slug,
    title: interpretation.title.slice(0, 120),
    description: describeSkill(interpretation),
    version: interpretation.version ?? FIRST_SKILL_VERSION,
    triggers: interpretation.triggers.length > 0 ? interpretation.triggers : [interpretation.title.toLowerCase().slice(0, 200)],
    negative_triggers: interpretation.negative_triggers,
    preferred_control_surfaces: interpretation.preferred_control_surfaces,
    estimated_cost_class: "free",
    portability_grade: interpretation.site?.startsWith("127.0.0.1") || interpretation.site?.startsWith("localhost") ? "local_only" : "direct",
    schema_version: 1,
  });
}

/**
 * SKILL.md as goals and checkpoints a runtime agent can follow on a page that changed (§0C.9A):
 * when to use it, inputs asked for at run time, checkpoints with observable success, controls by
 * their visible names. Never a click script, a selector, a coordinate, a typed value, or the IR.
 */
export function emitSkillMarkdown(interpretation: Interpretation, policy?: TestPolicy): string {
  const out: string[] = [skillFrontmatterBlock(buildFrontmatter(interpretation))];
  out.push(`# ${plainText(interpretation.title)}\n`, `${plainText(interpretation.goal_summary)}\n`);
  out.push("## When to use\n", ...interpretation.use_conditions.map((line) => `- ${plainText(line)}`), "");
  out.push("## When not to use\n");
  out.push(
    ...(interpretation.non_use_conditions.length > 0
      ? interpretation.non_use_conditions.map((line) => `- ${plainText(line)}`)
      : DEFAULT_NON_USE_CONDITIONS.map((line) => `- ${line}`)),
    "",
  );
  out.push("## Inputs\n", "Ask the user for each of these when you run the skill. Never reuse values from the demonstration.\n");
  if (interpretation.parameters.length === 0) out.push("- None.");
  for (const parameter of interpretation.parameters) {
    out.push(`- \`{{${parameter.name}}}\` — ${plainText(parameter.label)} (${parameter.type_hint.replace("_", " ")})`);
  }
  // Issue #14: why a field filled several times gives numbered inputs, said once per field.
  const notes = [...new Set(interpretation.parameters.map((parameter) => parameter.note).filter((note): note is string => note !== undefined))];
  if (notes.length > 0) out.push("", ...notes.map((note) => `Numbered inputs — ${plainText(note)}.`));
  out.push("", "## Checkpoints\n");
  out.push(
    "Work toward each checkpoint in order. Pages change: find controls by their visible names and roles, not by position, and confirm each checkpoint before moving on. If a checkpoint cannot be confirmed, stop and tell the user what you see.\n",
  );
  interpretation.checkpoints.forEach((checkpoint, index) => {
    const byPerson = checkpoint.verification?.by === "person" ? " (ask the user to confirm this one)" : "";
    out.push(`${index + 1}. **${plainText(checkpoint.goal)}** — success: ${plainText(checkpoint.success_condition)}${byPerson}`);
  });
  out.push("", "## Guidance\n");
  interpretation.checkpoints.forEach((checkpoint, index) => {
    out.push(`### ${index + 1}. ${plainText(checkpoint.goal)}\n`);
    if (checkpoint.where !== undefined)
      out.push(`- Where: the "${plainText(checkpoint.where)}" page${interpretation.site ? ` on ${plainText(interpretation.site)}` : ""}.`);
    if (checkpoint.controls.length > 0) {
      const controls = checkpoint.controls.map((control) =>
        control.parameter !== undefined
          ? `"${plainText(control.name)}" (${plainText(control.role)}) with {{${control.parameter}}}`
          : control.choice !== undefined
            ? `"${plainText(control.name)}" (${plainText(control.role)}) set to "${plainText(control.choice)}" in the demonstration; ask if unsure`
            : `"${plainText(control.name)}" (${plainText(control.role)})`,
      );
      out.push(`- Controls involved: ${[...new Set(controls)].join("; ")}.`);
    }
    // Issue #35: a sign-in a signed-in browser does not need.
    if (checkpoint.sign_in !== undefined)
      out.push(
        "- If the page already shows you signed in (a sign-out control, no password field), this checkpoint is reached: skip its steps. The password is a secret input: ask for it when needed, never write it down or repeat it.",
      );
    out.push(`- Done when: ${plainText(checkpoint.success_condition)}.`, "");
  });
  out.push("## Safety\n");
  out.push("- Confirm with the user before anything that sends, pays, deletes or publishes.");
  if (policy !== undefined) {
    if (policy.allowed_domains.length > 0) out.push(`- When rehearsing, stay on: ${policy.allowed_domains.map(plainText).join(", ")}.`);
    if (policy.mode === "dry_run_only") out.push("- When rehearsing, stop before the final committing step.");
    if (policy.forbid_external_send) out.push("- Never submit data to a site other than the one this skill was learned on.");
    if (policy.forbid_destructive_writes) out.push("- Never delete or overwrite anything as part of this skill.");
  }
  out.push("");
  return out.join("\n");
}

/** The spec's capability manifest for a learned browser/desktop skill (§0C.23). */
export function emitCapabilityManifest(interpretation: Interpretation, capabilityId: string): CapabilityManifest {
  return {
    capability_id: capabilityId,
    family: interpretation.site !== undefined ? "browser" : "desktop",
    kind: "workflow_pattern",
    title: interpretation.title.slice(0, 200),
    origin_skill: interpretation.slug,
    aliases: [],
    action_verbs: [],
    surface_order: interpretation.preferred_control_surfaces.length > 0 ? interpretation.preferred_control_surfaces : ["raw_ui"],
    runtime_binding: { binding_kind: "workflow_pattern", target: `skills/${interpretation.slug}/SKILL.md` },
    required_runtime_caps: interpretation.site !== undefined ? ["browser"] : [],
    permissions: [],
    requires_supervision: true,
    dry_run_supported: false,
    routing_eligible: true,
    verification: interpretation.checkpoints.map((checkpoint) => ({
      kind: checkpoint.observable ? "snapshot_label" : "manual_confirmation",
      target: checkpoint.checkpoint_id,
      expected: checkpoint.success_condition.slice(0, 240),
    })),
    health_probe: { kind: interpretation.site !== undefined ? "browser" : "noop", target: interpretation.site ?? "none", timeout_ms: 3000 },
    learning_policy: { teach_mode_allowed: true, auto_capture_trace: true, proposal_required_for_mutation: true },
    retrieval_corpus_hints: [],
    schema_version: 1,
  };
}

/** At least 3 positives, 3 paraphrases and 3 negatives, from the meaning (issue #5). */
export function emitTriggerTests(interpretation: Interpretation): TriggerTests {
  const base = interpretation.title.replace(/[.]$/, "").toLowerCase();
  const positive = [...new Set([base, ...interpretation.triggers])].slice(0, 5);
  while (positive.length < 3) positive.push(`please ${base}`);
  const paraphrases = [`could you ${base} for me`, `i need to ${base}`, `go ahead and ${base} now`];
  const negative = [
    ...interpretation.negative_triggers,
    // §0C.11C matches title words as substrings, so short words ("is", "the") would match almost
    // any title: unrelated requests are phrased without them.
    "forecast tomorrow's rainfall",
    "summarize quarterly earnings",
    "translate paragraph into french",
  ].slice(0, Math.max(3, interpretation.negative_triggers.length));
  return { positive, paraphrases, negative };
}
