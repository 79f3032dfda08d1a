/**
 * The session allow-list (§0C.2 capture-scoping rule) as both sides read it. An entry is a host
 * (`shop.example.com`), a wildcard host (`*.example.com`, which also matches `example.com`), or an
 * origin with scheme and port (`http://127.0.0.1:8123`). Anything else never matches.
 */
export interface AllowListEntry {
  scheme?: "http" | "https" | undefined;
  host: string;
  wildcard: boolean;
  port?: string | undefined;
}

export function parseAllowListEntry(entry: string): AllowListEntry | undefined {
  const match = /^(?:(https?):\/\/)?(\*\.)?([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?\/?$/i.exec(entry.trim());
  if (match === null || match[3] === undefined) return undefined;
  return {
    scheme: match[1]?.toLowerCase() as AllowListEntry["scheme"],
    wildcard: match[2] !== undefined,
    host: match[3].toLowerCase(),
    port: match[4],
  };
}

/** Whether a page URL's origin is on the allow-list. */
export function urlMatchesAllowList(url: string, entries: readonly string[]): boolean {
  const parsed = httpPageUrl(url);
  if (parsed === undefined) return false;
  const scheme = parsed.protocol.slice(0, -1);
  const host = parsed.hostname.toLowerCase();
  const port = parsed.port;
  return entries.some((raw) => {
    const entry = parseAllowListEntry(raw);
    if (entry === undefined) return false;
    if (entry.scheme !== undefined && entry.scheme !== scheme) return false;
    if (entry.port !== undefined && entry.port !== port) return false;
    // An entry without a port means the site's default ports only.
    if (entry.port === undefined && port !== "") return false;
    return entry.wildcard ? host === entry.host || host.endsWith(`.${entry.host}`) : host === entry.host;
  });
}

/**
 * The allow-list entry for a page (above): the host for a site on its
 * default port (`shop.example.com`), the origin when a port is given (`http://127.0.0.1:8123`).
 * Anything that is not an http(s) page (the panel itself, chrome:// pages) has no site.
 */
export function siteFromUrl(url: string | undefined): string | undefined {
  const parsed = url === undefined ? undefined : httpPageUrl(url);
  if (parsed === undefined) return undefined;
  return parsed.port === "" ? parsed.hostname.toLowerCase() : parsed.origin.toLowerCase();
}

/** The address as a URL when it is an http(s) page's; undefined for anything else or nothing readable. */
function httpPageUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed : undefined;
}
