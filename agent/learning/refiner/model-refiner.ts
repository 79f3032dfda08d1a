import { createTypedValueScrubber } from "../../../shared/observation/typed-value-scrubber";
import { z } from "zod";
import { RefinementOutcomeSchema } from "../../../shared/learning/route-contracts";
import { lintCheckpoints } from "../compiler/checkpoints/checkpoint-lint";
import type { Interpretation } from "../compiler/interpret";

/**
 * DESIGN §6 step 4: an optional model refiner. When the user configures an OpenAI-compatible
 * endpoint and model, the deterministic interpretation's wording (title, goal, when / when not to
 * use, triggers, checkpoint goals and success conditions) is offered to the model for better
 * phrasing. Its answer must pass the same schema and the checkpoint lint; anything else — an
 * error, a timeout, a malformed or rule-breaking answer — leaves the deterministic wording in place.
 */
export interface RefinerConfig {
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}

/** The part of an interpretation the refiner may reword; everything else is the compiler's. */
export const RefinableWordingSchema = z.strictObject({
  title: z.string().trim().min(3).max(120),
  goal_summary: z.string().trim().min(8).max(600),
  use_conditions: z.array(z.string().trim().min(3).max(240)).min(1).max(8),
  non_use_conditions: z.array(z.string().trim().min(3).max(240)).max(8),
  triggers: z.array(z.string().trim().min(3).max(120)).min(1).max(12),
  negative_triggers: z.array(z.string().trim().min(3).max(120)).max(12),
  checkpoints: z.array(
    z.strictObject({
      checkpoint_id: z.string(),
      goal: z.string().trim().min(8).max(300),
      success_condition: z.string().trim().min(8).max(300),
    }),
  ),
});
export type RefinableWording = z.infer<typeof RefinableWordingSchema>;

export type RefinementOutcome = z.infer<typeof RefinementOutcomeSchema>;

const MAX_TIMEOUT_MS = 25_000;

/** Reads the refiner's settings from the environment; `undefined` when none is configured. */
export function readRefinerConfig(env: NodeJS.ProcessEnv = process.env): RefinerConfig | undefined {
  const baseUrl = env.ELNOR_REFINER_URL?.trim();
  const model = env.ELNOR_REFINER_MODEL?.trim();
  if (!baseUrl || !model) return undefined;
  const timeout = Number(env.ELNOR_REFINER_TIMEOUT_MS ?? "");
  return {
    baseUrl: z.string().url().parse(baseUrl).replace(/\/+$/, ""),
    model,
    apiKey: env.ELNOR_REFINER_API_KEY?.trim() || undefined,
    // Generation waits for the model; the side panel gives a generate or revise 30 s in all.
    timeoutMs: Number.isInteger(timeout) && timeout > 0 ? Math.min(timeout, MAX_TIMEOUT_MS) : 15_000,
  };
}

export function wordingOf(interpretation: Interpretation): RefinableWording {
  return {
    title: interpretation.title,
    goal_summary: interpretation.goal_summary,
    use_conditions: interpretation.use_conditions,
    non_use_conditions: interpretation.non_use_conditions,
    triggers: interpretation.triggers,
    negative_triggers: interpretation.negative_triggers,
    checkpoints: interpretation.checkpoints.map(({ checkpoint_id, goal, success_condition }) => ({ checkpoint_id, goal, success_condition })),
  };
}

const INSTRUCTIONS = [
  "You improve the wording of a skill that an assistant learned from a person's demonstration in a web browser.",
  "Answer with one JSON object of exactly the same shape and keys as the one you are given, and nothing else.",
  "Keep every checkpoint, in the same order, with the same checkpoint_id. Do not add or remove checkpoints.",
  "Write goals and observable success conditions a person could check on the page, not click-by-click instructions.",
  "Never mention CSS selectors, element ids, XPath, screen coordinates or pixel positions.",
  "Never invent values: no email addresses, names, numbers or codes. Keep every {{parameter}} placeholder exactly as written and add no new ones.",
  "triggers are short requests a user might say to ask for this skill; negative_triggers are requests it must not be used for.",
].join("\n");

const ChatCompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

/** `{{name}}` placeholders in a text. */
function placeholdersIn(text: string): string[] {
  return [...text.matchAll(/\{\{\s*([\w.-]+)\s*\}\}/g)].map((match) => match[1] as string);
}

function allText(wording: RefinableWording): string[] {
  return [
    wording.title,
    wording.goal_summary,
    ...wording.use_conditions,
    ...wording.non_use_conditions,
    ...wording.triggers,
    ...wording.negative_triggers,
    ...wording.checkpoints.flatMap((checkpoint) => [checkpoint.goal, checkpoint.success_condition]),
  ];
}

