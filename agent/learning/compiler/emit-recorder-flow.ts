import { replayableUrl } from "../../../shared/observation/url-rule";
import type { Interpretation } from "./interpret";
import type { NormalizedStep } from "./normalize-trace";
import { parametersByValueRef } from "./parameters";

/**
 * What else is known of a step's element, for relocating it when every selector misses (issue
 * #14, execution/target-relocation.ts): its role and name, and the row it sits in — by the
 * parameter whose value the row shows, or by position. Recorder parsers ignore the field.
 */
export interface RelocationHint {
  role?: string | undefined;
  name?: string | undefined;
  row_parameter?: string | undefined;
  /** The text of the row it sits in, when that names the row (page-diff.ts `row_text`). */
  row_text?: string | undefined;
  row_position?: number | undefined;
}

/**
 * A step of the Chrome DevTools Recorder format (the subset we emit). `confirm: true` marks a step
 * with consequences the executor asks the person about before doing it (issue #21); Recorder parsers
 * ignore the field. `timeout` (ms) is the Recorder's own per-step wait: how long this step waits for
 * its element or page instead of the run's step wait (set by practice for content that loads late).
 */
export type RecorderStep =
  | { type: "setViewport"; width: number; height: number; deviceScaleFactor: number; isMobile: boolean; hasTouch: boolean; isLandscape: boolean }
  | { type: "navigate"; url: string; timeout?: number }
  | { type: "click"; selectors: string[][]; offsetX: number; offsetY: number; frame?: number[]; hint?: RelocationHint; confirm?: boolean; timeout?: number }
  | { type: "change"; selectors: string[][]; value: string; frame?: number[]; hint?: RelocationHint; confirm?: boolean; timeout?: number }
  | { type: "keyDown"; key: string; confirm?: boolean }
  | { type: "keyUp"; key: string }
  | { type: "waitForElement"; selectors: string[][]; timeout?: number };

export interface RecorderFlow {
  title: string;
  steps: RecorderStep[];
  /**
   * For each entry of `steps`, the normalized step it replays (null for set-up steps), so a
   * rehearsal can check each checkpoint after its last step. Recorder parsers ignore the field.
   */
  step_ids: Array<string | null>;
}

const KEY = /^Press (Enter|Escape|Tab)/;

/**
 * The demonstration as a Chrome DevTools Recorder flow (DESIGN §6.3): ordered selector
 * alternatives per step, and `{{parameter}}` placeholders where a value was typed — never the
 * value. A rehearsal replays it; SKILL.md never contains it.
 */
export function emitRecorderFlow(interpretation: Interpretation, steps: readonly NormalizedStep[]): RecorderFlow {
  const out: RecorderStep[] = [{ type: "setViewport", width: 1280, height: 800, deviceScaleFactor: 1, isMobile: false, hasTouch: false, isLandscape: true }];
  const stepIds: Array<string | null> = [null];
  const push = (stepId: string | null, ...recorded: RecorderStep[]) => {
    for (const step of recorded) {
      out.push(step);
      stepIds.push(stepId);
    }
  };
  const firstUrl = steps.find((step) => step.page_url !== undefined)?.page_url;
  const parameterOf = new Map(interpretation.parameters.flatMap((parameter) => parameter.step_ids.map((stepId) => [stepId, parameter] as const)));
  const byRef = parametersByValueRef(steps, interpretation.parameters);
  /** A recorded address as the flow opens it: typed values as their parameters, secrets never (undefined: not openable). */
  const replay = (url: string): string | undefined => replayableUrl(url, (ref) => byRef.get(ref));
  if (firstUrl !== undefined) {
    const start = replay(firstUrl) ?? siteRoot(firstUrl);
    if (start !== undefined) push(null, { type: "navigate", url: start });
  }
  for (const step of steps) {
    const frame = {
      ...(step.frame_path !== undefined && step.frame_path.length > 0 ? { frame: step.frame_path } : {}),
      ...(interpretation.targets?.[step.step_id] !== undefined ? { hint: interpretation.targets[step.step_id] } : {}),
    };
    if (step.selectors.length === 0 && step.action !== "navigate" && step.action !== "press") continue;
    switch (step.action) {
      case "navigate": {
        // An address with a secret in its path is not opened: the flow stays where the last step left it.
        const url = step.page_url === undefined || step.page_url === firstUrl ? undefined : replay(step.page_url);
        if (url !== undefined) push(step.step_id, { type: "navigate", url });
        break;
      }
      case "fill": {
        const parameter = parameterOf.get(step.step_id);
        push(step.step_id, { type: "change", selectors: step.selectors, value: parameter !== undefined ? `{{${parameter.name}}}` : "", ...frame });
        break;
      }
      case "upload":
        break;
      case "press": {
        const key = KEY.exec(step.label)?.[1];
        if (key !== undefined) push(step.step_id, { type: "keyDown", key }, { type: "keyUp", key });
        break;
      }
      case "click":
      case "toggle":
      case "select":
        push(step.step_id, { type: "click", selectors: step.selectors, offsetX: 1, offsetY: 1, ...frame });
        break;
      case "submit":
        // A form cannot be clicked; a submit not folded into its button's click has no replayable gesture.
        break;
      case "command":
      case "launch":
        break;
      default: {
        const unreachable: never = step.action;
        throw new Error(`unknown step action ${String(unreachable)}`);
      }
    }
  }
  return { title: interpretation.title, steps: out, step_ids: stepIds };
}

/** Where a demonstration that started on an address with a secret in its path starts again: its site's root. */
function siteRoot(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? `${parsed.origin}/` : undefined;
  } catch {
    return undefined;
  }
}
