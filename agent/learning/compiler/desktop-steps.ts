import type { ObservedActionEventWithDetail } from "../../../shared/learning/observed-action";
import { MASKED_ARGUMENT } from "../../../shared/observation/command-masking";
import type { AnswersByField, CheckpointPlan, Interpretation, SkillParameter } from "./interpret";
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

type ArgumentKind = { name: string; label: string; type_hint: SkillParameter["type_hint"] };

/** git subcommands whose positional arguments are branch names (after the remote for push/pull). */
const GIT_BRANCH_COMMANDS = new Set(["checkout", "switch", "merge", "rebase", "branch", "push", "pull"]);

/** Why an argument is an input the user gives each time, or undefined when it is part of the routine. */
function inputKind(args: readonly string[], index: number, program: string): ArgumentKind | undefined {
  const arg = args[index] as string;
  const previous = index > 0 ? args[index - 1] : undefined;
  if (arg.startsWith("-") && !arg.includes("=")) return undefined;
  if (arg.includes(MASKED_ARGUMENT)) {
    const flag = (arg.includes("=") ? arg.split("=")[0] : previous)?.replace(/^-+/, "");
    const named = flag !== undefined && flag.length > 2 ? flag : undefined;
    return { name: slugify(named ?? "secret") || "secret", label: named ?? "Secret", type_hint: "secret" };
  }
  const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
  const flag = arg.includes("=") ? arg.split("=")[0]?.replace(/^-+/, "") : previous?.startsWith("-") === true ? previous.replace(/^-+/, "") : undefined;
  // `--host x` names its input; `-f x` does not say enough, so the value's kind names it.
  const flagName = flag !== undefined && flag.length > 2 ? flag : undefined;
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
  if (/^(\d{1,3}\.){3}\d{1,3}$/.test(value) || /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(value) && !/\.(tar|gz|zip|txt|md|json|ya?ml|csv|log|sh|js|ts|py|sql)$/i.test(value)) {
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
        plans.set(step.step_id, { step, template: step.label, exitCode: undefined, receipt: true });
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
      const prefix = arg.includes("=") && !arg.startsWith("=") ? `${arg.slice(0, arg.indexOf("=") + 1)}` : "";
      return `${prefix}{{${parameter.name}}}`;
    });
    plans.set(step.step_id, { step, template: [detail.program, ...words].join(" "), exitCode: detail.exit_code, receipt: false });
  }
  if (plans.size === 0) return interpretation;

  const checkpoints: CheckpointPlan[] = interpretation.checkpoints.map((checkpoint) => {
    const inStage = checkpoint.step_ids.map((id) => plans.get(id)).filter((plan): plan is CommandPlan => plan !== undefined);
    const last = inStage.at(-1);
    if (last === undefined) return checkpoint;
    const success = last.receipt
      ? `The ${last.step.label} receipt is recorded`
      : last.exitCode === undefined
        ? `\`${last.template}\` has started`
        : `\`${last.template}\` ran and exited with code ${last.exitCode}`;
    return {
      ...checkpoint,
      goal: (last.step.user_labelled ? last.step.label : last.receipt ? last.step.label : `Run \`${last.template}\``).slice(0, 240),
      success_condition: success.slice(0, 240),
      // A terminal is not a page: the command itself says where it runs.
      where: undefined,
      controls: inStage.map((plan) => ({ name: plan.template.slice(0, 200), role: plan.receipt ? "receipt" : "terminal command" })),
      observable: true,
    };
  });
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
