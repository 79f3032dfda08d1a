import { readFile } from "node:fs/promises";
import path from "node:path";
import { startAgentProcess, type AgentProcess } from "./agent-process";
import { httpAgentCall, type AgentCall } from "./ready-proposal";
import { installNotesAbility, serveSignInFixture, type SignInFixture } from "./sign-in-fixture";
import { makeTempMemoryRoot } from "./temp-memory";

/** A real agent on a temp ELNOR_MEMORY with the notes skill (learned behind the sign-in fixture) installed: what a run-later test starts from. */
export interface NotesAgent {
  root: string;
  site: SignInFixture;
  agent: AgentProcess;
  token: string;
  call: AgentCall;
  abilityId: string;
  /** Stops the agent and the site, then removes the temp memory. */
  close(): Promise<void>;
}

/** `env` is the agent's extra environment, given the temp memory root (a workspace inside it). */
export async function startNotesAgent(prefix: string, password: string, env: (root: string) => Record<string, string> = () => ({})): Promise<NotesAgent> {
  const { root, cleanup } = await makeTempMemoryRoot(prefix);
  const site = await serveSignInFixture(password);
  let agent: AgentProcess | undefined;
  const close = async () => {
    await agent?.stop();
    await site.close();
    await cleanup();
  };
  try {
    agent = await startAgentProcess(root, env(root));
    const token = (await readFile(path.join(root, "system/agent/token"), "utf8")).trim();
    const call = httpAgentCall(agent.url, token);
    const { abilityId } = await installNotesAbility(call, site);
    return { root, site, agent, token, call, abilityId, close };
  } catch (error) {
    await close();
    throw error;
  }
}
