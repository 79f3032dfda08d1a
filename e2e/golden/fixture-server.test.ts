import { afterEach, expect, it } from "vitest";
import { serveFixtureSite, type FixtureSite } from "./fixture-server";
import { QUALITY_SITES_DIR } from "./quality-flows";

const sites: FixtureSite[] = [];
afterEach(async () => {
  await Promise.all(sites.splice(0).map((site) => site.close()));
});

it("serves each fixture site on its own free loopback port and says which in its origin", async () => {
  const one = await serveFixtureSite({ folder: "counter", sitesDir: QUALITY_SITES_DIR });
  const two = await serveFixtureSite({ folder: "counter", sitesDir: QUALITY_SITES_DIR });
  sites.push(one, two);
  expect(one.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(two.origin).not.toBe(one.origin);
  const page = await fetch(`${one.origin}/index.html`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("c-plus");
});

it("serves the next variant of its pages from the same origin once told to", async () => {
  const site = await serveFixtureSite({ folder: "counter", sitesDir: QUALITY_SITES_DIR });
  sites.push(site);
  const plain = await (await fetch(`${site.origin}/index.html`)).text();
  site.setTransform((html) => html.replace("<body>", '<body><div class="promo-banner">New</div>'));
  expect(await (await fetch(`${site.origin}/index.html`)).text()).toContain('<div class="promo-banner">New</div>');
  site.setTransform(undefined);
  expect(await (await fetch(`${site.origin}/index.html`)).text()).toBe(plain);
});
