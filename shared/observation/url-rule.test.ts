import { describe, expect, it } from "vitest";
import { createTypedValueScrubber } from "./typed-value-scrubber";
import { isMaskedUrl, maskUrl, replayableUrl, typedMarker, urlRefusal, type UrlTypedValues } from "./url-rule";
import { createValueRefs, valueRef } from "./value-ref";

const KEY = "test-session-key-0123456789";

/** The session's typed values as the privacy boundary gives them to the rule. */
function typed(...values: string[]): UrlTypedValues {
  const scrubber = createTypedValueScrubber(values);
  const refs = createValueRefs(KEY);
  return { scrub: (text, replace) => scrubber.scrub(text, replace), ref: refs };
}
const marker = (value: string) => typedMarker(valueRef(KEY, value));

describe("the URL rule: what routes stays", () => {
  it("keeps query values the person did not type (ids of pages, actions, filters)", () => {
    expect(maskUrl("https://wiki.example/app.php?page=start&do=login", typed("Meeting notes"))).toBe("https://wiki.example/app.php?page=start&do=login");
    expect(maskUrl("https://tracker.example/issues?state=open&sort=updated&page=2", typed())).toBe(
      "https://tracker.example/issues?state=open&sort=updated&page=2",
    );
    expect(maskUrl("https://wiki.example/doku.php?id=wiki:syntax&rev=1700000000", typed())).toBe("https://wiki.example/doku.php?id=wiki:syntax&rev=1700000000");
  });

  it("keeps path segments: numeric ids, slugs and UUIDs of existing pages", () => {
    const url = "https://blog.example/posts/42/edit/550e8400-e29b-41d4-a716-446655440000/my-first-post-about-cats";
    expect(maskUrl(url, typed("Something else"))).toBe(url);
  });

  it("keeps a fragment route and its query when nothing in it was typed or secret", () => {
    expect(maskUrl("https://notes.example/app#/page?tab=history&view=list", typed())).toBe("https://notes.example/app#/page?tab=history&view=list");
    expect(maskUrl("https://notes.example/app#/todos/active", typed())).toBe("https://notes.example/app#/todos/active");
  });

  it("drops credentials", () => {
    expect(maskUrl("https://user:pw@shop.example/cart", typed())).toBe("https://shop.example/cart");
  });

  it("escapes a `*` the app wrote, so a bare `*` only ever means masked", () => {
    expect(maskUrl("https://db.example/select?columns=*&table=users", typed())).toBe("https://db.example/select?columns=%2A&table=users");
  });
});

describe("the URL rule: typed values become markers", () => {
  it("turns a query value equal to a typed value into a marker naming it, not the value", () => {
    const masked = maskUrl("https://wiki.example/doku.php?id=Meeting%20notes&do=edit", typed("Meeting notes"));
    expect(masked).toBe(`https://wiki.example/doku.php?id=${marker("Meeting notes")}&do=edit`);
    expect(masked.toLowerCase()).not.toContain("meeting");
  });

  it.each([
    ["percent-encoded", "?page=Meeting%20Notes"],
    ["form-encoded", "?page=meeting+notes"],
    ["in upper case", "?page=MEETING%20NOTES"],
    ["with other spacing", "?page=Meeting%20%20%0ANotes"],
    ["with encoded letters", "?page=%4Deeting%20notes"],
  ])("finds a typed value %s", (_, query) => {
    expect(maskUrl(`https://wiki.example/index.php${query}`, typed("Meeting notes"))).toBe(`https://wiki.example/index.php?page=${marker("Meeting notes")}`);
  });

  it("marks the typed part of a value that holds more than the typed value", () => {
    expect(maskUrl("https://shop.example/search?q=red%20shoes%20sale", typed("red shoes"))).toBe(`https://shop.example/search?q=${marker("red shoes")}%20sale`);
  });

  it("marks typed values in path segments and in a fragment route and its query", () => {
    expect(maskUrl("https://wiki.example/wiki/Meeting_notes/Meeting%20Notes", typed("Meeting notes"))).toBe(
      `https://wiki.example/wiki/Meeting_notes/${marker("Meeting notes")}`,
    );
    expect(maskUrl("https://notes.example/app#/page/Meeting%20notes?title=meeting+notes&tab=edit", typed("Meeting notes"))).toBe(
      `https://notes.example/app#/page/${marker("Meeting notes")}?title=${marker("Meeting notes")}&tab=edit`,
    );
  });

  it("names two typed values apart, and the same value alike wherever it is", () => {
    const masked = maskUrl("https://app.example/new?title=Groceries&body=Buy%20milk&again=GROCERIES", typed("Groceries", "Buy milk"));
    expect(masked).toBe(`https://app.example/new?title=${marker("Groceries")}&body=${marker("Buy milk")}&again=${marker("Groceries")}`);
    expect(marker("Groceries")).not.toBe(marker("Buy milk"));
  });

  it("marks a typed value without naming it when the session key is not known yet (never replayed)", () => {
    const scrubber = createTypedValueScrubber(["Meeting notes"]);
    expect(maskUrl("https://wiki.example/?id=meeting+notes", { scrub: (text, replace) => scrubber.scrub(text, replace), ref: () => undefined })).toBe(
      "https://wiki.example/?id=*typed*",
    );
  });

  it("masks every value when what was typed is unknown (a typed command line)", () => {
    expect(maskUrl("https://shop.example/search?q=red+shoes&page=2#token=abc", "unknown")).toBe("https://shop.example/search?q=*&page=*#token=*");
  });
});

