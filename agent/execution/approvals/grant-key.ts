import { createHmac, randomBytes } from "node:crypto";
import type { MemoryStore } from "../../memory/memory-store";
import { MemoryPaths } from "../../memory/memory-paths";

const KEY_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The per-install key of standing grants (issue #33): 256 random bits, created on first use into
 * `system/agent/grant_key` with mode 0600 (like the pairing token) and reused afterwards, so a grant
 * made before a restart still recognises the same inputs.
 */
export async function loadOrCreateGrantKey(memory: MemoryStore): Promise<Buffer> {
  const existing = (await memory.readText(MemoryPaths.grantKey))?.trim();
  if (existing !== undefined && KEY_FORMAT.test(existing)) return Buffer.from(existing, "base64url");
  const key = randomBytes(32);
  await memory.writeText(MemoryPaths.grantKey, `${key.toString("base64url")}\n`, { mode: 0o600 });
  return key;
}

/** The keyed hash a grant keeps instead of an input's value: HMAC-SHA-256 over the ability, the input's name and its value. */
export function inputKeyedHash(key: Buffer, abilityId: string, name: string, value: string): string {
  return createHmac("sha256", key).update(`${abilityId}\u0000${name}\u0000${value}`).digest("hex");
}
