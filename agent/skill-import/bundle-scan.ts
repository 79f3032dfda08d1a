import { createHash } from "node:crypto";
import {
  AGENT_SKILLS_COMPATIBILITY_MAX,
  AGENT_SKILLS_DESCRIPTION_MAX,
  AGENT_SKILLS_FIELDS,
  ELNOR_METADATA_MARKER,
  normalizeAgentSkillsFrontmatter,
  portableFrontmatterFromMetadata,
  type AgentSkillsFrontmatter,
} from "../../shared/skills/agent-skills-format";
import { SKILL_MD } from "../../shared/skills/skill-folder";
import {
  PORTABLE_SKILL_NAME_PATTERN,
  PortableSkillFrontmatterSchema,
  readFrontmatterMapping,
  type PortableSkillFrontmatter,
} from "../../shared/skills/frontmatter";
import type { SkillCompatibilityFinding, SkillCompatibilityReport } from "../../shared/skills/import";
import type { SkillImportBundleSummary, SkillImportFile } from "../../shared/skills/import-bundle";
import type { BundleArchive, BundleFile } from "./bundle-reader";
import { deriveNegativeTriggers, deriveTriggers, summaryOf, titleOf, whenToUseOf } from "../abilities/derive-fields";

/**
 * The compatibility scan of §0C.20: reads a bundle's SKILL.md (Agent Skills frontmatter, and our
 * §0.2C fields when the bundle is one we projected), lints it, checks names and triggers against
 * what is installed, lists every file (scripts flagged, never run), looks for secrets, and
 * derives what our records need from a bundle that carries only `name` and `description`.
 */

export const IMPORT_RULE_VERSION = "elnor-import-1";

export interface ScanContext {
  /** Skill names already taken (installed, native or bundled), each with who holds it. */
  takenNames: ReadonlyMap<string, string>;
  /** Trigger phrases of installed abilities, lower case, each with its ability id. */
  installedTriggers: ReadonlyMap<string, string>;
}

export interface ScanOutcome {
  report: SkillCompatibilityReport;
  bundle: SkillImportBundleSummary;
  /** The bundle's files under its root folder, paths relative to it. */
  files: BundleFile[];
}

const SCRIPT_EXTENSIONS = /\.(sh|bash|zsh|fish|py|pyw|js|mjs|cjs|ts|rb|pl|php|ps1|psm1|bat|cmd|exe|dll|so|dylib|jar|bin|com|scpt|applescript|vbs)$/i;
const DEPENDENCY_FILES = /(^|\/)(requirements[^/]*\.txt|package\.json|pyproject\.toml|Pipfile|Gemfile|go\.mod|Cargo\.toml|environment\.ya?ml)$/;
const SECRET_PATTERNS: ReadonlyArray<[string, RegExp]> = [
  ["a private key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ["an AWS access key", /\bAKIA[0-9A-Z]{16}\b/],
  ["a GitHub token", /\bgh[pousr]_[A-Za-z0-9]{36,}\b/],
  ["an API key (sk-…)", /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}\b/],
  ["a Slack token", /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/],
  ["a Google API key", /\bAIza[0-9A-Za-z_-]{35}\b/],
];

