import { SkillImportReceiptSchema } from "../../shared/skills/import-bundle";
import type { TestAgent } from "./test-agent";
import { zipFolder } from "./test-zip";

/** A bundle as people publish them: name and description only, a long description, scripts, binary assets, nested code. */
export const PUBLIC_DESCRIPTION =
  "Fill in, flatten and check PDF forms: reads the form's fields, fills them from values the user gives, and writes a new PDF without touching the original. " +
  "Use when the user asks to fill in a PDF form, complete a tax or application form saved as PDF, or check which fields of a PDF form are still empty. " +
  "Works with AcroForm fields; scanned forms need OCR first, which this skill does not do. ".repeat(5);

export const FONT_BYTES = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 7919 + 13) % 256));

export function publicBundle(name = "pdf-form-filler", description = PUBLIC_DESCRIPTION): Buffer {
  return zipFolder(name, {
    "SKILL.md": `---\nname: ${name}\ndescription: >-\n  ${description}\nlicense: Apache-2.0\n---\n\n# PDF form filler\n\nRead [the field guide](references/FIELDS.md) first, then run \`scripts/fill_form.py\`.\n`,
    "scripts/fill_form.py": { data: "#!/usr/bin/env python3\nimport sys\nprint('filling', sys.argv)\n", mode: 0o100755 },
    "scripts/__init__.py": "",
    "scripts/lib/fields.py": "def fields(pdf):\n    return []\n",
    "references/FIELDS.md": "# Fields\n\nText, check boxes, radio groups.\n",
    "assets/Inter-Regular.ttf": FONT_BYTES,
    "requirements.txt": "pypdf==4.2.0\n",
  });
}

/** A multipart body as a browser's FormData sends it. */
export async function multipartBody(
  file: { name: string; type: string; bytes: Buffer },
  metadata?: unknown,
): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  form.append("bundle", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  if (metadata !== undefined) form.append("metadata", JSON.stringify(metadata));
  const request = new Request("http://127.0.0.1/", { method: "POST", body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get("content-type") as string };
}

export async function uploadThrough(
  agent: TestAgent,
  file: { name: string; type?: string; bytes: Buffer },
  metadata?: unknown,
): Promise<{ status: number; body: Record<string, any> }> {
  const { payload, contentType } = await multipartBody({ type: "application/zip", ...file }, metadata);
  const response = await agent.app.inject({
    method: "POST",
    url: "/api/skills/import/uploads",
    headers: agent.headers({ "content-type": contentType }),
    payload,
  });
  return { status: response.statusCode, body: response.json() as Record<string, any> };
}

/** Upload, scan and stage a bundle; the import id, ready for review. */
export async function stageThrough(agent: TestAgent, bytes: Buffer, name = "bundle.zip"): Promise<string> {
  const uploaded = await uploadThrough(agent, { name, bytes });
  if (uploaded.status !== 200) throw new Error(`upload answered ${uploaded.status}: ${JSON.stringify(uploaded.body)}`);
  const scanned = await agent.call("POST", "/api/skills/import/scan", {
    source: "anthropic_bundle",
    temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
    schema_version: 1,
  });
  if (scanned.body.import_record?.stage_state !== "scan_complete") throw new Error(`scan: ${JSON.stringify(scanned.body).slice(0, 800)}`);
  const importId = scanned.body.import_record.import_id as string;
  const staged = await agent.call("POST", "/api/skills/import/stage", { import_id: importId, schema_version: 1 });
  if (staged.body.import_record?.stage_state !== "ready_for_review") throw new Error(`stage: ${JSON.stringify(staged.body)}`);
  return importId;
}

/** Upload a bundle as a manual upload and scan it: the import id, the state the scan left, its findings. */
export async function scanThrough(agent: TestAgent, bytes: Buffer): Promise<{ importId: string; state: string; findings: Array<Record<string, unknown>> }> {
  const uploaded = await uploadThrough(agent, { name: "b.zip", bytes });
  const scanned = await agent.call("POST", "/api/skills/import/scan", {
    source: "manual_upload",
    temp_artifact_ref: uploaded.body.temp_artifact.temp_artifact_ref,
    schema_version: 1,
  });
  return {
    importId: scanned.body.import_record.import_id,
    state: scanned.body.import_record.stage_state,
    findings: scanned.body.compatibility_report.findings,
  };
}

/** The kinds of the import receipts written so far, in order. */
export async function importReceiptKinds(agent: TestAgent): Promise<string[]> {
  return (await agent.memory.readJsonl("system/skills/import/receipts.jsonl", SkillImportReceiptSchema)).map((receipt) => receipt.receipt_kind);
}
