import { randomUUID } from "node:crypto";
import { z } from "zod";
import { DAY_MS } from "../../shared/common/durations";
import { PortableSkillFrontmatterSchema } from "../../shared/skills/frontmatter";
import {
  ImportedSkillRecordSchema,
  SkillCompatibilityReportSchema,
  SkillImportUploadMetadataSchema,
  TempArtifactRefSchema,
  type ImportedSkillRecord,
} from "../../shared/skills/import";
import {
  SkillImportBundleSummarySchema,
  SkillImportReceiptSchema,
  type SkillImportReceipt,
  type SkillImportReceiptKind,
} from "../../shared/skills/import-bundle";
import { SkillImportTransitionSchema, type SkillImportState } from "../../shared/skills/import-state";
import type { Clock } from "../common/clock";
import { assertMemorySegment } from "../memory/memory-paths";
import type { MemoryStore } from "../memory/memory-store";
import { importedSkillFolder } from "../abilities/imported-skill-folder";

/**
 * Where imports live in ELNOR_MEMORY (DESIGN §5 extended for §0C.20), all under
 * `system/skills/import/`: uploads (the bytes and their handle) until staged, one current file per
 * import, staged bundles, and append-only logs of transitions, receipts and idempotent answers.
 * Installed imported skills keep their archive byte for byte under `system/skills/imported/`.
 */
export const ImportPaths = {
  root: "system/skills/import",
  uploads: "system/skills/import/uploads",
  uploadBytes: (ref: string) => `system/skills/import/uploads/${assertMemorySegment(ref)}.bin`,
  uploadMeta: (ref: string) => `system/skills/import/uploads/${assertMemorySegment(ref)}.json`,
  records: "system/skills/import/records",
  record: (importId: string) => `system/skills/import/records/${assertMemorySegment(importId)}.json`,
  staged: (importId: string) => `system/skills/import/staged/${assertMemorySegment(importId)}`,
  stagedBytes: (importId: string) => `system/skills/import/staged/${assertMemorySegment(importId)}/bundle.bin`,
  transitions: "system/skills/import/transitions.jsonl",
  receipts: "system/skills/import/receipts.jsonl",
  requests: "system/skills/import/requests.jsonl",
  installed: importedSkillFolder,
} as const;

/** How the upload was given: a zip (a bundle or a zipped folder) or one SKILL.md. */
export const ArtifactFormatSchema = z.enum(["zip", "skill_md"]);
export type ArtifactFormat = z.infer<typeof ArtifactFormatSchema>;

export const StoredUploadSchema = z.object({
  temp_artifact: TempArtifactRefSchema,
  format: ArtifactFormatSchema,
  metadata: SkillImportUploadMetadataSchema,
});
export type StoredUpload = z.infer<typeof StoredUploadSchema>;

/** One import as the agent keeps it: §0C.20's record plus what the flow needs beside it. */
export const ImportCaseSchema = z.object({
  record: ImportedSkillRecordSchema,
  format: ArtifactFormatSchema,
  temp_artifact_ref: z.string().max(240),
  report: SkillCompatibilityReportSchema.optional(),
  bundle: SkillImportBundleSummarySchema.optional(),
  /** Failed retries by kind (§0C.20: after three, `retry_limit_reached`). */
  failed_retries: z.object({ scan: z.number().int().min(0), stage: z.number().int().min(0), install: z.number().int().min(0) }),
  frontmatter: PortableSkillFrontmatterSchema.optional(),
  ability_id: z.string().max(160).optional(),
  decision_note: z.string().max(1000).optional(),
});
export type ImportCase = z.infer<typeof ImportCaseSchema>;

const RequestRecordSchema = z.object({
  key: z.string().max(400),
  response: z.unknown(),
  at: z.string().datetime(),
});

/** §0C.20 rule 10: write routes answer a repeated `client_request_id` the same for 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

export interface ImportStore {
  readUpload(ref: string): Promise<StoredUpload | undefined>;
  readCase(importId: string): Promise<ImportCase | undefined>;
  cases(): Promise<ImportCase[]>;
  writeCase(entry: ImportCase): Promise<void>;
  /** Moves a case to `to` and logs the transition; the caller checked the edge is legal. */
  move(entry: ImportCase, to: SkillImportState, reason: string, changes?: Partial<ImportedSkillRecord>): Promise<ImportCase>;
  /** An import's receipts, its upload's included. */
  receiptsOf(importId: string, tempArtifactRef: string): Promise<SkillImportReceipt[]>;
  receipt(
    kind: SkillImportReceiptKind,
    fields: { import_id?: string; temp_artifact_ref?: string; ability_id?: string; details?: Record<string, unknown> },
  ): Promise<string>;
  /** The answer given to this request id on this route within 24 hours, if any. */
  answered(route: string, clientRequestId: string | undefined): Promise<unknown>;
  remember(route: string, clientRequestId: string | undefined, response: unknown): Promise<void>;
}

