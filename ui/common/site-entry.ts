import { parseAllowListEntry, siteFromUrl } from "../../shared/observation/site-allowlist";

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
