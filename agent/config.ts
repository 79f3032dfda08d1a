import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_MEMORY_UNDER_HOME, parseAgentPort } from "../shared/common/agent-address";

/** What the agent reads from its environment, parsed once at start (STYLE habit 3). */
export const AgentConfigSchema = z.object({
  memoryRoot: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  openclawWorkspace: z.string().min(1),
  /** The assistant's skill folders besides the workspace's, listed read-only in Skills. */
  skillFolders: z.array(z.object({ path: z.string().min(1), kind: z.enum(["native", "bundled"]) })),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export function readAgentConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const home = homedir();
  return AgentConfigSchema.parse({
    memoryRoot: path.resolve(env.ELNOR_MEMORY || path.join(home, DEFAULT_MEMORY_UNDER_HOME)),
    port: parseAgentPort(env.ELNOR_AGENT_PORT),
    openclawWorkspace: path.resolve(env.OPENCLAW_WORKSPACE || path.join(home, ".openclaw", "workspace")),
    skillFolders: [
      { path: path.resolve(env.OPENCLAW_SKILLS_DIR || path.join(home, ".openclaw", "skills")), kind: "native" },
      // ELNOR_BUNDLED_SKILLS_DIRS: folders of skills shipped with the assistant, separated like PATH.
      ...(env.ELNOR_BUNDLED_SKILLS_DIRS ?? "")
        .split(path.delimiter)
        .filter((folder) => folder.trim() !== "")
        .map((folder) => ({ path: path.resolve(folder), kind: "bundled" as const })),
    ],
  });
}
