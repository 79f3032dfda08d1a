import type { RecorderFlow, RecorderStep } from "../../../shared/execution/recorder-flow";
import { replayableUrl } from "../../../shared/observation/url-rule";
import type { Interpretation } from "./interpret";
import type { NormalizedStep } from "./normalize-trace";
import { parametersByValueRef } from "./parameters";

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
