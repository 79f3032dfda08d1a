// The reference desktop adapter (issue #4): a small CLI that runs a command and reports it to the
// agent as `process_launch` and `terminal_command` observations, through the same documented local
// API any third-party adapter would use. Arguments that look like secrets are masked before they
// leave this process. While no session captures this computer it sends nothing at all (issue #30):
// the program runs, and an event seen outside a capture is dropped here, never sent.
//
//   npm run adapter -- --register                 say "I am here" (healthy for 90 s)
//   npm run adapter -- <program> [args...]        run it and report it to the current session
//
// Environment: ELNOR_AGENT_URL (default http://127.0.0.1:47630), ELNOR_TOKEN (default: read from
// $ELNOR_MEMORY/system/agent/token), ELNOR_SESSION (default: the agent's current session).
// The capture state is read from $ELNOR_MEMORY (capture-state.ts); with ELNOR_TOKEN alone the
// adapter asks the agent for it instead.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { ObservationBatchAckSchema } from "../../shared/observation/capture-protocol";
import { maskCommandArguments } from "../../shared/observation/command-masking";
import type { ObservedActionEventWithDetail } from "../../shared/learning/observed-actions/observed-action";
import { DEFAULT_AGENT_URL } from "../../shared/common/agent-address";
import { agentClient, heartbeat, resolveToken } from "./adapter-client";
import { capturingSession } from "./capture-state";

async function main(argv: string[]): Promise<number> {
  const call = agentClient(process.env.ELNOR_AGENT_URL ?? DEFAULT_AGENT_URL, await resolveToken());
  if (argv[0] === "--register") {
    await heartbeat(call, ["process_launch", "terminal_command"]);
    process.stderr.write("elnor-learn desktop adapter registered.\n");
    return 0;
  }
  const [program, ...args] = argv;
  if (program === undefined) {
    process.stderr.write("usage: npm run adapter -- --register | <program> [args...]\n");
    return 2;
  }
  // Asked at launch and again at exit: a Stop while the program ran silences its end as well.
  const atLaunch = await capturingSession(call);
  if (atLaunch !== undefined) await heartbeat(call, ["process_launch", "terminal_command"]);
  const sessionId = atLaunch?.learn_session_id ?? "";
  const programName = path.basename(program);
  const maskedArgs = maskCommandArguments(args, program);
  const shown = [programName, ...maskedArgs].join(" ").slice(0, 200);
  const event = (kind: "process_launch" | "terminal_command", label: string, extra: Partial<ObservedActionEventWithDetail["desktop_detail"]>) => ({
    event_id: randomUUID(),
    learn_session_id: sessionId,
    adapter_kind: kind,
    app_family: programName.toLowerCase(),
    window_title: `Terminal — ${path.basename(process.cwd())}`.slice(0, 200),
    action_label: label.slice(0, 240),
    control_surface: "wrapper_script",
    redaction_mode: "mask_text",
    created_at: new Date().toISOString(),
    schema_version: 1,
    desktop_detail: { program: programName, args: maskedArgs, cwd_name: path.basename(process.cwd()), ...extra },
  });
  const report = async (events: unknown[]) => {
    const ack = ObservationBatchAckSchema.parse(
      await call("POST", "/api/observations/events", { batch_id: randomUUID(), events, snapshots: [], schema_version: 1 }),
    );
    for (const rejected of ack.rejected) process.stderr.write(`elnor-learn: event not recorded (${rejected.code}): ${rejected.reason}\n`);
  };

  if (atLaunch !== undefined) await report([event("process_launch", `Launch '${programName}'`, {})]);
  const started = Date.now();
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(program, args, { stdio: "inherit" });
    child.on("error", () => resolve(127));
    child.on("exit", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  });
  const atExit = atLaunch === undefined ? undefined : await capturingSession(call);
  if (atExit !== undefined && atExit.learn_session_id === sessionId) {
    await report([event("terminal_command", `Run '${shown}'`, { exit_code: exitCode, duration_ms: Date.now() - started })]);
  }
  return exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`elnor-learn desktop adapter: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