/** Whether any text holds any of `values` by the shared typed-value rule (case, spacing, encodings, lines). */
function mentionsAny(texts: readonly string[], values: readonly string[]): boolean {
  const scrubber = createTypedValueScrubber(values);
  return scrubber.size > 0 && texts.some((text) => scrubber.contains(text));
}

/** Why a model's answer cannot replace the deterministic wording; `undefined` when it can. */
export function refusalOf(
  answer: RefinableWording,
  original: RefinableWording,
  parameters: readonly string[],
  literals: readonly string[],
): string | undefined {
  const ids = answer.checkpoints.map((checkpoint) => checkpoint.checkpoint_id);
  if (ids.join("\n") !== original.checkpoints.map((checkpoint) => checkpoint.checkpoint_id).join("\n")) {
    return "the answer changed the checkpoints (ids or order)";
  }
  const known = new Set(parameters);
  const unknown = allText(answer)
    .flatMap(placeholdersIn)
    .filter((name) => !known.has(name));
  if (unknown.length > 0) return `the answer used unknown parameters: ${[...new Set(unknown)].join(", ")}`;
  if (mentionsAny(allText(answer), literals)) return "the answer contains a value typed during the demonstration";
  const lint = lintCheckpoints(answer.checkpoints, literals);
  if (!lint.passed) return `the answer failed the checkpoint lint (${[...new Set(lint.findings.map((finding) => finding.rule))].join(", ")})`;
  return undefined;
}

/**
 * Asks the configured model to reword `interpretation`. Returns the interpretation to use (the
 * refined one or the original, untouched) and what happened. Never throws.
 */
export async function refineInterpretation(
  config: RefinerConfig,
  interpretation: Interpretation,
  literals: readonly string[],
  fetchImpl: typeof fetch = globalThis.fetch,
): Promise<{ interpretation: Interpretation; outcome: RefinementOutcome }> {
  const keep = (reason: string) => ({
    interpretation,
    outcome: { used: "deterministic" as const, model: config.model.slice(0, 200), reason: reason.slice(0, 240) },
  });
  const original = wordingOf(interpretation);
  // A value the user consented to record stays on this machine: it is not sent anywhere.
  if (mentionsAny(allText(original), literals)) {
    return keep("the wording contains a value typed during the demonstration, so it was not sent");
  }
  let response: Response;
  try {
    response = await fetchImpl(`${config.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` }) },
      body: JSON.stringify({
        model: config.model,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: INSTRUCTIONS },
          { role: "user", content: JSON.stringify(original) },
        ],
      }),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (error) {
    return keep(error instanceof Error && error.name === "TimeoutError" ? `no answer within ${config.timeoutMs} ms` : "the endpoint could not be reached");
  }
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    return keep(`the endpoint answered ${response.status} without JSON`);
  }
  if (!response.ok) return keep(`the endpoint answered ${response.status}`);
  const completion = ChatCompletionSchema.safeParse(payload);
  if (!completion.success) return keep("the endpoint's answer is not a chat completion");
  let content: unknown;
  try {
    // Models often wrap JSON in a code fence; the object inside is what counts.
    content = JSON.parse((completion.data.choices[0]?.message.content ?? "").replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ""));
  } catch {
    return keep("the model's answer is not JSON");
  }
  const answer = RefinableWordingSchema.safeParse(content);
  if (!answer.success) return keep("the model's answer does not have the skill's shape");
  const refusal = refusalOf(
    answer.data,
    original,
    interpretation.parameters.map((parameter) => parameter.name),
    literals,
  );
  if (refusal !== undefined) return keep(refusal);
  const byId = new Map(answer.data.checkpoints.map((checkpoint) => [checkpoint.checkpoint_id, checkpoint]));
  return {
    interpretation: {
      ...interpretation,
      title: answer.data.title,
      goal_summary: answer.data.goal_summary,
      use_conditions: answer.data.use_conditions,
      non_use_conditions: answer.data.non_use_conditions,
      triggers: answer.data.triggers,
      negative_triggers: answer.data.negative_triggers,
      checkpoints: interpretation.checkpoints.map((checkpoint) => {
        const refined = byId.get(checkpoint.checkpoint_id);
        return refined === undefined ? checkpoint : { ...checkpoint, goal: refined.goal, success_condition: refined.success_condition };
      }),
    },
    outcome: { used: "model", model: config.model.slice(0, 200) },
  };
}