const utf8 = new TextDecoder("utf-8", { fatal: true });
function textOf(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Where the bundle starts: its top level, or its one top folder holding SKILL.md. */
function rootOf(files: readonly BundleFile[]): { prefix: string; folder?: string } | undefined {
  const skillMd = (prefix: string) => files.find((file) => file.path === `${prefix}SKILL.md`) ?? files.find((file) => file.path === `${prefix}skill.md`);
  if (skillMd("") !== undefined) return { prefix: "" };
  const tops = new Set(files.map((file) => file.path.split("/")[0] as string));
  if (tops.size !== 1) return undefined;
  const folder = [...tops][0] as string;
  if (!files.every((file) => file.path.startsWith(`${folder}/`))) return undefined;
  return skillMd(`${folder}/`) === undefined ? undefined : { prefix: `${folder}/`, folder };
}

function fileOf(file: BundleFile): SkillImportFile {
  const text = textOf(file.bytes);
  const shebang = file.bytes.subarray(0, 2).toString("latin1") === "#!";
  const script = file.executable || shebang || SCRIPT_EXTENSIONS.test(file.path);
  return {
    path: file.path,
    byte_size: file.bytes.length,
    sha256: createHash("sha256").update(file.bytes).digest("hex"),
    kind: /^skill\.md$/i.test(file.path) ? "skill_md" : script ? "script" : text === undefined ? "binary" : "text",
    executable: script,
  };
}

/** §0.2C and the Agent Skills format agree on this: lowercase letters, digits, single inner hyphens. */
const isSkillName = (name: string) => PORTABLE_SKILL_NAME_PATTERN.test(name) && !name.includes("--") && !name.endsWith("-");
const slugOf = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

type Finding = (severity: SkillCompatibilityFinding["severity"], code: string, message: string, pathHint?: string) => void;
type BundleRoot = NonNullable<ReturnType<typeof rootOf>>;

/** SKILL.md's frontmatter, read and normalized; undefined (with the error found) when it cannot be. */
function readSkillFile(
  files: readonly BundleFile[],
  root: BundleRoot,
  finding: Finding,
): { mapping: { value: Record<string, unknown>; body: string }; front: AgentSkillsFrontmatter } | undefined {
  const skillFile = files.find((file) => file.path === SKILL_MD) ?? (files.find((file) => file.path === "skill.md") as BundleFile);
  const markdown = textOf(skillFile.bytes);
  if (markdown === undefined) {
    finding("error", "SKILL_MD_NOT_TEXT", "SKILL.md is not UTF-8 text.", skillFile.path);
    return undefined;
  }
  const mapping = readFrontmatterMapping(markdown);
  if (!mapping.ok) {
    finding("error", "FRONTMATTER_INVALID", mapping.reason, "SKILL.md");
    return undefined;
  }
  const normalized = normalizeAgentSkillsFrontmatter(mapping.value);
  const front = normalized.frontmatter;
  if (front === undefined) {
    finding("error", "FRONTMATTER_INVALID", `${normalized.problems.join(" ")} An Agent Skills SKILL.md needs both.`, "SKILL.md");
    return undefined;
  }
  for (const problem of normalized.problems) finding("warning", "FRONTMATTER_FIELD_IGNORED", problem, "SKILL.md");
  return { mapping, front };
}

/** The Agent Skills format's own rules (what `skills-ref validate` checks); the name it installs under. */
function checkFormatRules(front: AgentSkillsFrontmatter, fields: Record<string, unknown>, root: BundleRoot, context: ScanContext, finding: Finding): string {
  const declared = front.name.trim();
  let name = declared;
  for (const key of Object.keys(fields).filter((key) => !(AGENT_SKILLS_FIELDS as readonly string[]).includes(key))) {
    finding(
      "warning",
      "FRONTMATTER_FIELD_UNKNOWN",
      `The frontmatter has "${clip(key, 60)}", which the Agent Skills format does not define; it is kept in SKILL.md and not used.`,
      "SKILL.md",
    );
  }
  if (!isSkillName(declared)) {
    // Accepted as published: installed under a name that follows the rule, its SKILL.md unchanged.
    const candidate = root.folder !== undefined && isSkillName(root.folder) ? root.folder : slugOf(declared);
    if (isSkillName(candidate)) {
      name = candidate;
      finding(
        "warning",
        "NAME_DERIVED",
        `The name "${clip(declared, 64)}" does not follow the Agent Skills rule (2–64 lowercase letters, digits and single hyphens); it is installed as "${name}". Its SKILL.md keeps its own name, so an assistant that checks strictly may refuse it.`,
        "SKILL.md",
      );
    } else {
      finding(
        "error",
        "NAME_INVALID",
        `The name "${clip(declared, 64)}" must be 2–64 lowercase letters, digits and single hyphens, not starting or ending with a hyphen.`,
        "SKILL.md",
      );
    }
  }
  if (root.folder !== undefined && root.folder !== name) {
    finding(
      "warning",
      "NAME_FOLDER_MISMATCH",
      `The bundle's folder is "${clip(root.folder, 80)}" but its name is "${clip(name, 64)}"; it is installed as "${clip(name, 64)}".`,
    );
  }
  if (front.description.length > AGENT_SKILLS_DESCRIPTION_MAX) {
    finding(
      "error",
      "DESCRIPTION_TOO_LONG",
      `The description has ${front.description.length} characters; the Agent Skills format allows ${AGENT_SKILLS_DESCRIPTION_MAX}.`,
      "SKILL.md",
    );
  }
  if (front.compatibility !== undefined) {
    if (front.compatibility.length > AGENT_SKILLS_COMPATIBILITY_MAX)
      finding("error", "COMPATIBILITY_TOO_LONG", `The compatibility note has more than ${AGENT_SKILLS_COMPATIBILITY_MAX} characters.`, "SKILL.md");
    finding("info", "DEPENDENCY_DECLARED", `The skill says what it needs: "${clip(front.compatibility, 300)}".`, "SKILL.md");
  }
  if (front["allowed-tools"] !== undefined)
    finding("info", "TOOLS_DECLARED", `The skill asks for these tools: ${clip(front["allowed-tools"], 300)}.`, "SKILL.md");
  const taken = context.takenNames.get(name);
  if (taken !== undefined) finding("error", "NAME_COLLISION", `A skill named "${name}" is already ${taken}; remove or rename one of them first.`, "SKILL.md");
  return name;
}

/** Lint of the body: empty, or linking to files the bundle does not have. */
function lintBody(body: string, files: readonly BundleFile[], finding: Finding): void {
  if (body.trim().length === 0) finding("warning", "BODY_EMPTY", "SKILL.md has no instructions below its frontmatter.", "SKILL.md");
  const present = new Set(files.map((file) => file.path));
  // Links in code blocks are examples, not references to the bundle's files.
  const prose = body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const match of prose.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
    const target = (match[1] as string).replace(/^\.\//, "");
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("/")) continue;
    const decoded = (() => {
      try {
        return decodeURIComponent(target);
      } catch {
        return target;
      }
    })();
    if (!present.has(decoded) && ![...present].some((file) => file.startsWith(`${decoded.replace(/\/$/, "")}/`))) {
      finding("warning", "LINK_MISSING", `SKILL.md links to ${clip(decoded, 120)}, which is not in the bundle.`, "SKILL.md");
    }
  }
}

