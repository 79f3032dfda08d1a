import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentLoggerOptions, buildApp } from "./app/app";
import { readAgentConfig } from "./config";
import { readRefinerConfig } from "./learning/refiner/model-refiner";
import { isAppError } from "./errors/app-error";
import { openMemoryStore } from "./memory/memory-store";
import { loadOrCreateAgentToken } from "./security/agent-token";
import { startupBanner } from "./startup-banner";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

async function main(): Promise<void> {
  const config = readAgentConfig();
  const memory = await openMemoryStore({ root: config.memoryRoot });
  const refiner = readRefinerConfig();
  const app = await buildApp({
    memory,
    port: config.port,
    openclawWorkspace: config.openclawWorkspace,
    skillFolders: config.skillFolders,
    refiner,
    logger: agentLoggerOptions(process.env.ELNOR_LOG_LEVEL ?? "warn"),
  });
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "closing");
    await app.close();
    await memory.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void close("SIGINT"));
  process.on("SIGTERM", () => void close("SIGTERM"));
  // Reading the memory leaves its garbage (log chunks decoded and parsed); collected once here,
  // before listening, rather than carried by an idle agent (issue 17). `npm start` runs node with
  // --expose-gc (agent/agent-bundle.ts); without it, nothing happens.
  (globalThis as { gc?: () => void }).gc?.();
  // Issue 32: the token for the banner is read before listening. Read after, its file read let the
  // first retention sweep (scheduled when ready) run first and hold the banner back while it read
  // every session.
  const token = await loadOrCreateAgentToken(memory);
  const url = await app.listen({ host: "127.0.0.1", port: config.port });
  process.stdout.write(startupBanner({ url, memoryRoot: memory.root, token, projectRoot, refiner }));
}

main().catch((error: unknown) => {
  if (isAppError(error)) {
    process.stderr.write(`elnor-learn agent did not start: ${error.message} [${error.code}]\n`);
  } else {
    process.stderr.write(`elnor-learn agent did not start: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
});
