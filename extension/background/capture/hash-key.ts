import type { BackgroundStore } from "../worker/background-storage";

/** Fills a buffer with cryptographically strong random bytes (`crypto.getRandomValues`). */
export type RandomBytes = (bytes: Uint8Array) => void;

/** A fresh per-session HMAC key for `hash_only` masking: 32 random bytes, base64url. */
export function newHashKey(random: RandomBytes): string {
  const bytes = new Uint8Array(32);
  random(bytes);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The session's hash key, made on first use and kept for the session's life in
 * `chrome.storage.session`, so equal values hash equally across service-worker restarts. A key
 * of another session is replaced: keys are never shared between sessions.
 */
export async function hashKeyForSession(store: BackgroundStore, sessionId: string, random: RandomBytes): Promise<string> {
  const kept = await store.loadHashKey();
  if (kept?.learn_session_id === sessionId) return kept.key;
  const key = newHashKey(random);
  await store.saveHashKey({ learn_session_id: sessionId, key });
  return key;
}