/** Every file: scripts flagged, dependency manifests noted, secrets refused. */
function lintFiles(files: readonly BundleFile[], listed: readonly SkillImportFile[], finding: Finding): void {
  for (const file of listed) {
    if (file.kind === "script") {
      const reason = files.find((candidate) => candidate.path === file.path)?.executable ? "has the executable bit" : "is a script";
      finding(
        "warning",
        "EXECUTABLE_FILE",
        `${file.path} ${reason}. It is kept byte for byte and never run by the import; the assistant may run it when it uses the skill.`,
        file.path,
      );
    }
    if (DEPENDENCY_FILES.test(file.path))
      finding("info", "DEPENDENCY_DECLARED", `${file.path} declares packages the skill's scripts need; nothing is installed by the import.`, file.path);
  }
  for (const file of files) {
    const text = textOf(file.bytes);
    if (text === undefined) continue;
    for (const [what, pattern] of SECRET_PATTERNS) {
      if (pattern.test(text))
        finding("error", "SECRET_SUSPECTED", `${file.path} appears to contain ${what}. Remove it from the bundle before importing.`, file.path);
    }
  }
}

/** §0.2C fields for a bundle that carries only the Agent Skills ones, and what was derived. */
function derivedFrontmatter(
  front: AgentSkillsFrontmatter,
  name: string,
  body: string,
  listed: readonly SkillImportFile[],
): { frontmatter: PortableSkillFrontmatter; derived: string[] } {
  const derived: string[] = [];
  const triggers = deriveTriggers(name, front.description);
  const summary = summaryOf(front.description);
  const title = titleOf(name, body);
  derived.push(`triggers from the name and description (${triggers.length})`);
  derived.push(`title "${clip(title, 80)}" from ${body.match(/^#\s+\S/m) ? "the first heading" : "the name"}`);
  if (summary !== front.description.trim()) derived.push(`a ${summary.length}-character summary (our records allow 500; SKILL.md keeps the full description)`);
  derived.push("version 1.0.0 (the bundle gives none)");
  const version = typeof front.metadata?.version === "string" && front.metadata.version.length <= 32 ? front.metadata.version : "1.0.0";
  if (version !== "1.0.0") derived[derived.length - 1] = `version ${version} from metadata`;
  const frontmatter = PortableSkillFrontmatterSchema.parse({
    name,
    title,
    description: summary,
    version,
    triggers,
    negative_triggers: deriveNegativeTriggers(front.description).map((trigger) => trigger.slice(0, 200)),
    allowed_tools: (front["allowed-tools"] ?? "")
      .split(/\s+/)
      .filter((tool) => tool.length > 0 && tool.length <= 80)
      .slice(0, 50),
    estimated_cost_class: "unknown",
    portability_grade: listed.some((file) => file.kind === "script") ? "adapter_required" : "direct",
    schema_version: 1,
  });
  return { frontmatter, derived };
}

