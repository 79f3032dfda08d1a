import { z } from "zod";
import { parseStoredJson } from "../../../shared/execution/stored-skill-files";
import { SkillExampleSchema, type SkillExample } from "../../../shared/learning/proposals/skill-example";
import { plainText } from "../compiler/emit-skill";
import type { MemoryStore } from "../../memory/memory-store";
import { DraftFiles } from "../../../shared/skills/skill-folder";

const ExamplesFileSchema = z.array(SkillExampleSchema);
const TriggerTestsFileSchema = z.object({ positive: z.array(z.string()), paraphrases: z.array(z.string()), negative: z.array(z.string()) }).passthrough();

const key = (text: string) => text.trim().toLowerCase().replace(/\s+/g, " ");

/** The body between a `## heading` line and the next `## ` heading (or the end), as [start, end) line indexes. */
function section(lines: readonly string[], heading: string): [number, number] | undefined {
  const start = lines.findIndex((line) => line.trim() === `## ${heading}`);
  if (start < 0) return undefined;
  const next = lines.findIndex((line, index) => index > start && /^## /.test(line));
  return [start, next < 0 ? lines.length : next];
}

/** The `## Examples` section: each example by its title, the requests it answers, the pages it went through. */
function examplesSection(examples: readonly SkillExample[]): string[] {
  const out = ["## Examples", "", "Real uses of this skill, for what a request like these looks like and where it leads.", ""];
  for (const example of examples) {
    out.push(`### ${plainText(example.title)}`, "");
    out.push(`- Asked as: ${example.trigger_tests.map((request) => `"${plainText(request)}"`).join("; ")}`);
    const pages = example.pages.map((page) => plainText(page.title ?? page.url)).filter((page) => page !== "");
    if (pages.length > 0) out.push(`- Pages: ${pages.join(" → ")}`);
    if (example.outcome !== undefined) out.push(`- It stopped: ${plainText(example.outcome)}`);
    out.push("");
  }
  return out;
}

/**
 * A revision's files with one more example: `examples.json` (every example), its requests as
 * positive trigger tests and as "When to use" lines, and the `## Examples` section of SKILL.md
 * (before Safety); with `version`, the SKILL.md's next version. `added`: the requests that were new tests.
 */
export function withExample(
  files: Readonly<Record<string, string>>,
  example: SkillExample,
  version?: string,
): { files: Record<string, string>; added: string[] } {
  const examples = [...(parseStoredJson(files[DraftFiles.examples], ExamplesFileSchema) ?? []), example];
  const tests = parseStoredJson(files[DraftFiles.triggerTests], TriggerTestsFileSchema) ?? { positive: [], paraphrases: [], negative: [] };
  const known = new Set([...tests.positive, ...tests.paraphrases].map(key));
  const added = [...new Map(example.trigger_tests.filter((request) => !known.has(key(request))).map((request) => [key(request), request.trim()])).values()];

  let lines = (files[DraftFiles.skill] ?? "").split("\n");
  if (version !== undefined) {
    const end = lines.indexOf("---", 1);
    lines = lines.map((line, index) => (index > 0 && index < end && /^version: /.test(line) ? `version: ${JSON.stringify(version)}` : line));
  }
  const use = section(lines, "When to use");
  if (use !== undefined) {
    const have = new Set(lines.slice(use[0], use[1]).map(key));
    const more = example.trigger_tests.map((request) => `- When asked, for example, "${plainText(request)}"`).filter((line) => !have.has(key(line)));
    let at = use[1];
    while (at > use[0] + 1 && lines[at - 1]?.trim() === "") at -= 1;
    lines.splice(at, 0, ...more);
  }
  const old = section(lines, "Examples");
  if (old !== undefined) lines.splice(old[0], old[1] - old[0]);
  const safety = section(lines, "Safety");
  const block = examplesSection(examples);
  if (safety !== undefined) lines.splice(safety[0], 0, ...block);
  else lines.push("", ...block);

  return {
    files: {
      ...files,
      [DraftFiles.skill]: lines.join("\n"),
      [DraftFiles.examples]: `${JSON.stringify(examples, null, 2)}\n`,
      [DraftFiles.triggerTests]: `${JSON.stringify({ ...tests, positive: [...tests.positive, ...added] }, null, 2)}\n`,
    },
    added,
  };
}

/**
 * A proposal rebuilt from its session (after an answer or a Revise) is compiled afresh: the examples
 * added to its earlier revision (Use as Example) are read from that revision's `examples.json` and
 * added again, in order, to the new revision's SKILL.md, trigger tests and `examples.json`, so
 * nothing a person added is lost. Returns how many were carried.
 */
export async function carryExamples(memory: MemoryStore, fromFolder: string, toFolder: string): Promise<number> {
  const examples = parseStoredJson(await memory.readText(`${fromFolder}/${DraftFiles.examples}`), ExamplesFileSchema) ?? [];
  if (examples.length === 0) return 0;
  const names = [DraftFiles.skill, DraftFiles.triggerTests] as const;
  let files: Record<string, string> = {};
  for (const name of names) {
    const text = await memory.readText(`${toFolder}/${name}`);
    if (text !== undefined) files[name] = text;
  }
  for (const example of examples) files = withExample(files, example).files;
  for (const [name, text] of Object.entries(files)) await memory.writeText(`${toFolder}/${name}`, text);
  return examples.length;
}
