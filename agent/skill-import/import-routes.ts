import multipart from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { PaginationQuerySchema } from "../../shared/learning/route-contracts";
import {
  SKILL_IMPORT_MAX_UPLOAD_BYTES,
  SkillImportApproveRequestSchema,
  SkillImportDeleteUploadResponseSchema,
  SkillImportDiscardRequestSchema,
  SkillImportInstallPrivateRequestSchema,
  SkillImportListResponseSchema,
  SkillImportRejectRequestSchema,
  SkillImportRetryRequestSchema,
  SkillImportScanRequestSchema,
  SkillImportScanResponseSchema,
  SkillImportStageRequestSchema,
  SkillImportStageResponseSchema,
  SkillImportTerminalActionResponseSchema,
  SkillImportUploadMetadataSchema,
  SkillImportUploadResponseSchema,
  SkillPacksListResponseSchema,
  SkillTriggerTestRequestSchema,
  SkillTriggerTestResponseSchema,
  type SkillImportUploadMetadata,
} from "../../shared/skills/import";
import { SkillImportDetailViewSchema } from "../../shared/skills/import-bundle";
import { AppError, isAppError } from "../errors/app-error";
import type { ImportDecisions } from "./import-decisions";
import type { ImportFlow } from "./import-flow";
import type { UploadInput } from "./import-upload";
import type { ImportStore } from "./import-store";
import { SKILL_PACKS } from "./skill-packs";

export interface ImportRoutesOptions {
  flow: ImportFlow;
  decisions: ImportDecisions;
  store: ImportStore;
}

const UploadParamsSchema = z.object({ tempArtifactRef: z.string().max(240) });
const ImportParamsSchema = z.object({ importId: z.string().max(80) });

/** Multipart's own refusals, as our codes (its errors are not fastify's FST_ERR_* family). */
function multipartError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const code = (error as { code?: string }).code ?? "";
  if (code === "FST_REQ_FILE_TOO_LARGE")
    return new AppError("SKILL_IMPORT_FILE_TOO_LARGE", `A skill bundle may be at most ${SKILL_IMPORT_MAX_UPLOAD_BYTES / 1024 / 1024} MB.`);
  if (code === "FST_INVALID_MULTIPART_CONTENT_TYPE")
    return new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "Upload the bundle as multipart/form-data with a file part named bundle.");
  return new AppError("REQUEST_INVALID", "The multipart upload is malformed: send one file part named bundle and an optional metadata part.");
}

/** §0C.20 multipart contract: the `bundle` file part and the optional JSON `metadata` part. */
async function readUpload(request: FastifyRequest): Promise<UploadInput> {
  if (!request.isMultipart()) throw new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "Upload the bundle as multipart/form-data with a file part named bundle.");
  let file: { filename: string; mimetype: string; bytes: Buffer } | undefined;
  let metadataText: string | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: SKILL_IMPORT_MAX_UPLOAD_BYTES, files: 1, fields: 4, parts: 5, fieldSize: 16 * 1024 } })) {
      if (part.type === "file") {
        const bytes = await part.toBuffer();
        if (part.fieldname !== "bundle" || file !== undefined) throw new AppError("REQUEST_INVALID", "Send exactly one file part, named bundle.");
        // A part sent as bytes without a file name is still a "file" to the parser; its kind cannot be told.
        if (typeof part.filename !== "string" || part.filename === "")
          throw new AppError("SKILL_IMPORT_UNSUPPORTED_EXTENSION", "Send the bundle part with its file name (.zip, .skillbundle.zip or SKILL.md).");
        file = { filename: part.filename, mimetype: typeof part.mimetype === "string" ? part.mimetype : "", bytes };
      } else if (part.fieldname === "metadata") {
        if (part.valueTruncated) throw new AppError("REQUEST_INVALID", "The metadata part is too long.");
        metadataText = String(part.value);
      }
    }
  } catch (error) {
    throw multipartError(error);
  }
  if (file === undefined) throw new AppError("SKILL_IMPORT_ARCHIVE_REQUIRED", "The upload has no file part named bundle.");
  let metadata: SkillImportUploadMetadata = { source: "manual_upload", schema_version: 1 };
  if (metadataText !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(metadataText);
    } catch {
      throw new AppError("REQUEST_INVALID", "The metadata part is not JSON.");
    }
    const parsed = SkillImportUploadMetadataSchema.safeParse(value);
    if (!parsed.success)
      throw new AppError("REQUEST_INVALID", "The metadata part does not match SkillImportUploadMetadataSchema.", {
        issues: parsed.error.issues
          .slice(0, 20)
          .map((issue) => ({ path: `metadata/${issue.path.join("/")}`.slice(0, 240), message: issue.message.slice(0, 240) })),
      });
    metadata = parsed.data;
  }
  return { ...file, metadata };
}

type Once = <T>(route: string, clientRequestId: string | undefined, run: () => Promise<T>) => Promise<T>;
type RouteApp = Parameters<FastifyPluginAsyncZod<ImportRoutesOptions>>[0];

