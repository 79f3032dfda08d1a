import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-actions/observed-action";
import { MASKED_ARGUMENT } from "../../../shared/observation/command-masking";
import type { AnswersByField, Interpretation } from "./interpret";
import type { SkillParameter, CheckpointPlan } from "../../../shared/execution/checkpoint-plan";
import { slugify } from "./interpret";
import type { NormalizedStep, NormalizedTrace, StepAction } from "./normalize-trace";

/**
 * Desktop demonstrations (issue #18): what a terminal command, a program launch or a wrapper/MCP
 * receipt becomes in a skill. The browser compiler already cuts a stage at each command; this
 * module says what that stage proves — the command ran and exited with its code, or the receipt
 * was recorded — and which arguments the user will give anew each time (paths, hosts, branches,
 * names; a masked argument is a secret parameter, never its value). It runs after interpretTrace,
 * so the browser path is untouched.
 */

/** Desktop events the compiler keeps as steps (normalize-trace asks here). */
export function desktopAction(event: Pick<ObservedActionEventWithDetail, "adapter_kind">): StepAction | undefined {
  switch (event.adapter_kind) {
    case "terminal_command":
    case "wrapper_receipt":
    case "mcp_receipt":
      return "command";
    case "process_launch":
      return "launch";
    default:
      return undefined;
  }
}

/**
 * Exit statuses of a command the person stopped from the keyboard: Ctrl-C (SIGINT, 128 + 2) and
 * Ctrl-\ (SIGQUIT, 128 + 3), the same in bash, zsh and fish. Ctrl-Z (148) only suspends a command.
 */
const INTERRUPTED_EXIT_CODES: ReadonlySet<number> = new Set([130, 131]);

/**
 * A demonstration in a real terminal has slips: a mistyped program (exit 126/127, "command not
 * found"), a command that failed and was run again, corrected, right after, or a command the person
 * interrupted (Ctrl-C). None is part of the routine: an interrupted command did not do its work,
 * and a skill cannot learn "then press Ctrl-C" (a `tail -f` or a dev server watched and stopped is
 * the person looking, not a step to repeat). Any other failed command stays (and its checkpoint
 * says the exit code it had).
 */
export function dropFailedAttempts<T extends Pick<ObservedActionEventWithDetail, "adapter_kind" | "desktop_detail">>(
  events: readonly T[],
): { kept: T[]; dropped: number } {
  const commands = events.filter((event) => event.adapter_kind === "terminal_command" && event.desktop_detail !== undefined);
  const slips = new Set<T>();
  commands.forEach((event, index) => {
    const detail = event.desktop_detail!;
    if (detail.exit_code === undefined || detail.exit_code === 0) return;
    const next = commands[index + 1]?.desktop_detail;
    const mistyped = detail.exit_code === 126 || detail.exit_code === 127;
    const retried = next?.program === detail.program && next.exit_code === 0;
    if (mistyped || retried || INTERRUPTED_EXIT_CODES.has(detail.exit_code)) slips.add(event);
  });
  return { kept: events.filter((event) => !slips.has(event)), dropped: slips.size };
}

type ArgumentKind = { name: string; label: string; type_hint: SkillParameter["type_hint"] };

/** Words that join commands on one line (`a && b`, `a | b`): never an input. */
const CONTROL_WORD = /^(\||\|\||&&|;|&)$/;

/** A redirection glued to its file (`>notes.txt`, `2>>errors.log`): the operator, then the file. */
const GLUED_REDIRECT = /^([0-9&]?>>?)(.+)$/;

function stripRedirect(arg: string): string {
  return GLUED_REDIRECT.exec(arg)?.[2] ?? arg;
}

/**
 * The part of an argument that stays as typed, and the value that may be an input:
 * `>notes.txt` → `>` + `notes.txt`, `--out=x` → `--out=` + `x`, `-p«masked»` → `-p` + `«masked»`,
 * `deploy:«masked»` → `deploy:` + `«masked»` (the user stays, the password is the input).
 */