/** Every import's current file that can be read. */
async function readCases(memory: MemoryStore): Promise<ImportCase[]> {
  const names = (await memory.list(ImportPaths.records)).filter((name) => name.endsWith(".json"));
  const all = await Promise.all(names.map((name) => memory.readJson(`${ImportPaths.records}/${name}`, ImportCaseSchema)));
  return all.filter((entry): entry is ImportCase => entry !== undefined);
}

/** Writes the case in state `to`, then logs the transition. */
async function moveCase(
  memory: MemoryStore,
  now: () => string,
  entry: ImportCase,
  to: SkillImportState,
  reason: string,
  changes: Partial<ImportedSkillRecord>,
): Promise<ImportCase> {
  const at = now();
  const next: ImportCase = { ...entry, record: { ...entry.record, ...changes, stage_state: to, updated_at: at } };
  await memory.writeJson(ImportPaths.record(entry.record.import_id), next);
  await memory.append(
    ImportPaths.transitions,
    SkillImportTransitionSchema.parse({
      import_id: entry.record.import_id,
      from_state: entry.record.stage_state,
      to_state: to,
      actor: "user",
      reason: reason.slice(0, 240),
      correlation_id: entry.record.import_id,
      created_at: at,
      schema_version: 1,
    }),
  );
  return next;
}

/** An import's last 500 receipts, its upload's included. */
async function readReceiptsOf(memory: MemoryStore, importId: string, tempArtifactRef: string): Promise<SkillImportReceipt[]> {
  const mine = (receipt: SkillImportReceipt) =>
    receipt.import_id === importId || (receipt.import_id === undefined && receipt.temp_artifact_ref === tempArtifactRef);
  return (await memory.readJsonl(ImportPaths.receipts, SkillImportReceiptSchema)).filter(mine).slice(-500);
}

/** Appends one receipt and returns its id. */
async function appendReceipt(
  memory: MemoryStore,
  now: () => string,
  kind: SkillImportReceiptKind,
  fields: Parameters<ImportStore["receipt"]>[1],
): Promise<string> {
  const receiptId = randomUUID();
  await memory.append(
    ImportPaths.receipts,
    SkillImportReceiptSchema.parse({
      receipt_id: receiptId,
      receipt_kind: kind,
      ...fields,
      details: fields.details ?? {},
      created_at: now(),
      schema_version: 1,
    }),
  );
  return receiptId;
}

/** §0C.20 rule 10: the answers given by request id, kept in their log and looked up for 24 hours. */
function createRequestAnswers(memory: MemoryStore, clock: Clock): Pick<ImportStore, "answered" | "remember"> {
  // The answers given, read from their log by the first request that carries a request id, not at
  // start: the log keeps every answer ever given (issue 32).
  let answers: Promise<Map<string, { response: unknown; at: string }>> | undefined;
  const requestsRead = () => {
    answers ??= memory.readJsonl(ImportPaths.requests, RequestRecordSchema).then(
      (lines) => new Map(lines.map((line) => [line.key, { response: line.response, at: line.at }])),
      (error: unknown) => {
        answers = undefined;
        throw error;
      },
    );
    return answers;
  };
  const keyOf = (route: string, id: string) => `${route} ${id}`;
  return {
    async answered(route, clientRequestId) {
      if (clientRequestId === undefined) return undefined;
      const hit = (await requestsRead()).get(keyOf(route, clientRequestId));
      if (hit === undefined) return undefined;
      return clock.now().getTime() - new Date(hit.at).getTime() < IDEMPOTENCY_WINDOW_MS ? hit.response : undefined;
    },
    async remember(route, clientRequestId, response) {
      if (clientRequestId === undefined) return;
      const requests = await requestsRead();
      const line = { key: keyOf(route, clientRequestId), response, at: clock.now().toISOString() };
      await memory.append(ImportPaths.requests, line);
      requests.set(line.key, { response, at: line.at });
    },
  };
}

export function createImportStore(memory: MemoryStore, clock: Clock): ImportStore {
  const now = () => clock.now().toISOString();
  return {
    readUpload: (ref) => memory.readJson(ImportPaths.uploadMeta(ref), StoredUploadSchema),
    readCase: (importId) => memory.readJson(ImportPaths.record(importId), ImportCaseSchema),
    cases: () => readCases(memory),
    writeCase: (entry) => memory.writeJson(ImportPaths.record(entry.record.import_id), entry),
    move: (entry, to, reason, changes = {}) => moveCase(memory, now, entry, to, reason, changes),
    receiptsOf: (importId, tempArtifactRef) => readReceiptsOf(memory, importId, tempArtifactRef),
    receipt: (kind, fields) => appendReceipt(memory, now, kind, fields),
    ...createRequestAnswers(memory, clock),
  };
}
