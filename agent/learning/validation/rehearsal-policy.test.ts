import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRehearsalSite, type RehearsalSite } from "../../../e2e/rehearsal-fixtures/server";
import { ValidationStepResultSchema } from "../../../shared/learning/proposals/validation-run";
import type { RecorderStep, RecorderFlow } from "../../../shared/execution/recorder-flow";
import type { RehearsalCheckpoint } from "./rehearsal";
import { VIEWPORT, byId, policy, rehearse, rehearseInSharedChromium, serveShopAndOther } from "../../test-support/rehearsal-harness";

/**
 * The rehearsal's test policy in a real headless Chromium: requests and pages outside allowed_domains,
 * sends to another origin, reads let through under live_read_safe_write, and a frame from another site
 * never driven nor read (issue #30). The replay itself: `rehearsal.test.ts`.
 */

/** Rehearsals run in one Chromium started for this file, each in a fresh context, but for those testing the managed browser itself. */
rehearseInSharedChromium();

describe("rehearsal in a real headless Chromium", () => {
  let site: RehearsalSite;
  let other: RehearsalSite;

  beforeAll(async () => {
    ({ site, other } = await serveShopAndOther());
  });
  afterAll(async () => {
    await site.close();
    await other.close();
  });

  it("refuses a request to a host outside allowed_domains as TEST_POLICY_VIOLATION", async () => {
    const otherRequestsBefore = other.requests.length;
    const flow: RecorderFlow = {
      title: "Load my avatar",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/leaky.html` },
        { type: "click", selectors: [['aria/Load avatar[role="button"]'], ["#load-avatar"]], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2"],
    };
    const checkpoints: RehearsalCheckpoint[] = [
      { checkpoint_id: "cp-02", goal: "The avatar is loaded", success_condition: 'The page says "Avatar loaded"', step_ids: ["s2"] },
    ];
    // Only this site's port: the other one, on the same 127.0.0.1, is not allowed.
    const result = await rehearse({ flow, checkpoints, policy: policy({ allowed_domains: [`127.0.0.1:${site.port}`] }) });

    expect(result.overall).toBe("failed");
    expect(result.policy_violation).toEqual({
      code: "TEST_POLICY_VIOLATION",
      message: `request to ${other.origin} refused: 127.0.0.1:${other.port} is not in the test policy's allowed_domains (127.0.0.1:${site.port})`,
    });
    expect(result.steps.filter((step) => step.result === "failed").map((step) => step.details)).toEqual([expect.stringContaining("test policy: request to")]);
    expect(other.requests.length).toBe(otherRequestsBefore);
  });

  it("refuses to open a page outside allowed_domains without requesting it", async () => {
    const otherRequestsBefore = other.requests.length;
    const flow: RecorderFlow = { title: "Open elsewhere", steps: [VIEWPORT, { type: "navigate", url: `${other.origin}/leaky.html` }], step_ids: [null, null] };
    const result = await rehearse({ flow, policy: policy({ allowed_domains: ["example.test"] }) });

    expect(result.overall).toBe("failed");
    expect(result.policy_violation?.message).toContain("not in the test policy's allowed_domains (example.test)");
    expect(byId(result, "rehearsal:setup-2")?.result).toBe("failed");
    expect(other.requests.length).toBe(otherRequestsBefore);
  });

  it.each([
    ["a form posted", "Send", `form submission to`],
    ["a script's POST", "Sync", `POST to`],
  ])("refuses %s to another origin when forbid_external_send", async (_, button, refused) => {
    const otherRequestsBefore = other.requests.length;
    const flow: RecorderFlow = {
      title: "Send a message",
      steps: [
        VIEWPORT,
        { type: "navigate", url: `${site.origin}/send.html` },
        { type: "change", selectors: [['aria/Message[role="textbox"]']], value: "{{full_name}}" },
        { type: "click", selectors: [[`aria/${button}[role="button"]`]], offsetX: 1, offsetY: 1 },
      ],
      step_ids: [null, null, "s2", "s3"],
    };
    const result = await rehearse({ flow, policy: policy({ allowed_domains: ["127.0.0.1"], forbid_external_send: true }) });

    expect(result.overall).toBe("failed");
    expect(result.policy_violation?.code).toBe("TEST_POLICY_VIOLATION");
    expect(result.policy_violation?.message).toContain(
      `${refused} ${other.origin} refused: the test policy forbids sending to another origin than the page's (${site.origin})`,
    );
    expect(byId(result, "rehearsal:s3")?.result).toBe("failed");
    expect(other.requests.slice(otherRequestsBefore).filter((request) => request.method === "POST")).toEqual([]);
  });

  describe("under live_read_safe_write limited to the site's own port (reads like a browser)", () => {
    const dashboard = (more: RecorderStep[] = []): RecorderFlow => ({
      title: "Open the dashboard",
      steps: [VIEWPORT, { type: "navigate", url: `${site.origin}/dashboard.html` }, ...more],
      step_ids: [null, null, ...more.map((_, index) => `s${index + 2}`)],
    });
    const avatarShown: RehearsalCheckpoint = {
      checkpoint_id: "cp-01",
      goal: "The dashboard shows the avatar",
      success_condition: 'The page says "Avatar shown"',
      step_ids: ["s1"],
    };
    const liveRead = () => policy({ mode: "live_read_safe_write", allowed_domains: [`127.0.0.1:${site.port}`] });

    it("lets an image from another host load, passes, and lists the read for the person", async () => {
      const otherBefore = other.requests.length;
      const result = await rehearse({ flow: dashboard(), checkpoints: [avatarShown], policy: liveRead() });

      expect(result.policy_violation).toBeUndefined();
      expect(byId(result, "checkpoint:cp-01")).toMatchObject({ result: "passed", details: 'found status "Avatar shown"' });
      expect(result.overall).toBe("passed");
      expect(result.reads_elsewhere).toEqual([{ origin: other.origin, resource_type: "Image", count: 1 }]);
      const listed = byId(result, "policy:reads_elsewhere");
      expect(listed).toMatchObject({ result: "passed", label: "Reads from other hosts, let through by the test policy" });
      expect(listed?.details).toContain(`the page read 1 image from ${other.origin} (live_read_safe_write`);
      expect(
        ValidationStepResultSchema.safeParse({ ...listed, validation_run_id: randomUUID(), created_at: result.completed_at, schema_version: 1 }).success,
      ).toBe(true);
      expect(other.requests.slice(otherBefore).map((request) => `${request.method} ${request.path}`)).toEqual(["GET /avatar.png"]);
    });

    it("still refuses the same image in a dry run, which stays as strict as it was", async () => {
      const otherBefore = other.requests.length;
      const result = await rehearse({
        flow: dashboard(),
        checkpoints: [avatarShown],
        policy: policy({ mode: "dry_run_only", allowed_domains: [`127.0.0.1:${site.port}`] }),
      });

      expect(result.overall).toBe("failed");
      expect(result.policy_violation?.message).toBe(
        `request to ${other.origin} refused: 127.0.0.1:${other.port} is not in the test policy's allowed_domains (127.0.0.1:${site.port})`,
      );
      expect(result.reads_elsewhere).toBeUndefined();
      expect(other.requests.length).toBe(otherBefore);
    });

    it("refuses a form posted to the other origin with TEST_POLICY_VIOLATION, and nothing reaches it", async () => {
      const otherBefore = other.requests.length;
      const flow = dashboard([
        { type: "change", selectors: [['aria/Note[role="textbox"]']], value: "{{full_name}}" },
        { type: "click", selectors: [['aria/Share[role="button"]']], offsetX: 1, offsetY: 1 },
      ]);
      const result = await rehearse({ flow, policy: liveRead() });

      expect(result.overall).toBe("failed");
      expect(result.policy_violation?.code).toBe("TEST_POLICY_VIOLATION");
      expect(result.policy_violation?.message).toContain(`form submission to ${other.origin} refused`);
      expect(byId(result, "rehearsal:s3")?.result).toBe("failed");
      expect(other.requests.slice(otherBefore).filter((request) => request.method !== "GET")).toEqual([]);
    });

    it("refuses a script's POST to the other origin even though its reads go through", async () => {
      const otherBefore = other.requests.length;
      const flow: RecorderFlow = {
        title: "Sync a message",
        steps: [
          VIEWPORT,
          { type: "navigate", url: `${site.origin}/send.html` },
          { type: "click", selectors: [['aria/Sync[role="button"]']], offsetX: 1, offsetY: 1 },
        ],
        step_ids: [null, null, "s2"],
      };
      const result = await rehearse({ flow, policy: liveRead() });

      expect(result.policy_violation?.code).toBe("TEST_POLICY_VIOLATION");
      expect(result.policy_violation?.message).toBe(
        `request to ${other.origin} refused: 127.0.0.1:${other.port} is not in the test policy's allowed_domains (127.0.0.1:${site.port})`,
      );
      expect(other.requests.length).toBe(otherBefore);
    });

    it("refuses a top-level navigation to the other origin (a link followed), and the page is never requested", async () => {
      const otherBefore = other.requests.length;
      const flow = dashboard([{ type: "click", selectors: [['aria/Visit the partner site[role="link"]']], offsetX: 1, offsetY: 1 }]);
      const result = await rehearse({ flow, policy: liveRead() });

      expect(result.overall).toBe("failed");
      expect(result.policy_violation).toEqual({
        code: "TEST_POLICY_VIOLATION",
        message: `request to ${other.origin} refused: 127.0.0.1:${other.port} is not in the test policy's allowed_domains (127.0.0.1:${site.port})`,
      });
      expect(byId(result, "rehearsal:s2")?.result).toBe("failed");
      expect(other.requests.slice(otherBefore).map((request) => request.path)).not.toContain("/welcome.html");
    });

    it("refuses opening the other origin as the flow's own page", async () => {
      const otherBefore = other.requests.length;
      const flow: RecorderFlow = {
        title: "Open elsewhere",
        steps: [VIEWPORT, { type: "navigate", url: `${other.origin}/dashboard.html` }],
        step_ids: [null, null],
      };
      const result = await rehearse({ flow, policy: liveRead() });

      expect(result.policy_violation?.code).toBe("TEST_POLICY_VIOLATION");
      expect(byId(result, "rehearsal:setup-2")?.result).toBe("failed");
      expect(other.requests.length).toBe(otherBefore);
    });
  });

  describe("a frame from another site inside the page (issue #30)", () => {
    let framing: RehearsalSite;
    /** The same second server, addressed as another site (localhost, not 127.0.0.1). */
    const partner = () => `http://localhost:${other.port}`;
    beforeAll(async () => {
      framing = await serveRehearsalSite({ otherOrigin: `http://localhost:${other.port}` });
    });
    afterAll(async () => {
      await framing.close();
    });
    const livePolicy = () => policy({ mode: "live_read_safe_write", allowed_domains: ["127.0.0.1"] });

    it("is never driven: a step whose target is inside it fails with TEST_POLICY_VIOLATION, and the frame's server sees no click", async () => {
      const otherBefore = other.requests.length;
      const flow: RecorderFlow = {
        title: "Subscribe to the partner newsletter",
        steps: [
          VIEWPORT,
          { type: "navigate", url: `${framing.origin}/partner.html` },
          { type: "click", selectors: [['aria/Subscribe[role="button"]'], ["#subscribe"]], offsetX: 1, offsetY: 1, frame: [0] },
        ],
        step_ids: [null, null, "s2"],
      };
      const checkpoints: RehearsalCheckpoint[] = [
        { checkpoint_id: "cp-02", goal: "Subscribed", success_condition: 'The page says "You are subscribed"', step_ids: ["s2"] },
      ];
      const result = await rehearse({ flow, checkpoints, policy: livePolicy() });

      expect(result.overall).toBe("failed");
      expect(result.policy_violation).toEqual({
        code: "TEST_POLICY_VIOLATION",
        message: `the step's element is inside a frame from ${partner()}, another origin than the page's (${framing.origin}): a run never drives a frame of another site`,
      });
      expect(byId(result, "rehearsal:s2")).toMatchObject({ result: "failed", details: `test policy: ${result.policy_violation?.message}` });
      // The widget was loaded (a read, listed), never clicked.
      expect(result.reads_elsewhere).toEqual([{ origin: partner(), resource_type: "Document", count: 1 }]);
      const seen = other.requests.slice(otherBefore).map((request) => `${request.method} ${request.path}`);
      expect(seen).toContain("GET /partner-widget.html");
      expect(seen.filter((request) => request !== "GET /partner-widget.html")).toEqual([]);
    });

    it("is never read for evidence: a checkpoint shown only inside it fails and says it did not look there", async () => {
      const flow: RecorderFlow = {
        title: "Open partner offers",
        // The page's own wait as long as a loaded machine needs; the checkpoint keeps the run's 1.5 s.
        steps: [VIEWPORT, { type: "navigate", url: `${framing.origin}/partner.html`, timeout: 15_000 }],
        step_ids: [null, null],
      };
      const checkpoints: RehearsalCheckpoint[] = [
        { checkpoint_id: "cp-01", goal: "The widget is ready", success_condition: 'The page says "Partner widget ready"', step_ids: ["s1"] },
      ];
      const result = await rehearse({ flow, checkpoints, policy: livePolicy(), stepTimeoutMs: 1_500 });

      expect(result.policy_violation).toBeUndefined();
      const checkpoint = byId(result, "checkpoint:cp-01");
      expect(checkpoint?.result).toBe("failed");
      expect(checkpoint?.details).toContain(`not looked at: a frame from ${partner()} (a run never reads or drives a frame of another site)`);
    });
  });
});
