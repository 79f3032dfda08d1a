import { z } from "zod";
import { storage } from "wxt/utils/storage";
import { CaptureSessionStateSchema, type CaptureSessionState } from "../../../shared/observation/capture-protocol";
import {
  AgentLinkStateSchema,
  BackgroundFailureSchema,
  LastControlSchema,
  type AgentLinkState,
  type BackgroundFailure,
  type LastControl,
  OutboxStatusSchema,
  type OutboxStatus,
} from "../../../shared/observation/panel-messages";
import { TYPED_VALUES_MAX, TYPED_VALUE_MAX_LENGTH } from "../../observation/common/capture-messages";

/**
 * What the background keeps in `chrome.storage.session`: it outlives a service-worker restart
 * (so the badge, the registered sites and the hash key come back), is gone when the browser
 * closes (a new browser asks the agent again), and content scripts cannot read it (the default
 * TRUSTED_CONTEXTS access level): the hash key reaches only observed pages, in their config.
 * Every read is parsed; a bad value reads as absent.
 */

export const CaptureMirrorSchema = z.object({
  session: CaptureSessionStateSchema.nullable(),
  received_at: z.string().datetime(),
});
export type CaptureMirror = z.infer<typeof CaptureMirrorSchema>;

export const HashKeyRecordSchema = z.object({
  learn_session_id: z.string().uuid(),
  key: z.string().min(16).max(128),
});
export type HashKeyRecord = z.infer<typeof HashKeyRecordSchema>;

/**
 * Values typed on the session's pages (privacy-boundary.ts): in `chrome.storage.session`, which is
 * memory only (never written to disk) and unreadable by content scripts; forgotten with the session.
 */
/**
 * Values typed in the session, by the allow-list entry of the site they were typed on (issue #30):
 * a page is told only those of its own site, so a script on one allowed site can never probe what
 * was typed on another.
 */
export const TypedValuesRecordSchema = z.object({
  learn_session_id: z.string().uuid(),
  by_site: z.record(z.string().max(200), z.array(z.string().max(TYPED_VALUE_MAX_LENGTH)).max(TYPED_VALUES_MAX)),
});
export type TypedValuesRecord = z.infer<typeof TypedValuesRecordSchema>;

export const STORAGE_KEYS = {
  mirror: "session:captureMirror",
  hashKey: "session:captureHashKey",
  typedValues: "session:captureTypedValues",
  outboxStatus: "session:outboxStatus",
  agentLink: "session:agentLink",
  lastControl: "session:lastControl",
  lastFailure: "session:lastFailure",
} as const;

export interface BackgroundStore {
  loadMirror(): Promise<CaptureSessionState | null>;
  saveMirror(session: CaptureSessionState | null, receivedAt: Date): Promise<void>;
  loadHashKey(): Promise<HashKeyRecord | null>;
  saveHashKey(record: HashKeyRecord): Promise<void>;
  forgetHashKey(): Promise<void>;
  loadTypedValues(): Promise<TypedValuesRecord | null>;
  saveTypedValues(record: TypedValuesRecord): Promise<void>;
  forgetTypedValues(): Promise<void>;
  loadOutboxStatus(): Promise<OutboxStatus | null>;
  saveOutboxStatus(status: OutboxStatus): Promise<void>;
  loadAgentLink(): Promise<AgentLinkState>;
  saveAgentLink(state: AgentLinkState): Promise<void>;
  loadLastControl(): Promise<LastControl | null>;
  saveLastControl(control: LastControl): Promise<void>;
  loadLastFailure(): Promise<BackgroundFailure | null>;
  saveLastFailure(failure: BackgroundFailure): Promise<void>;
}

function parsedOr<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

export function createBackgroundStore(): BackgroundStore {
  const mirror = storage.defineItem<unknown>(STORAGE_KEYS.mirror, { fallback: null, version: 1 });
  const hashKey = storage.defineItem<unknown>(STORAGE_KEYS.hashKey, { fallback: null, version: 1 });
  const typedValues = storage.defineItem<unknown>(STORAGE_KEYS.typedValues, { fallback: null, version: 1 });
  const outboxStatus = storage.defineItem<unknown>(STORAGE_KEYS.outboxStatus, { fallback: null, version: 1 });
  const agentLink = storage.defineItem<unknown>(STORAGE_KEYS.agentLink, { fallback: null, version: 1 });
  const lastControl = storage.defineItem<unknown>(STORAGE_KEYS.lastControl, { fallback: null, version: 1 });
  const lastFailure = storage.defineItem<unknown>(STORAGE_KEYS.lastFailure, { fallback: null, version: 1 });
  return {
    loadMirror: async () => parsedOr(CaptureMirrorSchema, await mirror.getValue())?.session ?? null,
    saveMirror: (session, receivedAt) => mirror.setValue(CaptureMirrorSchema.parse({ session, received_at: receivedAt.toISOString() })),
    loadHashKey: async () => parsedOr(HashKeyRecordSchema, await hashKey.getValue()),
    saveHashKey: (record) => hashKey.setValue(HashKeyRecordSchema.parse(record)),
    forgetHashKey: () => hashKey.removeValue(),
    loadTypedValues: async () => parsedOr(TypedValuesRecordSchema, await typedValues.getValue()),
    saveTypedValues: (record) => typedValues.setValue(TypedValuesRecordSchema.parse(record)),
    forgetTypedValues: () => typedValues.removeValue(),
    loadOutboxStatus: async () => parsedOr(OutboxStatusSchema, await outboxStatus.getValue()),
    saveOutboxStatus: (status) => outboxStatus.setValue(OutboxStatusSchema.parse(status)),
    loadAgentLink: async () => parsedOr(AgentLinkStateSchema, await agentLink.getValue()) ?? "disconnected",
    saveAgentLink: (state) => agentLink.setValue(state),
    loadLastControl: async () => parsedOr(LastControlSchema, await lastControl.getValue()),
    saveLastControl: (control) => lastControl.setValue(LastControlSchema.parse(control)),
    loadLastFailure: async () => parsedOr(BackgroundFailureSchema, await lastFailure.getValue()),
    saveLastFailure: (failure) => lastFailure.setValue(BackgroundFailureSchema.parse(failure)),
  };
}
