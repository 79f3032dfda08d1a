import { randomUUID } from "node:crypto";
import type { ApiErrorIssue } from "../../../shared/common/error-envelope";
import type { AbilityRunSpec, StartRunRequest } from "../../../shared/execution/run-contract";
import { TestPolicySchema, type TestPolicy } from "../../../shared/learning/sessions/test-policy";
import { AppError } from "../../errors/app-error";

/** A site as `allowed_sites` and `allowed_domains` name it: a host name, with a port or not. */
const SITE = /^(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*(?::\d{1,5})?$/i;

/** At most this many actions in one run (§0C.14 `max_actions` allows up to 200). */
export const RUN_MAX_ACTIONS = 200;

/** What is wrong with a value for an input of this type (never quoting the value), or undefined. */
function typeProblem(type: AbilityRunSpec["inputs"][number]["type"], value: string): string | undefined {
  const trimmed = value.trim();
  switch (type) {
    case "email":
      return /^[^\s@]+@[^\s@]+$/.test(trimmed) ? undefined : "must be an email address";
    case "number":
      return trimmed !== "" && Number.isFinite(Number(trimmed.replace(/[\s,]/g, ""))) ? undefined : "must be a number";
    case "url":
      return URL.canParse(trimmed) ? undefined : "must be an address (URL)";
    case "date":
      return Number.isNaN(Date.parse(trimmed)) ? "must be a date (for example 2026-03-31)" : undefined;
    case "text":
    case "long_text":
    case "phone":
    case "secret":
    case "file":
      return undefined;
    default: {
      const unknown: never = type;
      throw new Error(`unknown input type ${String(unknown)}`);
    }
  }
}

/**
 * Checks a start request against the ability's run-spec before anything is written: every input
 * named is one the ability has, every required one is given, typed values have their type's shape (email, number, URL, date), allowed sites are host names, and a
 * tab is named only for a run in the user's tab. Problems come back together as REQUEST_INVALID
 * issues; no input value is ever quoted in them.
 */
export function validateRunRequest(request: StartRunRequest, spec: AbilityRunSpec): void {
  const issues: ApiErrorIssue[] = [];
  const known = new Set(spec.inputs.map((input) => input.name));
  for (const name of Object.keys(request.inputs)) {
    if (!known.has(name))
      issues.push({
        path: `inputs.${name}`.slice(0, 240),
        message: `"${name}" is not an input of this ability (its inputs: ${[...known].join(", ") || "none"}).`.slice(0, 240),
      });
  }
  for (const input of spec.inputs) {
    const value = request.inputs[input.name];
    if (value === undefined) {
      if (input.required) issues.push({ path: `inputs.${input.name}`.slice(0, 240), message: `"${input.label}" is required.`.slice(0, 240) });
      continue;
    }
    const problem = typeProblem(input.type, value);
    if (problem !== undefined) issues.push({ path: `inputs.${input.name}`.slice(0, 240), message: `"${input.label}" ${problem}.`.slice(0, 240) });
  }
  request.allowed_sites.forEach((site, index) => {
    if (!SITE.test(site))
      issues.push({
        path: `allowed_sites.${index}`,
        message: "A site is a host name, optionally with a port (shop.example.com, 127.0.0.1:8080), without scheme or path.",
      });
  });
  if (request.tab_id !== undefined && request.where !== "user_tab")
    issues.push({ path: "tab_id", message: "tab_id names a tab of your browser: use it with where: user_tab." });
  if (issues.length > 0)
    throw new AppError("REQUEST_INVALID", issues.length === 1 ? (issues[0] as ApiErrorIssue).message : "The run request has problems; see issues.", {
      issues: issues.slice(0, 20),
    });
}

const normalized = (site: string) =>
  site
    .trim()
    .toLowerCase()
    .replace(/^\*?\./, "");

/**
 * The run's §0C.14 policy. A run touches only the ability's sites and the ones allowed for this
 * run. A `test_policy` in the request is obeyed exactly, once its allowed domains are within those
 * sites (TEST_POLICY_VIOLATION otherwise). Without one, the run gets `live_read_safe_write`: the
 * task is done for real on its own sites (a committing step still waits for the person), while
 * `forbid_external_send` keeps every write on the page's own origin and `forbid_destructive_writes`
 * refuses DELETE requests and dismisses a page's own "are you sure?" dialog unless they come during a
 * step the person confirmed (the executor lets them through then, ExecuteInput.onBehalfOfPerson).
 * The page's own reads of other hosts (fonts, scripts, images from a CDN) go through; a document off
 * the sites does not. `max_actions` is the schema's ceiling, 200.
 */
export function runPolicyOf(request: StartRunRequest, spec: AbilityRunSpec): TestPolicy {
  const sites = [...new Set([...spec.sites, ...request.allowed_sites].map(normalized))];
  if (request.test_policy !== undefined) {
    const outside = request.test_policy.allowed_domains.filter((domain) => !sites.includes(normalized(domain)));
    if (outside.length > 0) {
      throw new AppError(
        "TEST_POLICY_VIOLATION",
        `The test policy allows ${outside.join(", ")}, outside this ability's sites (${sites.join(", ") || "none"}); add them to allowed_sites to allow them for this run.`.slice(
          0,
          240,
        ),
      );
    }
    return request.test_policy;
  }
  return TestPolicySchema.parse({
    policy_id: randomUUID(),
    mode: "live_read_safe_write",
    forbid_destructive_writes: true,
    forbid_external_send: true,
    allowed_domains: sites,
    max_actions: RUN_MAX_ACTIONS,
    schema_version: 1,
  });
}
