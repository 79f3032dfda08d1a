import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_NODE_FLAGS } from "../agent-bundle";

export const serverScript = fileURLToPath(new URL("../server.ts", import.meta.url));
export const projectRoot = path.resolve(path.dirname(serverScript), "..");

/**
 * How a test starts the agent: the agent compiled from the current sources by vitest's global
 * set-up (`agent-bundle-setup.ts`) with npm start's node flags, or, outside vitest, the sources
 * through tsx.
 */
export function testAgentNodeArgs(): readonly string[] {
  const bundle = process.env.ELNOR_TEST_AGENT_BUNDLE;
  return bundle === undefined || bundle === "" ? ["--import", "tsx", serverScript] : [...AGENT_NODE_FLAGS, bundle];
}

export interface AgentProcess {
  proc: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the real agent on a free loopback port with the given ELNOR_MEMORY, and resolves once it
 * prints its address. By default it is the agent as `npm start` runs it, compiled from the current
 * sources ({@link testAgentNodeArgs}); `nodeArgs` runs another build of it (e.g. the sources with tsx).
 */
export function startAgentProcess(
  memoryRoot: string,
  extraEnv: Record<string, string> = {},
  nodeArgs: readonly string[] = testAgentNodeArgs(),
): Promise<AgentProcess> {
  const proc = spawn(process.execPath, [...nodeArgs], {
    cwd: projectRoot,
    // The machine's own ~/.openclaw never reaches a test agent: its skills are not listed, and an
    // install projects into the test's own workspace (before, into ~/.openclaw/workspace, where the
    // next test's agent listed it as the user's own skill).
    env: {
      ...process.env,
      ELNOR_MEMORY: memoryRoot,
      ELNOR_AGENT_PORT: "0",
      OPENCLAW_WORKSPACE: `${memoryRoot}/openclaw-workspace`,
      OPENCLAW_SKILLS_DIR: `${memoryRoot}/no-user-skills`,
      ELNOR_BUNDLED_SKILLS_DIRS: "",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Agent address:\s+(http:\/\/127\.0\.0\.1:(\d+))/.exec(output);
      if (match?.[1] !== undefined && match[2] !== undefined) {
        proc.stdout?.off("data", onData);
        proc.stdout?.on("data", (more: Buffer) => (output += more.toString()));
        resolve({
          proc,
          url: match[1],
          port: Number(match[2]),
          output: () => output,
          stop: () => {
            if (proc.exitCode === null) proc.kill("SIGTERM");
            return exited;
          },
        });
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(new Error(`agent exited (${code}) before listening:\n${output}`)));
  });
}

/** Runs the agent expecting it to refuse to start; resolves with its exit code and output. */
export function runAgentExpectingFailure(memoryRoot: string): Promise<{ code: number | null; output: string }> {
  const proc = spawn(process.execPath, [...testAgentNodeArgs()], {
    cwd: projectRoot,
    env: { ...process.env, ELNOR_MEMORY: memoryRoot, ELNOR_AGENT_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  proc.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => proc.on("exit", (code) => resolve({ code, output })));
}
