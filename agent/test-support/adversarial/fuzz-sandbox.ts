import { existsSync, readdirSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiClient, prepareCapturingSession, prepareInstalledAbility, prepareReadyProposal } from "./api-fixture";
import type { KnownIds } from "./hostile-input";
import { ESCAPE_FILE_NAME, OUTSIDE_CANARY } from "./hostile-values";
import { startListeningAgent, type ListeningAgent } from "./listening-agent";
import { readMemoryTree, type MemoryTree } from "./memory-tree";
import type { OpenApiDocument } from "./route-catalog";

/**
 * The prepared ELNOR_MEMORY a route is fuzzed against. Each has an installed ability (with a
 * checkpoint receipt); besides it, §0C.1B allows one open session, so there are three:
 * `idle` (none open: creating a session can succeed), `capturing` (a session capturing, with
 * events) and `review` (a proposal ready for review).
 */
export type FuzzWorldName = "idle" | "capturing" | "review";

/**
 * The fuzzers' file system: `<sandbox>/memory` is ELNOR_MEMORY, `<sandbox>/outside` holds a
 * canary that no answer may contain and no request may change. The worlds are built once, through
 * the HTTP API, and copied over `memory` before each route, so every route starts from the same
 * records and a failing seed replays against the same state.
 */
export interface FuzzSandbox {
  sandbox: string;
  memory: string;
  openapi: OpenApiDocument;
  registered: ReadonlyArray<{ method: string; url: string }>;
  /** Ids that exist in a world, by path parameter or body field name. */
  known(world: FuzzWorldName): KnownIds;
  /**
   * ELNOR_MEMORY byte for byte (paths, sizes, modes, contents), the outside canaries, and the
   * sandbox's own entries, so a write beside the memory root shows up too.
   */
  snapshot(): MemoryTree;
  /** Replaces ELNOR_MEMORY with a fresh copy of a world. */
  resetMemory(world: FuzzWorldName): Promise<void>;
  /** Files a path escape would have created in the folders above the sandbox. */
  escapedFiles(): string[];
  remove(): Promise<void>;
}

export async function createFuzzSandbox(prefix: string): Promise<FuzzSandbox> {
  const sandbox = await mkdtemp(path.join(tmpdir(), prefix));
  const templates = await mkdtemp(path.join(tmpdir(), `${prefix}worlds-`));
  const memory = path.join(sandbox, "memory");
  const outside = path.join(sandbox, "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "canary.json"), JSON.stringify({ canary: OUTSIDE_CANARY }));
  await writeFile(path.join(outside, "canary"), OUTSIDE_CANARY);
  const worldRoot = (world: FuzzWorldName) => path.join(templates, world);

  /** Runs `build` against an agent on the world's folder, then closes it. */
  const withAgent = async <T>(world: FuzzWorldName, build: (agent: ListeningAgent) => Promise<T>): Promise<T> => {
    const agent = await startListeningAgent(worldRoot(world));
    try {
      return await build(agent);
    } finally {
      await agent.close();
    }
  };

  const idle = await withAgent("idle", async (agent) => ({
    installed: await prepareInstalledAbility(apiClient(agent.url, agent.token)),
    openapi: (await apiClient(agent.url, agent.token).ok("GET", "/api/openapi.json")) as OpenApiDocument,
    registered: [...agent.app.registeredRoutes],
  }));
  await cp(worldRoot("idle"), worldRoot("capturing"), { recursive: true });
  await cp(worldRoot("idle"), worldRoot("review"), { recursive: true });
  const capturing = await withAgent("capturing", (agent) => prepareCapturingSession(apiClient(agent.url, agent.token)));
  const review = await withAgent("review", (agent) => prepareReadyProposal(apiClient(agent.url, agent.token), "Export the monthly invoices"));

  const { installed } = idle;
  const common: Record<string, readonly string[]> = {
    abilityId: [installed.abilityId],
    ability_id: [installed.abilityId],
    dispatchId: [installed.dispatchId],
    dispatch_id: [installed.dispatchId],
    "*": ["start", "detail", "events", "mark-step", "cancel", "stop"],
  };
  const withSessions = (sessions: string[], proposals: string[], events: string[] = []): KnownIds => ({
    ...common,
    sessionId: sessions,
    learn_session_id: sessions,
    session_id: sessions,
    proposalId: proposals,
    id: proposals,
    proposal_id: proposals,
    ...(events.length === 0 ? {} : { event_ids: events, at_event_id: events, to_event_id: events, after: events }),
  });
  const knownIds: Record<FuzzWorldName, KnownIds> = {
    idle: withSessions([installed.sessionId], [installed.proposalId]),
    capturing: withSessions([capturing.sessionId, installed.sessionId], [installed.proposalId], capturing.eventIds),
    review: withSessions([review.sessionId, installed.sessionId], [review.proposalId, installed.proposalId]),
  };

  const ancestors: string[] = [];
  for (let folder = path.dirname(sandbox); ; folder = path.dirname(folder)) {
    ancestors.push(folder);
    if (path.dirname(folder) === folder) break;
  }
  return {
    sandbox,
    memory,
    openapi: idle.openapi,
    registered: idle.registered,
    known: (world) => knownIds[world],
    snapshot() {
      const state = new Map<string, string>();
      for (const name of readdirSync(sandbox).sort()) state.set(`sandbox:${name}`, "entry");
      for (const [file, fact] of readMemoryTree(memory)) state.set(`memory/${file}`, fact);
      for (const [file, fact] of readMemoryTree(outside)) state.set(`outside/${file}`, fact);
      return state;
    },
    async resetMemory(world) {
      await rm(memory, { recursive: true, force: true });
      await cp(worldRoot(world), memory, { recursive: true });
    },
    escapedFiles: () =>
      ancestors.flatMap((folder) => [path.join(folder, ESCAPE_FILE_NAME), path.join(folder, "outside", ESCAPE_FILE_NAME)]).filter((file) => existsSync(file)),
    async remove() {
      await rm(sandbox, { recursive: true, force: true });
      await rm(templates, { recursive: true, force: true });
    },
  };
}