function splitArgument(arg: string): { prefix: string; value: string } {
  const redirect = GLUED_REDIRECT.exec(arg);
  if (redirect !== null) return { prefix: redirect[1] as string, value: redirect[2] as string };
  const masked = arg.indexOf(MASKED_ARGUMENT);
  if (masked > 0 && !arg.includes("=")) return { prefix: arg.slice(0, masked), value: arg.slice(masked) };
  if (arg.includes("=") && !arg.startsWith("=")) return { prefix: arg.slice(0, arg.indexOf("=") + 1), value: arg.slice(arg.indexOf("=") + 1) };
  return { prefix: "", value: arg };
}

/** Where a file the command writes is named (`> notes.txt`, `-o status.json`, `tar -czf out.tgz`, `touch`, `mkdir`, `cp … dest`). */
function outputIndexes(program: string, args: readonly string[]): number[] {
  const found: number[] = [];
  const isFile = (index: number) => {
    const word = args[index];
    return word !== undefined && !word.startsWith("-") && !CONTROL_WORD.test(word) && !word.startsWith("/dev/");
  };
  args.forEach((arg, index) => {
    const glued = GLUED_REDIRECT.exec(arg);
    if ((arg === ">" || arg === ">>" || arg === "1>") && isFile(index + 1)) found.push(index + 1);
    else if (glued !== null && !glued[1]?.startsWith("2") && !glued[1]?.startsWith("&") && !(glued[2] as string).startsWith("/dev/")) found.push(index);
    else if ((arg === "-o" || arg === "--output" || (arg === "-O" && program === "wget") || arg === "--output-document") && isFile(index + 1))
      found.push(index + 1);
    else if (/^--output(-document)?=./.test(arg)) found.push(index);
  });
  // The command's own words: up to the first `&&`, `|` or `;` (what follows is another command).
  const end = args.findIndex((word) => CONTROL_WORD.test(word));
  const own = end < 0 ? args.length : end;
  const positional = args.map((_, index) => index).filter((index) => index < own && isFile(index) && !found.includes(index));
  if (program === "tar") {
    const cluster = args.findIndex((word) => /^-?[a-zA-Z]*c[a-zA-Z]*f$/.test(word));
    if (cluster >= 0 && isFile(cluster + 1)) found.push(cluster + 1);
  } else if (program === "touch" || program === "mkdir") {
    found.push(...positional);
  } else if ((program === "cp" || program === "mv") && positional.length >= 2) {
    found.push(positional.at(-1) as number);
  }
  return [...new Set(found)].sort((a, b) => a - b);
}

/** git subcommands whose positional arguments are branch names (after the remote for push/pull). */
const GIT_BRANCH_COMMANDS = new Set(["checkout", "switch", "merge", "rebase", "branch", "push", "pull"]);