describe("the URL rule: secrets stay masked", () => {
  it.each([
    ["an access token", "?access_token=ya29.a0AfH6SMBx", "?access_token=*"],
    ["a session id", "?PHPSESSID=8f3kq0v1l2m3", "?PHPSESSID=*"],
    ["a sid", "?sid=abc", "?sid=*"],
    ["a CSRF value", "?id=start&sectok=9a8b7c6d", "?id=start&sectok=*"],
    ["an XSRF header value", "?X-XSRF-TOKEN=abc", "?X-XSRF-TOKEN=*"],
    ["a WordPress nonce", "?action=trash&_wpnonce=5f4e3d2c1b", "?action=trash&_wpnonce=*"],
    ["a one-time code", "?otp=482913", "?otp=*"],
    ["an OAuth code", "?code=4%2F0AX4XfWh", "?code=*"],
    ["an OAuth state", "?state=af0ifjsldkj", "?state=*"],
    ["a nonce", "?nonce=n-0S6_WzA2Mj", "?nonce=*"],
    ["a signature", "?X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027", "?X-Amz-Signature=*"],
    ["an API key", "?api_key=live_123", "?api_key=*"],
    ["a key", "?key=AIzaSyD", "?key=*"],
    ["a password", "?password=hunter2", "?password=*"],
    ["a JWT under any key", "?next=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig", "?next=*"],
    ["an email address", "?user=alice%40example.com", "?user=*"],
    ["a long hex value", "?v=0123456789abcdef0123456789abcdef", "?v=*"],
    ["a random token", "?t=Zx8Kq2Lm9Pw4Rt7Vb3", "?t=*"],
  ])("masks %s", (_, query, expected) => {
    expect(maskUrl(`https://app.example/p${query}`, typed())).toBe(`https://app.example/p${expected}`);
  });

  it("keeps `state` and `code` when they are plain words (filters, country codes)", () => {
    expect(maskUrl("https://tracker.example/issues?state=closed&code=US", typed())).toBe("https://tracker.example/issues?state=closed&code=US");
  });

  it("masks a secret in a fragment (implicit OAuth) and in a fragment route's query", () => {
    expect(maskUrl("https://app.example/cb#access_token=abc&token_type=bearer&expires_in=3600", typed())).toBe(
      "https://app.example/cb#access_token=*&token_type=*&expires_in=3600",
    );
    expect(maskUrl("https://app.example/#/login?redirect=home&sid=abc", typed())).toBe("https://app.example/#/login?redirect=home&sid=*");
  });

  it("masks token-shaped path segments and the segment after a reset, verify or token word", () => {
    expect(maskUrl("https://app.example/reset/9f2c1b/done", typed())).toBe("https://app.example/reset/*/done");
    expect(maskUrl("https://app.example/verify/482913", typed())).toBe("https://app.example/verify/*");
    expect(maskUrl("https://app.example/s/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig/home", typed())).toBe("https://app.example/s/*/home");
    expect(maskUrl("https://app.example/auth/login", typed())).toBe("https://app.example/auth/login");
  });

  it("masks a secret-named key even when its value was typed (it is never a parameter)", () => {
    expect(maskUrl("https://app.example/?token=meeting+notes", typed("Meeting notes"))).toBe("https://app.example/?token=*");
  });
});

describe("the agent's check of an arriving address", () => {
  it("accepts kept routing values, typed-value markers and masked secrets", () => {
    for (const url of [
      "https://wiki.example/app.php?page=start&do=login",
      `https://wiki.example/doku.php?id=${marker("Meeting notes")}&do=edit&sectok=*`,
      `https://notes.example/app#/page/${marker("x y z")}?tab=edit`,
      "https://wiki.example/?id=*typed*",
      "https://db.example/select?columns=%2A",
    ]) {
      expect(urlRefusal(url), url).toBeUndefined();
    }
  });

  it("refuses credentials, a secret left raw, and a malformed marker", () => {
    expect(urlRefusal("https://user:pw@wiki.example/")).toBe("it carries credentials");
    expect(isMaskedUrl("https://wiki.example/?id=start&sectok=9a8b7c6d")).toBe(false);
    expect(isMaskedUrl("https://app.example/cb#access_token=abc")).toBe(false);
    expect(isMaskedUrl("https://app.example/?user=alice%40example.com")).toBe(false);
    expect(isMaskedUrl("https://app.example/reset/9f2c1b")).toBe(false);
    expect(isMaskedUrl("https://app.example/?t=Zx8Kq2Lm9Pw4Rt7Vb3")).toBe(false);
    expect(urlRefusal("https://app.example/?id=*typed-XYZ*")).toBe("it carries a malformed typed-value marker");
    expect(urlRefusal("not a url")).toBe("it is not a URL");
  });

  it("accepts whatever the content script's rule produced (masking twice changes nothing)", () => {
    const values = typed("Meeting notes", "red shoes");
    for (const raw of [
      "https://wiki.example/doku.php?id=Meeting%20notes&do=edit&sectok=9a8b7c6d",
      "https://app.example/cb#access_token=abc&state=xyz123",
      "https://shop.example/search/red%20shoes?q=red+shoes+sale&columns=*",
      "https://app.example/reset/9f2c1b?x=1#/page/Meeting%20notes?a=b",
    ]) {
      const masked = maskUrl(raw, values);
      expect(urlRefusal(masked), masked).toBeUndefined();
    }
  });
});

