/**
 * The cosmetic variants a learned skill must survive (issue #14): the same app with a banner
 * inserted and its content wrapped in extra elements, or with every class renamed and extra
 * wrappers around each list. Applied to the HTML as it is served, scripts included.
 */
export interface Variant {
  name: string;
  transform: ((html: string) => string) | undefined;
}

function bannerAndWrappers(html: string): string {
  return html
    .replace(
      /<body([^>]*)>/,
      '<body$1><div class="promo-banner" role="note"><strong>New:</strong> dark mode is here. <a href="#promo">Learn more</a></div><div class="layout-shell"><div class="layout-inner">',
    )
    .replace(/<\/body>/, "</div></div></body>");
}

/** Every `c-` class renamed (the same way in markup, styles and scripts), and each list wrapped. */
function classesRandomized(html: string): string {
  const renamed = html.replace(/\bc-([a-z0-9-]+)/g, (_match, name: string) => `x${hash(name)}-${name.length}`);
  return renamed.replace(/<(ul|table)([ >])/g, '<div class="wrap-$1"><$1$2').replace(/<\/(ul|table)>/g, "</$1></div>");
}

function hash(text: string): string {
  let value = 7;
  for (const character of text) value = (value * 31 + character.charCodeAt(0)) % 1_000_003;
  return value.toString(36);
}

export const VARIANTS: readonly Variant[] = [
  { name: "unchanged", transform: undefined },
  { name: "banner + wrappers", transform: bannerAndWrappers },
  { name: "classes renamed + list wrappers", transform: classesRandomized },
];