/** Why an argument is an input the user gives each time, or undefined when it is part of the routine. */
function inputKind(args: readonly string[], index: number, program: string): ArgumentKind | undefined {
  const arg = args[index] as string;
  const { prefix, value } = splitArgument(arg);
  const previous = index > 0 ? args[index - 1] : undefined;
  if (value === "" || CONTROL_WORD.test(arg) || value.startsWith("/dev/")) return undefined;
  // `cd releases`: the folder the routine works in is an input like any path.
  if ((program === "cd" || program === "pushd") && !arg.startsWith("-") && args.slice(0, index).every((word) => word.startsWith("-"))) {
    return { name: "folder", label: "Folder", type_hint: "text" };
  }
  if (value.includes(MASKED_ARGUMENT)) {
    // `--password x`, `--token=x`, `-p«masked»`, `-u deploy:«masked»`: what it is, from its flag when the flag says.
    const flag = (prefix.startsWith("-") ? prefix.replace(/=$/, "") : previous)?.replace(/^-+/, "");
    const named = flag !== undefined && flag.length > 2 ? flag : prefix.endsWith(":") || flag === "p" ? "password" : undefined;
    return { name: slugify(named ?? "secret") || "secret", label: named ?? "Secret", type_hint: "secret" };
  }
  if (arg.startsWith("-") && prefix === "") return undefined;
  const flag = prefix.startsWith("-")
    ? prefix.replace(/=$/, "").replace(/^-+/, "")
    : previous?.startsWith("-") === true
      ? previous.replace(/^-+/, "")
      : undefined;
  // `--host x` names its input; `-f x` or a cluster like `-czf x` does not say enough, so the value's kind names it.
  const named = prefix.startsWith("--") || previous?.startsWith("--") === true || (flag !== undefined && /^[a-z]{4,}$/i.test(flag) && /[aeiou]/i.test(flag));
  const flagName = flag !== undefined && flag.length > 2 && named ? flag : undefined;
  // `git commit -m "…"`, `gh pr create --title "…"`: text written for this one time is an input.
  const textOption = prefix.startsWith("-") ? prefix.replace(/=$/, "") : (previous ?? "");
  // (`git commit -am "…"`: git's -m may end a cluster of short options.)
  const textFlag = /^--?(m|message|msg|title|body|subject|description)$/.exec(program === "git" ? textOption.replace(/^-[a-z]+m$/, "-m") : textOption)?.[1];
  if (textFlag !== undefined) {
    const name = textFlag === "m" || textFlag === "msg" ? "message" : textFlag;
    return { name, label: name[0]!.toUpperCase() + name.slice(1), type_hint: "text" };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return { name: flagName ?? "url", label: flagName ?? "Address", type_hint: "url" };
  if (/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i.test(value)) return { name: flagName ?? "email", label: flagName ?? "Email", type_hint: "email" };
  if (program === "git") {
    const sub = args.findIndex((word) => !word.startsWith("-"));
    const subcommand = sub >= 0 ? args[sub] : undefined;
    if (subcommand !== undefined && GIT_BRANCH_COMMANDS.has(subcommand) && index > sub) {
      const positional = args.slice(sub + 1, index + 1).filter((word) => !word.startsWith("-"));
      const isRemote = (subcommand === "push" || subcommand === "pull") && positional.length === 1;
      if (!isRemote) return { name: "branch", label: "Branch", type_hint: "text" };
      return undefined;
    }
  }
  if (
    /^(\d{1,3}\.){3}\d{1,3}$/.test(value) ||
    (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(value) && !/\.(tar|gz|zip|txt|md|json|ya?ml|csv|log|sh|js|ts|py|sql)$/i.test(value))
  ) {
    return { name: flagName ?? "host", label: flagName ?? "Host", type_hint: "text" };
  }
  if (value.includes("/") || /^[^./][^/]*\.[a-z0-9]{1,5}$/i.test(value)) return { name: flagName ?? "path", label: flagName ?? "Path", type_hint: "text" };
  // A value given to a named option (`--name Ada`, `--env=staging`) is an input; bare words are the routine.
  if (flagName !== undefined && previous !== undefined && /^--?[a-z]/i.test(arg.includes("=") ? arg : previous)) {
    return { name: flagName, label: flagName, type_hint: /^\d+$/.test(value) ? "number" : "text" };
  }
  return undefined;
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = slugify(base) || "value";
  if (/^\d/.test(name)) name = `arg_${name}`;
  let unique = name;
  for (let n = 2; taken.has(unique); n += 1) unique = `${name}_${n}`;
  taken.add(unique);
  return unique;
}

/** The routine's command with its inputs as `{{parameters}}`. */
interface CommandPlan {
  step: NormalizedStep;
  template: string;
  exitCode: number | undefined;
  receipt: boolean;
  /** The files (or folders) the command writes, as templated words: they appear when it works. */
  outputs: string[];
}

/** A command stage's checkpoint: the last command's exit (or the receipt) and the files it left, confirmed by the person. */
function commandCheckpoint(checkpoint: CheckpointPlan, plans: ReadonlyMap<string, CommandPlan>): CheckpointPlan {
  const inStage = checkpoint.step_ids.map((id) => plans.get(id)).filter((plan): plan is CommandPlan => plan !== undefined);
  const last = inStage.at(-1);
  if (last === undefined) return checkpoint;
  const appeared = inStage.flatMap((plan) => plan.outputs).filter((file, index, all) => all.indexOf(file) === index);
  const files = appeared.length === 0 ? "" : `, and ${appeared.map((file) => `\`${file}\``).join(", ")} ${appeared.length === 1 ? "exists" : "exist"}`;
  const success = last.receipt
    ? `The ${last.step.label} receipt is recorded`
    : last.exitCode === undefined
      ? `\`${last.template}\` has started${files}`
      : `\`${last.template}\` ran and exited with code ${last.exitCode}${files}`;
  return {
    ...checkpoint,
    goal: (last.step.user_labelled ? last.step.label : last.receipt ? last.step.label : `Run \`${last.template}\``).slice(0, 240),
    success_condition: success.slice(0, 240),
    // A terminal is not a page: the command itself says where it runs.
    where: undefined,
    controls: inStage.map((plan) => ({ name: plan.template.slice(0, 200), role: plan.receipt ? "receipt" : "terminal command" })),
    observable: true,
    // Validation runs no command on this computer: the person confirms it, and the reason says why.
    verification: {
      by: "person",
      reason: last.receipt
        ? "A receipt from a program on this computer: validation cannot produce one, so you confirm it was recorded."
        : "A command on this computer: validation runs no command, so you confirm how it ended and what it left.",
    },
  };
}

