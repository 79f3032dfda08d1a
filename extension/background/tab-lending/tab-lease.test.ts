import { describe, expect, it } from "vitest";
import { TAB_GUARD_ERROR_CODE, type ClientTabFrame } from "../../../shared/observation/tab-relay-protocol";
import type { DebuggerApi } from "./lease-context";
import { createTabLeases } from "./tab-lease";

/**
 * Which leases may share a tab with a recording (issue #16): only the Coaching Agent's, for the
 * session being recorded. Chrome's debugger is stood in for by a recorder of its commands; the
 * relay in real Chromium is covered by e2e/runs/in-tab-run and e2e/improve/coaching.
 */
const RECORDING = "11111111-1111-4111-8111-111111111111";
const OTHER = "22222222-2222-4222-8222-222222222222";
const URL_ALLOWED = "http://127.0.0.1:8123/";

function harness(recording: string | undefined) {
  const sent: ClientTabFrame[] = [];
  const attached: number[] = [];
  const commands: Array<{ sessionId?: string; method: string }> = [];
  let listener: Parameters<DebuggerApi["onEvent"]["addListener"]>[0] | undefined;
  const api: DebuggerApi = {
    attach: async ({ tabId }) => void attached.push(tabId),
    detach: async () => undefined,
    sendCommand: async (target, method) => {
      commands.push({ ...(target.sessionId === undefined ? {} : { sessionId: target.sessionId }), method });
      if (method === "Page.getFrameTree") return { frameTree: { frame: { id: "main" } } };
      if (method === "Page.createIsolatedWorld") return { executionContextId: 1 };
      return {};
    },
    getTargets: async () => [{ type: "page", tabId: 7, url: URL_ALLOWED }],
    onEvent: { addListener: (added) => void (listener = added) },
    onDetach: { addListener: () => undefined },
  };
  let saved: number | null = null;
  const reads: Array<{ tabId: number; highlight: unknown }> = [];
  const leases = createTabLeases({
    debuggerApi: () => api,
    inTabAllowed: async () => true,
    createTab: async () => 7,
    action: {
      setBadgeText: async () => undefined,
      setBadgeBackgroundColor: async () => undefined,
      setBadgeTextColor: async () => undefined,
      setTitle: async () => undefined,
    },
    restoreBadge: async () => undefined,
    recordingActive: async () => recording !== undefined,
    recordingSessionId: async () => recording,
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    readRecorded: async (tabId, highlight) => {
      reads.push({ tabId, highlight });
      return { controls: [{ role: "button", name: "Export" }], facts: { address: URL_ALLOWED, title: "Invoices", headings: [], states: [] } };
    },
    onActiveChange: () => undefined,
    failed: () => () => undefined,
    leasedTab: { save: async (tabId) => void (saved = tabId), load: async () => saved },
  });
  const open = async (leaseId: string, coaching?: string) => {
    leases.handle({
      type: "tab_open",
      lease_id: leaseId,
      tab_id: 7,
      allowed_sites: ["127.0.0.1:8123"],
      label: "test",
      ...(coaching === undefined ? {} : { coaching_session_id: coaching }),
    });
    for (let tries = 0; tries < 50 && !sent.some((frame) => "lease_id" in frame && frame.lease_id === leaseId); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return sent.find((frame) => "lease_id" in frame && frame.lease_id === leaseId);
  };
  const read = async (leaseId: string, id: number) => {
    leases.handle({ type: "tab_read", lease_id: leaseId, id, highlight: null });
    for (let tries = 0; tries < 50 && !sent.some((frame) => frame.type === "tab_read_result" && frame.id === id); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return sent.find((frame) => frame.type === "tab_read_result" && frame.id === id);
  };
  /** A CDP event of the tab, as Chrome's debugger delivers it. */
  const fire = (method: string, params: object, sessionId?: string) =>
    listener?.({ tabId: 7, ...(sessionId === undefined ? {} : { sessionId }) }, method, params);
  /** A command of the agent's, and the extension's answer to it. */
  const command = async (id: number, method: string, sessionId?: string) => {
    leases.handle({
      type: "tab_cdp",
      lease_id: "lease-run-0100",
      id,
      method,
      params: { expression: "document.title" },
      ...(sessionId === undefined ? {} : { session_id: sessionId }),
    });
    for (let tries = 0; tries < 50 && !sent.some((frame) => frame.type === "tab_cdp_result" && frame.id === id); tries += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    return sent.find((frame) => frame.type === "tab_cdp_result" && frame.id === id);
  };
  return { leases, sent, attached, open, read, reads, commands, fire, command };
}

describe("tab leases and a recording", () => {
  it("refuses a run's lease while a demonstration records, and a coaching lease for another session", async () => {
    const { open, attached } = harness(RECORDING);
    expect(await open("lease-run-0001")).toMatchObject({ type: "tab_refused", code: "RECORDING_ACTIVE" });
    expect(await open("lease-coach-0002", OTHER)).toMatchObject({ type: "tab_refused", code: "RECORDING_ACTIVE" });
    expect(attached).toEqual([]);
  });

  it("lends the tab to the coaching of the session being recorded, and keeps it lent while that recording goes on", async () => {
    const { open, leases } = harness(RECORDING);
    expect(await open("lease-coach-0003", RECORDING)).toMatchObject({ type: "tab_opened", tab_id: 7 });
    await leases.recordingChanged(true);
    expect(leases.active()).toBe(true);
  });

  it("still takes a run's tab back the moment a recording starts", async () => {
    const { open, leases, sent } = harness(undefined);
    expect(await open("lease-run-0004")).toMatchObject({ type: "tab_opened" });
    await leases.recordingChanged(true);
    expect(leases.active()).toBe(false);
    expect(sent).toContainEqual(expect.objectContaining({ type: "tab_ended", lease_id: "lease-run-0004", reason: "recording_started" }));
  });
});

describe("the Coaching Agent's page read (issue #30)", () => {
  it("asks the lent tab's content script, for a coaching lease only, and forwards what it let through", async () => {
    const { open, read, reads } = harness(RECORDING);
    expect(await open("lease-coach-0005", RECORDING)).toMatchObject({ type: "tab_opened" });
    expect(await read("lease-coach-0005", 1)).toMatchObject({ type: "tab_read_result", id: 1, read: { controls: [{ role: "button", name: "Export" }] } });
    expect(reads).toEqual([{ tabId: 7, highlight: null }]);
    // Another lease id: nothing is read.
    expect(await read("lease-other-0006", 2)).toMatchObject({ type: "tab_read_result", id: 2, read: null });
    expect(reads).toHaveLength(1);
  });

  it("reads nothing for a run's lease: only the Coaching Agent reads a lent page this way", async () => {
    const { open, read, reads } = harness(undefined);
    expect(await open("lease-run-0007")).toMatchObject({ type: "tab_opened" });
    expect(await read("lease-run-0007", 3)).toMatchObject({ type: "tab_read_result", read: null, why: expect.stringContaining("Coaching Agent") });
    expect(reads).toEqual([]);
  });
});

describe("a lent tab's frames of other sites (issue #30)", () => {
  it("refuses every command aimed at a cross-site iframe's session, and says from where without its path", async () => {
    const { open, fire, command, commands } = harness(undefined);
    expect(await open("lease-run-0100")).toMatchObject({ type: "tab_opened" });
    fire("Target.attachedToTarget", {
      sessionId: "child-1",
      targetInfo: { targetId: "F1", type: "iframe", url: "http://localhost:9/widget?member=42" },
      waitingForDebugger: false,
    });

    for (const [index, method] of ["Runtime.evaluate", "DOM.getDocument", "Input.dispatchMouseEvent", "Page.navigate"].entries()) {
      const answer = await command(index + 1, method, "child-1");
      expect(answer).toMatchObject({ type: "tab_cdp_result", error: { code: TAB_GUARD_ERROR_CODE } });
      const message = answer?.type === "tab_cdp_result" ? (answer.error?.message ?? "") : "";
      expect(message).toBe(
        `TEST_POLICY_VIOLATION: ${method} refused: it is aimed at a frame from http://localhost:9 inside the lent tab, and a run never drives a frame of another site.`,
      );
    }
    expect(commands.filter((sent) => sent.sessionId !== undefined)).toEqual([]);
  });

  it("refuses a session it never saw attach, and the Target commands that would attach to a frame", async () => {
    const { open, command, commands } = harness(undefined);
    await open("lease-run-0100");
    expect(await command(1, "Runtime.callFunctionOn", "made-up")).toMatchObject({
      error: { code: TAB_GUARD_ERROR_CODE, message: expect.stringContaining("a session that is not the lent tab's page") },
    });
    for (const [index, method] of ["Target.setAutoAttach", "Target.attachToTarget", "Target.attachToBrowserTarget"].entries()) {
      expect(await command(index + 2, method)).toMatchObject({
        error: { code: TAB_GUARD_ERROR_CODE, message: expect.stringContaining(`TEST_POLICY_VIOLATION: ${method} refused`) },
      });
    }
    expect(commands.map((sent) => sent.method)).not.toEqual(
      expect.arrayContaining(["Runtime.callFunctionOn", "Target.setAutoAttach", "Target.attachToTarget"]),
    );
  });

  it("still relays the tab's own page's commands", async () => {
    const { open, command, commands } = harness(undefined);
    await open("lease-run-0100");
    expect(await command(1, "Runtime.evaluate")).toMatchObject({ type: "tab_cdp_result", result: {} });
    expect(commands).toContainEqual({ method: "Runtime.evaluate" });
  });
});