describe("the page's rule and the agent's check agree", () => {
  it("keeps a token masked even when a few of its characters were typed somewhere", () => {
    expect(maskUrl("https://app.example/p?t=Zx8Kq2Lm9Pw4Rt7Vb3", typed("Lm9"))).toBe("https://app.example/p?t=*");
    expect(maskUrl("https://app.example/s/Zx8Kq2Lm9Pw4Rt7Vb3/home", typed("Lm9"))).toBe("https://app.example/s/*/home");
  });

  it("lets a typed plain word stand under `state` (a filter typed into a box), and the agent accepts it", () => {
    const masked = maskUrl("https://tracker.example/issues?state=Blocked", typed("blocked"));
    expect(masked).toBe(`https://tracker.example/issues?state=${marker("blocked")}`);
    expect(urlRefusal(masked)).toBeUndefined();
  });

  it("produces only addresses the agent accepts, for any mix of routes, typed values and secrets", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
    const pieces = [
      "start",
      "Meeting%20notes",
      "meeting+notes",
      "42",
      "Zx8Kq2Lm9Pw4Rt7Vb3",
      "alice%40example.com",
      "open",
      "*",
      "a%2Fb",
      "%4Deeting%20notes",
      "reset",
      "verify",
      "x1",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
    ];
    const keys = ["id", "page", "do", "state", "code", "sid", "q", "token", "ref"];
    const values = typed("Meeting notes", "Lm9", "open");
    for (let round = 0; round < 400; round += 1) {
      const path = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(pieces)).join("/");
      const query = Array.from({ length: Math.floor(next() * 4) }, () => `${pick(keys)}=${pick(pieces)}`).join("&");
      const fragment = pick(["", `#/${pick(pieces)}?${pick(keys)}=${pick(pieces)}`, `#${pick(keys)}=${pick(pieces)}`, `#${pick(pieces)}`]);
      const raw = `https://app.example/${path}${query === "" ? "" : `?${query}`}${fragment}`;
      const masked = maskUrl(raw, values);
      expect(urlRefusal(masked), `${raw} → ${masked}`).toBeUndefined();
      expect(masked.toLowerCase(), raw).not.toMatch(/meeting|lm9|zx8kq2|alice/);
    }
  });
});

describe("replaying a recorded address", () => {
  const parameters = new Map([[valueRef(KEY, "Meeting notes") as string, "page_name"]]);
  const parameterOf = (ref: string) => parameters.get(ref);

  it("puts the parameter where the typed value was, and keeps what routes", () => {
    const recorded = maskUrl("https://wiki.example/doku.php?id=Meeting%20notes&do=edit", typed("Meeting notes"));
    expect(replayableUrl(recorded, parameterOf)).toBe("https://wiki.example/doku.php?id={{page_name}}&do=edit");
    const route = maskUrl("https://notes.example/app#/page/Meeting%20notes?tab=edit", typed("Meeting notes"));
    expect(replayableUrl(route, parameterOf)).toBe("https://notes.example/app#/page/{{page_name}}?tab=edit");
  });

  it("never replays a masked secret: the pair is left out", () => {
    expect(replayableUrl("https://wiki.example/doku.php?id=start&do=edit&sectok=*", parameterOf)).toBe("https://wiki.example/doku.php?id=start&do=edit");
    expect(replayableUrl("https://app.example/cb#access_token=*", parameterOf)).toBe("https://app.example/cb");
  });

  it("leaves out a typed value no parameter stands for, and refuses an address whose path holds a secret", () => {
    expect(replayableUrl("https://wiki.example/?id=*typed*&do=show", parameterOf)).toBe("https://wiki.example/?do=show");
    expect(replayableUrl(`https://wiki.example/?id=${marker("Other value")}`, parameterOf)).toBe("https://wiki.example/");
    expect(replayableUrl("https://app.example/reset/*/done", parameterOf)).toBeUndefined();
    expect(replayableUrl(`https://app.example/#/page/${marker("Other value")}`, parameterOf)).toBeUndefined();
  });
});