/**
 * Turns the desktop stages of an interpretation into checkpoints a runtime agent can confirm,
 * with the commands' inputs as parameters. Browser stages are returned as they were.
 */
export function applyDesktopSteps(
  interpretation: Interpretation,
  trace: NormalizedTrace,
  events: readonly ObservedActionEventWithDetail[],
  answers: AnswersByField,
): Interpretation {
  const eventById = new Map(events.map((event) => [event.event_id, event]));
  const taken = new Set(interpretation.parameters.map((parameter) => parameter.name));
  const parameters = interpretation.parameters.map((parameter) => ({ ...parameter, step_ids: [...parameter.step_ids] }));
  const byValue = new Map<string, SkillParameter>();
  const plans = new Map<string, CommandPlan>();

  for (const step of trace.steps) {
    if (step.action !== "command" && step.action !== "launch") continue;
    const event = step.event_ids.map((id) => eventById.get(id)).find((candidate) => candidate !== undefined);
    if (event === undefined) continue;
    const detail = event.desktop_detail;
    if (detail === undefined) {
      if (event.adapter_kind === "wrapper_receipt" || event.adapter_kind === "mcp_receipt") {
        plans.set(step.step_id, { step, template: step.label, exitCode: undefined, receipt: true, outputs: [] });
      }
      continue;
    }
    const words = detail.args.map((arg, index) => {
      const kind = inputKind(detail.args, index, detail.program);
      if (kind === undefined) return arg;
      // The same value typed twice is one input; masked values are never compared.
      const key = kind.type_hint === "secret" ? undefined : `${kind.name}\u0000${arg}`;
      let parameter = key === undefined ? undefined : byValue.get(key);
      if (parameter === undefined) {
        parameter = { name: uniqueName(kind.name, taken), label: kind.label.slice(0, 80), type_hint: kind.type_hint, step_ids: [] };
        parameters.push(parameter);
        if (key !== undefined) byValue.set(key, parameter);
      }
      if (!parameter.step_ids.includes(step.step_id)) parameter.step_ids.push(step.step_id);
      const { prefix } = splitArgument(arg);
      return `${prefix}{{${parameter.name}}}`;
    });
    const outputs = outputIndexes(detail.program, detail.args).map((index) => stripRedirect(words[index] as string));
    plans.set(step.step_id, { step, template: [detail.program, ...words].join(" "), exitCode: detail.exit_code, receipt: false, outputs });
  }
  if (plans.size === 0) return interpretation;

  const checkpoints = interpretation.checkpoints.map((checkpoint) => commandCheckpoint(checkpoint, plans));
  const allObservable = checkpoints.every((checkpoint) => checkpoint.observable);
  const questions =
    allObservable && answers.success_condition === undefined
      ? interpretation.questions.filter((question) => question.field !== "success_condition")
      : interpretation.questions;
  // The graph's verification steps say what the checkpoints say.
  const byId = new Map(checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint]));
  const graph = {
    ...interpretation.graph,
    steps: interpretation.graph.steps.map((step) => {
      const checkpoint = step.verification_rule_ref === undefined ? undefined : byId.get(step.verification_rule_ref);
      return checkpoint === undefined ? step : { ...step, label: checkpoint.goal, description: checkpoint.success_condition };
    }),
  };
  return { ...interpretation, parameters, checkpoints, questions, graph };
}
