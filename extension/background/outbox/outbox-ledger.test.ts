import { describe, expect, it } from "vitest";
import type { ObservationBatchAck } from "../../../shared/observation/capture-protocol";
import { createOutboxLedger } from "./outbox-ledger";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const BATCH = "11111111-1111-4111-8111-111111111111";
const sha = (c: string) => c.repeat(64);

function ack(overrides: Partial<ObservationBatchAck>): ObservationBatchAck {
  return {
    batch_id: BATCH,
    accepted: [],
    duplicates: [],
    dropped_off_target: [],
    refused: [],
    rejected: [],
    snapshots_stored: [],
    snapshots_rejected: [],
    schema_version: 1,
    ...overrides,
  };
}

function ledgerWithBatch(clock = { now: 0 }) {
  const ledger = createOutboxLedger({ now: () => clock.now, maxInFlight: 2, ackTimeoutMs: 60_000, holdMs: 30_000 });
  ledger.sent({
    batch_id: BATCH,
    events: [1, 2, 3, 4, 5, 6].map((n) => ({ seq: n, event_id: id(n) })),
    snapshots: [{ seq: 9, sha256: sha("a") }],
  });
  return ledger;
}

describe("outbox ledger", () => {
  it("deletes every event the ack names, whatever the verdict, since each is final", () => {
    const ledger = ledgerWithBatch();
    const settlement = ledger.settle(
      ack({
        accepted: [id(1)],
        duplicates: [id(2)],
        dropped_off_target: [id(3)],
        refused: [id(4)],
        rejected: [{ index: 4, event_id: id(5), code: "REQUEST_INVALID", reason: "bad" }],
      }),
    );
    expect(settlement?.deleteEventSeqs).toEqual([1, 2, 3, 4, 5]);
    expect(settlement?.unanswered).toEqual([id(6)]);
  });

  it("names a rejected event by its index when it had no readable id", () => {
    const ledger = ledgerWithBatch();
    const settlement = ledger.settle(
      ack({ accepted: [id(1), id(2), id(4), id(5), id(6)], rejected: [{ index: 2, code: "REQUEST_INVALID", reason: "no id" }] }),
    );
    expect(settlement?.deleteEventSeqs).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("keeps events the ack left out, holding them back before they are sent again", () => {
    const clock = { now: 0 };
    const ledger = ledgerWithBatch(clock);
    ledger.settle(ack({ accepted: [id(1), id(2), id(3), id(4), id(5)] }));
    expect(ledger.isBusyEvent(6)).toBe(true);
    clock.now = 30_000;
    expect(ledger.isBusyEvent(6)).toBe(false);
  });

  it("lets every snapshot of an answered batch go: stored, or rejected for good", () => {
    const ledger = ledgerWithBatch();
    const settlement = ledger.settle(ack({ snapshots_rejected: [{ index: 0, reason: "sha256 mismatch" }] }));
    expect(settlement?.deleteSnapshotSeqs).toEqual([9]);
    expect(ledger.isBusySnapshot(9)).toBe(false);
  });

  it("ignores an ack for a batch it is not waiting for (sent on a link since lost)", () => {
    const ledger = ledgerWithBatch();
    ledger.connectionLost();
    expect(ledger.settle(ack({ accepted: [id(1)] }))).toBeUndefined();
  });

  it("frees everything in flight when the link is lost, so all of it is resent", () => {
    const ledger = ledgerWithBatch();
    expect(ledger.isBusyEvent(1)).toBe(true);
    ledger.connectionLost();
    expect(ledger.isBusyEvent(1)).toBe(false);
    expect(ledger.isBusySnapshot(9)).toBe(false);
    expect(ledger.inFlight()).toBe(0);
  });

  it("limits the batches in flight and notices an ack that never comes", () => {
    const clock = { now: 0 };
    const ledger = ledgerWithBatch(clock);
    expect(ledger.canSend()).toBe(true);
    ledger.sent({ batch_id: "22222222-2222-4222-8222-222222222222", events: [{ seq: 7, event_id: id(7) }], snapshots: [] });
    expect(ledger.canSend()).toBe(false);
    expect(ledger.overdue()).toBe(false);
    clock.now = 60_001;
    expect(ledger.overdue()).toBe(true);
  });
});
