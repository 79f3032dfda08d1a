import { parseAllowListEntry } from "../../../shared/observation/site-allowlist";

/**
 * The session allow-list (`target_app_whitelist`) as Chrome match patterns: what the side panel
 * asks `chrome.permissions.request` for at Start, and what the content script is registered for.
 * Entries are read the way the agent scopes events (shared/observation/site-allowlist):
 * - `shop.example.com` → `https://shop.example.com/*` and `http://shop.example.com/*`
 * - `*.example.com` → `https://*.example.com/*` and `http://*.example.com/*` (Chrome's `*.` also
 *   matches `example.com` itself, as the allow-list does)
 * - `http://127.0.0.1:8123` → `http://127.0.0.1:8123/*`
 * A Chrome pattern without a port matches every port, which is wider than the allow-list's
 * "default ports only"; the content script and the background re-check the page URL with
 * `urlMatchesAllowList`, and the agent drops anything off the list, so the wider pattern never
 * widens what is recorded. Entries that are not a site (typos, app names) give no pattern.
 */
export function originPatternsForAllowList(allowList: readonly string[]): string[] {
  const patterns = new Set<string>();
  for (const raw of allowList) {
    const entry = parseAllowListEntry(raw);
    if (entry === undefined) continue;
    const host = `${entry.wildcard ? "*." : ""}${entry.host}${entry.port === undefined ? "" : `:${entry.port}`}`;
    const schemes = entry.scheme === undefined ? (["https", "http"] as const) : [entry.scheme];
    for (const scheme of schemes) patterns.add(`${scheme}://${host}/*`);
  }
  return [...patterns];
}

/** The one question asked of `chrome.permissions` here, so callers can be given a fake in tests. */
export type OriginPermissionCheck = (origins: string[]) => Promise<boolean>;

/**
 * Of the session's patterns, those the user has granted (optional host permissions) or the
 * manifest already holds. Asked one by one: `permissions.contains` answers for the whole set, and
 * one refused site must not stop capture on the sites that were allowed.
 */
export async function grantedOriginPatterns(patterns: readonly string[], contains: OriginPermissionCheck): Promise<string[]> {
  const granted: string[] = [];
  for (const pattern of patterns) {
    if (await contains([pattern])) granted.push(pattern);
  }
  return granted;
}

/** The one call made to give site access back, so callers can be given a fake in tests. */
export type OriginPermissionRemove = (origins: string[]) => Promise<boolean>;

/**
 * Gives back the site access a session was granted, once its capture is over (least privilege,
 * DESIGN §4): the next session asks again. Pattern by pattern, because Chrome refuses to remove a
 * permission the manifest holds (the agent's loopback hosts) and that must not keep the others.
 */
export async function releaseOriginPatterns(patterns: readonly string[], remove: OriginPermissionRemove): Promise<void> {
  for (const pattern of patterns) {
    try {
      await remove([pattern]);
    } catch {
      // A manifest (required) host such as http://127.0.0.1/*: it stays, by design.
    }
  }
}
