import { parseAllowListEntry } from "../../shared/observation/site-allowlist";

/**
 * The allow-list entry for a page (shared/observation/site-allowlist): the host for a site on its
 * default port (`shop.example.com`), the origin when a port is given (`http://127.0.0.1:8123`).
 * Anything that is not an http(s) page (the panel itself, chrome:// pages) has no site.
 */
export function siteFromUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  return parsed.port === "" ? parsed.hostname.toLowerCase() : parsed.origin.toLowerCase();
}

/**
 * What a person typed as a site, as an allow-list entry: a full address is reduced to its site;
 * otherwise it must read as a host, `*.host` or an origin.
 */
export function normalizeSiteEntry(text: string): { ok: true; entry: string } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, message: "Type a site, like shop.example.com." };
  if (/^https?:\/\/[^/]+\/./i.test(trimmed)) {
    const site = siteFromUrl(trimmed);
    if (site !== undefined) return { ok: true, entry: site };
  }
  const entry = parseAllowListEntry(trimmed);
  if (entry === undefined) return { ok: false, message: `“${trimmed.slice(0, 60)}” is not a site. Use a name like shop.example.com.` };
  return { ok: true, entry: trimmed.replace(/\/$/, "").toLowerCase() };
}
