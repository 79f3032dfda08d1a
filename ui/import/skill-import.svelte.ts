import type { SkillTriggerTestResponse } from "../../shared/skills/import";
import type { SkillImportDetailView } from "../../shared/skills/import-bundle";
import { describeFailure } from "../common/failure-text";
import { report, type LearnDeps } from "../common/learn-deps";
import { retryKindOf } from "./skill-import-text";

/**
 * Import Skill (§0C.20 UI): pick a file, upload it, scan it, and only then offer the decisions.
 * The scan is shown in words before stage, test, install or approve are enabled. The state is the
 * agent's record; this class only says which step the person is on.
 */
export class SkillImportFlowState {
  /** `pick`: no file yet; `working`: a call is running (see `busy`); `review`: a record to show. */
  phase = $state<"pick" | "working" | "review">("pick");
  busy = $state<string | null>(null);
  detail = $state.raw<SkillImportDetailView | null>(null);
  error = $state<string | null>(null);
  test = $state.raw<SkillTriggerTestResponse | null>(null);
  testedText = $state("");
  readonly #deps: LearnDeps;
  readonly #onaccepted: (abilityId: string | undefined) => void;

  constructor(deps: LearnDeps, callbacks: { onaccepted: (abilityId: string | undefined) => void }) {
    this.#deps = deps;
    this.#onaccepted = callbacks.onaccepted;
  }

  get state() {
    return this.detail?.import_record.stage_state;
  }

  async #run(label: string, work: () => Promise<void>): Promise<void> {
    const before = this.phase;
    this.busy = label;
    this.phase = "working";
    this.error = null;
    try {
      await work();
      this.phase = this.detail === null ? "pick" : "review";
    } catch (error) {
      report(this.#deps, error);
      this.error = describeFailure(error);
      this.phase = this.detail === null ? "pick" : before === "working" ? "review" : before;
    } finally {
      this.busy = null;
    }
  }

  async #reload(importId: string): Promise<void> {
    this.detail = await this.#deps.client.skillImportDetail(importId);
  }

  /** Upload, then scan: the panel never passes a desktop path, only the agent's handle (§0C.20 rules 1–2). */
  async pick(file: File): Promise<void> {
    this.test = null;
    await this.#run("Uploading…", async () => {
      const uploaded = await this.#deps.client.uploadSkillBundle(file, file.name);
      this.busy = "Scanning…";
      const scanned = await this.#deps.client.scanSkillImport(uploaded.temp_artifact.temp_artifact_ref);
      await this.#reload(scanned.import_record.import_id);
    });
  }

  async open(importId: string): Promise<void> {
    await this.#run("Loading the import…", () => this.#reload(importId));
  }

  async stage(): Promise<void> {
    const importId = this.detail?.import_record.import_id;
    if (importId === undefined) return;
    await this.#run("Staging…", async () => {
      await this.#deps.client.stageSkillImport(importId);
      await this.#reload(importId);
    });
  }

  async runTest(text: string): Promise<void> {
    const importId = this.detail?.import_record.import_id;
    if (importId === undefined || text.trim() === "") return;
    await this.#run("Testing…", async () => {
      this.test = await this.#deps.client.triggerTest({ import_id: importId, trigger_text: text.trim(), schema_version: 1 });
      this.testedText = text.trim();
    });
  }

  async decide(decision: "install" | "approve" | "discard" | { reject: string }): Promise<void> {
    const importId = this.detail?.import_record.import_id;
    if (importId === undefined) return;
    const client = this.#deps.client;
    await this.#run(decision === "install" ? "Installing…" : decision === "approve" ? "Approving…" : "Saving…", async () => {
      if (decision === "install") await client.installSkillImport(importId);
      else if (decision === "approve") await client.approveSkillImport(importId);
      else if (decision === "discard") await client.discardSkillImport(importId);
      else await client.rejectSkillImport(importId, decision.reject);
      await this.#reload(importId);
      const state = this.state;
      if (state === "installed_private" || state === "approved") this.#onaccepted(this.detail?.ability_id);
    });
  }

  async retry(): Promise<void> {
    const record = this.detail?.import_record;
    const kind = record === undefined ? undefined : retryKindOf(record.stage_state);
    if (record === undefined || kind === undefined) return;
    await this.#run("Retrying…", async () => {
      await this.#deps.client.retrySkillImport(record.import_id, kind);
      await this.#reload(record.import_id);
    });
  }

  /** Back to the file picker (restart from upload, §0C.20 for an expired import). */
  reset(): void {
    this.phase = "pick";
    this.detail = null;
    this.error = null;
    this.test = null;
    this.testedText = "";
  }
}
