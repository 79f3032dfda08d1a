import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import LearnHistory from "./LearnHistory.svelte";
import type { LearnHistoryState } from "./learn-history.svelte";
import { seedOfReceipt } from "../common/trace-seed-view";

const finished = "11111111-1111-4111-8111-111111111111";
const recording = "22222222-2222-4222-8222-222222222222";
const receipt = (id: string, sessionId: string | undefined, kind: "learn.capture.stopped" | "learn.proposal.created" = "learn.capture.stopped") => ({
  receipt_id: id,
  receipt_kind: kind,
  ...(sessionId === undefined ? {} : { learn_session_id: sessionId }),
  created_at: "2026-11-24T10:00:00.000Z",
  schema_version: 1 as const,
});
const history = {
  unavailable: false,
  error: null,
  loading: false,
  loaded: true,
  items: [
    {
      learn_session_id: finished,
      entry_mode: "demonstrating_skill",
      state: "installed",
      title: "Export the invoices",
      created_at: "2026-11-24T09:00:00.000Z",
      outcome: "approved",
    },
    { learn_session_id: recording, entry_mode: "demonstrating_skill", state: "capturing", created_at: "2026-11-24T09:30:00.000Z" },
  ],
  receipts: [
    receipt("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", finished),
    receipt("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", recording),
    receipt("cccccccc-cccc-4ccc-8ccc-cccccccccccc", undefined),
    receipt("dddddddd-dddd-4ddd-8ddd-dddddddddddd", finished, "learn.proposal.created"),
  ],
  receiptsTotal: 4,
} as unknown as LearnHistoryState;

describe("Learn From This on a receipt in History (§0B.6)", () => {
  it("is offered on the receipt that closed a recording whose session can be learned from; not on one still recording, one naming no session, or the session's other receipts", () => {
    const { body } = render(LearnHistory, { props: { state: history, onlearnfromreceipt: () => {} } });
    expect(body).toContain('data-learn-from-receipt="aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"');
    expect(body).not.toContain('data-learn-from-receipt="bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"');
    expect(body).not.toContain('data-learn-from-receipt="cccccccc-cccc-4ccc-8ccc-cccccccccccc"');
    expect(body).not.toContain('data-learn-from-receipt="dddddddd-dddd-4ddd-8ddd-dddddddddddd"');
  });

  it("is not offered when the agent does not learn from traces", () => {
    const { body } = render(LearnHistory, { props: { state: history } });
    expect(body).not.toContain("data-learn-from-receipt");
  });

  it("seeds the set-up with the receipt as the source and its session's sites", () => {
    const seed = seedOfReceipt(
      { receipt_id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", created_at: "2026-11-24T10:00:00.000Z" },
      "Recording stopped",
      { title: "Export the invoices" },
      ["https://books.example.com"],
    );
    expect(seed.source).toEqual({ kind: "receipt", receipt_id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" });
    expect(seed.title).toBe("Recording stopped (2026-11-24 10:00) of Export the invoices");
    expect(seed.sites).toEqual(["https://books.example.com"]);
  });
});
