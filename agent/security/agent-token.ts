import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { MemoryStore } from "../memory/memory-store";
import { MemoryPaths } from "../memory/memory-paths";

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The per-install bearer token (DESIGN §4): 256 random bits, created on first start into
 * `system/agent/token` with mode 0600 and reused afterwards, so a paired extension stays paired
 * across agent restarts.
 */
export async function loadOrCreateAgentToken(memory: MemoryStore): Promise<string> {
  const existing = (await memory.readText(MemoryPaths.agentToken))?.trim();
  if (existing !== undefined && TOKEN_FORMAT.test(existing)) return existing;
  const token = randomBytes(32).toString("base64url");
  await memory.writeText(MemoryPaths.agentToken, `${token}\n`, { mode: 0o600 });
  return token;
}

/** Constant-time comparison; hashing first makes both sides the same length whatever was sent. */
export function tokensMatch(expected: string, presented: string): boolean {
  const a = createHash("sha256").update(expected).digest();
  const b = createHash("sha256").update(presented).digest();
  return timingSafeEqual(a, b);
}