/** Our records: the bundle's own §0.2C fields when it is ours, else derived from its description. */
function recordFields(
  front: AgentSkillsFrontmatter,
  name: string,
  body: string,
  listed: readonly SkillImportFile[],
  findings: readonly SkillCompatibilityFinding[],
  finding: Finding,
) {
  const own = portableFrontmatterFromMetadata(front);
  if (own === undefined && front.metadata?.[ELNOR_METADATA_MARKER] !== undefined) {
    finding(
      "warning",
      "ELNOR_FIELDS_INVALID",
      "The bundle says it was exported by Ability Learning, but its fields under metadata do not read back; it is imported like any Agent Skills bundle.",
      "SKILL.md",
    );
  }
  let derived: string[] = [];
  let frontmatter: PortableSkillFrontmatter | undefined = own;
  if (own === undefined && !findings.some((entry) => entry.code === "NAME_INVALID")) {
    ({ frontmatter, derived } = derivedFrontmatter(front, name, body, listed));
    finding("info", "FIELDS_DERIVED", `The bundle carries only the Agent Skills fields; derived for our records: ${derived.join("; ")}.`);
  } else if (own !== undefined) {
    finding("info", "ELNOR_EXPORT", "A bundle exported by this agent: its own triggers and fields are used as they are.");
  }
  return { own, frontmatter, derived };
}

/** Triggers another skill already answers to, and dependencies that are not installed. */
function checkAgainstInstalled(frontmatter: PortableSkillFrontmatter, context: ScanContext, finding: Finding): void {
  for (const trigger of frontmatter.triggers) {
    const holder = context.installedTriggers.get(trigger.toLowerCase());
    if (holder !== undefined)
      finding("warning", "TRIGGER_COLLISION", `The trigger "${clip(trigger, 120)}" is also a trigger of ${holder}; lookup may pick either.`);
  }
  for (const dependency of frontmatter.depends_on) {
    if (!context.takenNames.has(dependency))
      finding("warning", "DEPENDENCY_MISSING", `The skill depends on "${clip(dependency, 80)}", which is not installed.`);
  }
}

export function scanBundle(archive: BundleArchive, context: ScanContext): ScanOutcome {
  const findings: SkillCompatibilityFinding[] = [];
  const finding: Finding = (severity, code, message, pathHint) =>
    findings.push({ code, severity, message: clip(message, 1000), ...(pathHint === undefined ? {} : { path_hint: clip(pathHint, 240) }) });

  const root = rootOf(archive.files);
  const files = root === undefined ? archive.files : archive.files.map((file) => ({ ...file, path: file.path.slice(root.prefix.length) }));
  const listed = files.map(fileOf);
  const base = {
    files: listed,
    total_bytes: listed.reduce((sum, file) => sum + file.byte_size, 0),
    skipped: archive.skipped.slice(0, 2000).map((name) => clip(name, 240)),
    schema_version: 1 as const,
  };
  const report = (extra: Partial<SkillCompatibilityReport> = {}): SkillCompatibilityReport => ({
    compatible: !findings.some((entry) => entry.severity === "error"),
    requires_adapter: false,
    rule_version: IMPORT_RULE_VERSION,
    findings,
    schema_version: 1,
    ...extra,
  });
  const failed = (name: string): ScanOutcome => ({
    report: report(),
    bundle: { skill_name: clip(name, 80), format: "agent_skills", description: "", when_to_use: [], derived: [], ...base },
    files,
  });

  if (root === undefined) {
    finding(
      "error",
      "SKILL_MD_MISSING",
      "The bundle has no SKILL.md at its top level or in its one top folder; an Agent Skills bundle is a folder with SKILL.md in it.",
    );
    return failed("");
  }
  const read = readSkillFile(files, root, finding);
  if (read === undefined) return failed(root.folder ?? "");
  const { mapping, front } = read;
  const name = checkFormatRules(front, mapping.value, root, context, finding);
  const body = mapping.body;
  lintBody(body, files, finding);
  lintFiles(files, listed, finding);
  const { own, frontmatter, derived } = recordFields(front, name, body, listed, findings, finding);
  const whenToUse = whenToUseOf(front.description);
  if (frontmatter !== undefined) checkAgainstInstalled(frontmatter, context, finding);

  const hasScripts = listed.some((file) => file.kind === "script");
  return {
    report: report({ suggested_pack_id: own !== undefined ? "elnor-learned" : "agent-skills", requires_adapter: false }),
    bundle: {
      skill_name: clip(name, 80),
      format: own !== undefined ? "elnor_export" : "agent_skills",
      description: clip(front.description, 4000),
      ...(front.license === undefined ? {} : { license: clip(front.license, 500) }),
      ...(front.compatibility === undefined ? {} : { compatibility: clip(front.compatibility, 1000) }),
      ...(frontmatter === undefined ? {} : { frontmatter }),
      when_to_use: whenToUse,
      derived: hasScripts && own === undefined ? [...derived, "portability: needs a runtime for its scripts"] : derived,
      ...base,
    },
    files,
  };
}
