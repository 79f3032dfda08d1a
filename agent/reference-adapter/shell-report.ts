// The reporter behind shell-integration.sh: called by the shell after each command, in the
// background, it sends that command to the agent as a `terminal_command` event — masked first —
// when a learning session captures this computer, and sends nothing otherwise: not the event, not
// a heartbeat, not a question (capture-state.ts reads the agent's state from its memory).
//
//   shell-report.ts --register                                          heartbeat only (the shell's presence timer)
//   shell-report.ts --exit <code> --started-at <epoch ms> --duration-ms <ms> --cwd <dir> --shell <name> -- <command line>
import { randomUUID } from "node:crypto";
import { ObservationBatchAckSchema } from "../../shared/observation/capture-protocol";
import { DEFAULT_AGENT_URL } from "../../shared/common/agent-address";
import { agentClient, heartbeat, resolveToken } from "./adapter-client";
import { capturingSession } from "./capture-state";
import { sessionTakesCommands, shellCommandEvent } from "./shell-command";

function option(argv: readonly string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  const separator = argv.indexOf("--");
  return index >= 0 && (separator < 0 || index < separator) ? argv[index + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const call = agentClient(process.env.ELNOR_AGENT_URL ?? DEFAULT_AGENT_URL, await resolveToken());
  if (argv[0] === "--register") {
    await heartbeat(call, ["terminal_command"]);
    return 0;
  }
  const separator = argv.indexOf("--");
  const line = separator < 0 ? "" : argv.slice(separator + 1).join(" ");
  const startedMs = Number.parseInt(option(argv, "--started-at") ?? "", 10);
  const startedAt = Number.isFinite(startedMs) ? new Date(startedMs) : undefined;
  const session = await capturingSession(call);
  if (!sessionTakesCommands(session, startedAt)) return 0;
  const event = shellCommandEvent(
    {
      line,
      exitCode: Number.parseInt(option(argv, "--exit") ?? "0", 10) || 0,
      durationMs: Number.parseInt(option(argv, "--duration-ms") ?? "0", 10) || 0,
      cwd: option(argv, "--cwd") ?? process.cwd(),
      startedAt,
    },
    { sessionId: session.learn_session_id, eventId: randomUUID(), now: new Date(), shell: option(argv, "--shell") ?? "shell" },
  );
  if (event === undefined) return 0;
  const ack = ObservationBatchAckSchema.parse(
    await call("POST", "/api/observations/events", { batch_id: randomUUID(), events: [event], snapshots: [], schema_version: 1 }),
  );
  for (const rejected of ack.rejected) process.stderr.write(`elnor-learn: command not recorded (${rejected.code}): ${rejected.reason}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Never in the person's way: one line on stderr (the shell sends it to /dev/null unless debugging).
    process.stderr.write(`elnor-learn shell reporter: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