/** The person's decisions on a staged import: approve, reject, install privately, discard, retry. */
function decisionRoutes(app: RouteApp, decisions: ImportDecisions, once: Once): void {
  app.post(
    "/api/skills/import/approve",
    { schema: { body: SkillImportApproveRequestSchema, response: { 200: SkillImportTerminalActionResponseSchema } } },
    async (request) => once("approve", request.body.client_request_id, () => decisions.approve(request.body.import_id, request.body.approval_note)),
  );

  app.post(
    "/api/skills/import/reject",
    { schema: { body: SkillImportRejectRequestSchema, response: { 200: SkillImportTerminalActionResponseSchema } } },
    async (request) => once("reject", request.body.client_request_id, () => decisions.reject(request.body.import_id, request.body.reason)),
  );

  app.post(
    "/api/skills/import/install-private",
    { schema: { body: SkillImportInstallPrivateRequestSchema, response: { 200: SkillImportTerminalActionResponseSchema } } },
    async (request) =>
      once("install-private", request.body.client_request_id, () => decisions.installPrivate(request.body.import_id, request.body.target_scope)),
  );

  app.post(
    "/api/skills/import/discard",
    { schema: { body: SkillImportDiscardRequestSchema, response: { 200: SkillImportTerminalActionResponseSchema } } },
    async (request) => once("discard", request.body.client_request_id, () => decisions.discard(request.body.import_id, request.body.reason)),
  );

  app.post(
    "/api/skills/import/retry",
    { schema: { body: SkillImportRetryRequestSchema, response: { 200: SkillImportTerminalActionResponseSchema } } },
    async (request) =>
      once(`retry:${request.body.retry_kind}`, request.body.client_request_id, () => decisions.retry(request.body.import_id, request.body.retry_kind)),
  );
}

/**
 * §0C.20 routes: upload, scan, stage, review decisions, retries, detail, list, trigger test and
 * packs. Writes run one at a time; a write repeated with the same `client_request_id` within 24
 * hours gets the first answer again (rule 10).
 */
export const importRoutes: FastifyPluginAsyncZod<ImportRoutesOptions> = async (app, { flow, decisions, store }) => {
  // Registered in this plugin only: every other route still refuses multipart bodies with a 415.
  await app.register(multipart, { throwFileSizeLimit: true, limits: { fileSize: SKILL_IMPORT_MAX_UPLOAD_BYTES, files: 1 } });

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run);
    queue = next.catch(() => undefined);
    return next;
  };
  const once: Once = (route, clientRequestId, run) =>
    serial(async () => {
      const previous = await store.answered(route, clientRequestId);
      if (previous !== undefined) return previous as Awaited<ReturnType<typeof run>>;
      const response = await run();
      await store.remember(route, clientRequestId, response);
      return response;
    });

  await flow.sweepExpired();

  app.post(
    "/api/skills/import/uploads",
    { schema: { consumes: ["multipart/form-data"], response: { 200: SkillImportUploadResponseSchema } } },
    async (request) => {
      const upload = await readUpload(request);
      return once("uploads", upload.metadata.client_request_id, () => flow.upload(upload));
    },
  );

  app.delete(
    "/api/skills/import/uploads/:tempArtifactRef",
    { schema: { params: UploadParamsSchema, response: { 200: SkillImportDeleteUploadResponseSchema } } },
    async (request) => serial(() => flow.deleteUpload(request.params.tempArtifactRef)),
  );

  app.post("/api/skills/import/scan", { schema: { body: SkillImportScanRequestSchema, response: { 200: SkillImportScanResponseSchema } } }, async (request) =>
    once("scan", request.body.client_request_id, () => flow.scan(request.body)),
  );

  app.post(
    "/api/skills/import/stage",
    { schema: { body: SkillImportStageRequestSchema, response: { 200: SkillImportStageResponseSchema } } },
    async (request) => once("stage", request.body.client_request_id, () => flow.stage(request.body)),
  );

  decisionRoutes(app, decisions, once);

  app.get("/api/skills/import/list", { schema: { querystring: PaginationQuerySchema, response: { 200: SkillImportListResponseSchema } } }, async (request) => {
    await serial(() => flow.sweepExpired());
    return flow.list(request.query.page, request.query.page_size);
  });

  app.get("/api/skills/import/:importId", { schema: { params: ImportParamsSchema, response: { 200: SkillImportDetailViewSchema } } }, async (request) =>
    flow.detail(request.params.importId),
  );

  app.post(
    "/api/skills/trigger-test",
    { schema: { body: SkillTriggerTestRequestSchema, response: { 200: SkillTriggerTestResponseSchema } } },
    async (request) => serial(() => decisions.triggerTest(request.body)),
  );

  app.get("/api/skills/packs", { schema: { response: { 200: SkillPacksListResponseSchema } } }, async () => ({
    packs: [...SKILL_PACKS],
    schema_version: 1 as const,
  }));
};
