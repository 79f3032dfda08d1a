import { readFile } from "node:fs/promises";
import path from "node:path";
import { LearnSessionSchema, type LearnSession } from "../../shared/learning/sessions/learn-session";
import { LearningRuntimeSnapshotSchema, type LearningRuntimeSnapshot } from "../../shared/learning/sessions/runtime-snapshot";
import { memoryRootOf, type AgentCall } from "./adapter-client";

/**
 * Whether a session captures this computer now, and so whether the reference adapters may send
 * anything about what the person does (issue #30: adapters go quiet at Stop).
 *
 * The agent keeps its answer in `ELNOR_MEMORY/system/learning/runtime/current.json` (§0C.7,
 * rewritten atomically on every session change, absent when there is no session): the adapters
 * read it where they read the token, so a command typed while nothing captures makes no request
 * at all — the agent cannot even tell that it was typed. Only when the session may take commands
 * do they ask the agent for its detail. An adapter given ELNOR_TOKEN without ELNOR_MEMORY cannot
 * see that file and asks the agent instead (`GET /api/learn/runtime/current`, no content sent).
 */

/** States in which a command belongs to the demonstration: armed (the first one starts it) and capturing. */
export const REPORTING_STATES: ReadonlySet<LearnSession["state"]> = new Set(["armed", "capturing"]);

export type LocalRuntime =
  /** The agent's own view, read from its memory: a session, or `undefined` when there is none. */
  | { known: true; runtime: LearningRuntimeSnapshot | undefined }
  /** No view on this computer (ELNOR_TOKEN given for an agent whose memory is elsewhere). */
  | { known: false };

/** The runtime view where the token comes from; never a guess at another agent's memory. */
export async function readLocalRuntime(env: NodeJS.ProcessEnv = process.env): Promise<LocalRuntime> {
  // With ELNOR_TOKEN alone, the default memory folder may belong to another agent than ELNOR_AGENT_URL's.
  if (env.ELNOR_TOKEN && !env.ELNOR_MEMORY) return { known: false };
  const root = memoryRootOf(env);
  // Unreadable for another reason (permissions): no local view, ask the agent rather than fail the command.
  const text = await readFile(path.join(root, "system", "learning", "runtime", "current.json"), "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? null : undefined,
  );
  if (text === undefined) return { known: false };
  if (text === null) {
    // No current session, if this really is an agent's memory (its token is there).
    const isMemory = await readFile(path.join(root, "system", "agent", "token"), "utf8").then(
      () => true,
      () => false,
    );
    return isMemory ? { known: true, runtime: undefined } : { known: false };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { known: false };
  }
  const parsed = LearningRuntimeSnapshotSchema.safeParse(value);
  return parsed.success ? { known: true, runtime: parsed.data } : { known: false };
}

/** What the runtime view alone says: this computer may be watched now (the detail decides the rest). */
export function mayTakeCommands(runtime: Pick<LearningRuntimeSnapshot, "state" | "observation_mode"> | undefined): boolean {
  return runtime !== undefined && REPORTING_STATES.has(runtime.state) && (runtime.observation_mode === "outside_agent" || runtime.observation_mode === "mixed");
}

/**
 * The session that captures now and may take this computer's commands, or `undefined`, in which
 * case nothing may be sent. No request is made when the local view already says no.
 */
export async function capturingSession(call: AgentCall, env: NodeJS.ProcessEnv = process.env): Promise<LearnSession | undefined> {
  const local = await readLocalRuntime(env);
  let sessionId: string;
  if (local.known) {
    if (!mayTakeCommands(local.runtime) || local.runtime === undefined) return undefined;
    sessionId = local.runtime.learn_session_id;
  } else {
    const runtime = LearningRuntimeSnapshotSchema.safeParse(await call("GET", "/api/learn/runtime/current").catch(() => undefined));
    if (!runtime.success || !mayTakeCommands(runtime.data)) return undefined;
    sessionId = runtime.data.learn_session_id;
  }
  const detail = LearnSessionSchema.safeParse(await call("GET", `/api/learn/sessions/${env.ELNOR_SESSION ?? sessionId}/detail`).catch(() => undefined));
  return detail.success && REPORTING_STATES.has(detail.data.state) ? detail.data : undefined;
}
