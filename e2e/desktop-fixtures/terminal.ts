import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The real shell integration a person sources from ~/.bashrc or ~/.zshrc. */
export const SHELL_INTEGRATION = fileURLToPath(new URL("../../agent/reference-adapter/shell-integration.sh", import.meta.url));

export interface Terminal {
  /** Types one command and Enter, as a person does at the prompt (a multi-line one is typed line by line). */
  type(command: string): void;
  /** Resolves once the shell is back at its prompt after every command typed so far. */
  settle(): Promise<void>;
  /** What the terminal showed (stdout and stderr). */
  output(): string;
  close(): Promise<void>;
}

const PROMPT = "<<elnor-e2e-prompt>>";

/**
 * An interactive bash or zsh without the user's rc files, in `cwd`, with its own HOME: its prompt
 * hooks run after each command as in a terminal window, so the shell integration behaves as it
 * does for a person. Only the agent's address and token come from the test. The prompt is a
 * marker, so the test knows when a command has finished, as a person sees the prompt come back.
 */
export function openTerminal(shell: "bash" | "zsh", options: { cwd: string; home: string; env: Record<string, string> }): Terminal {
  const args = shell === "bash" ? ["--norc", "--noprofile", "-i"] : ["-f", "-i"];
  const proc: ChildProcessWithoutNullStreams = spawn(shell, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.home, LANG: "C.UTF-8", ELNOR_NODE: process.execPath, ...options.env },
  });
  let shown = "";
  proc.stdout.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  proc.stdin.write(`PS1='${PROMPT}'\n`);
  // The prompt after the line that sets it is the first one; one more after each command.
  let expected = 1;
  const prompts = () => shown.split(PROMPT).length - 1;
  return {
    type(command) {
      proc.stdin.write(`${command}\n`);
      expected += 1;
    },
    async settle() {
      const deadline = Date.now() + 30_000;
      while (prompts() < expected) {
        if (proc.exitCode !== null) throw new Error(`the shell exited (${proc.exitCode}); it showed:\n${shown.slice(-2000)}`);
        if (Date.now() > deadline) throw new Error(`the shell did not come back to its prompt (${prompts()}/${expected}); it showed:\n${shown.slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    output: () => shown,
    async close() {
      if (proc.exitCode === null) {
        proc.stdin.end("exit\n");
        const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
