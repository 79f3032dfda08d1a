import type { SkillCompatibilityFinding } from "../../shared/skills/import";
import type { SkillImportFile } from "../../shared/skills/import-bundle";
import type { SkillImportState } from "../../shared/skills/import-state";

/** §0C.20 "required visible import states", in words; uploading is the panel's own step before a record exists. */
export const IMPORT_STATE_LABEL: Record<SkillImportState | "uploading", string> = {
  uploading: "Uploading…",
  upload_pending: "Waiting to upload",
  uploaded: "Uploaded, waiting for the scan",
  scanning: "Scanning…",
  scan_failed: "Scan failed",
  scan_complete: "Scan complete",
  staging: "Staging…",
  stage_failed: "Staging failed",
  ready_for_review: "Ready for review",
  install_queued: "Installing…",
  install_failed: "Install failed",
  installed_private: "Installed for you only",
  approved: "Approved for your workspace",
  rejected: "Rejected",
  discarded: "Discarded",
  expired: "Expired",
};

export const FILE_KIND_LABEL: Record<SkillImportFile["kind"], string> = {
  skill_md: "instructions",
  text: "text",
  script: "script (never run by the import)",
  binary: "binary file",
};

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export interface FindingGroup {
  id: "blocking" | "flagged" | "notes";
  title: string;
  findings: SkillCompatibilityFinding[];
}

/** Findings as the panel shows them: what blocks the import, what was flagged and why, and notes. */
export function groupFindings(findings: readonly SkillCompatibilityFinding[]): FindingGroup[] {
  const groups: FindingGroup[] = [
    { id: "blocking", title: "Blocks the import", findings: findings.filter((finding) => finding.severity === "error") },
    { id: "flagged", title: "Flagged for you to check", findings: findings.filter((finding) => finding.severity === "warning") },
    { id: "notes", title: "Notes", findings: findings.filter((finding) => finding.severity === "info") },
  ];
  return groups.filter((group) => group.findings.length > 0);
}

export interface ImportWarning {
  code: "upload_expiring_soon" | "upload_expired" | "retry_limit_reached" | "other";
  text: string;
}

/** The detail's warnings (`code: text`) as badges the panel can style by code. */
export function importWarnings(warnings: readonly string[]): ImportWarning[] {
  return warnings.map((warning) => {
    const colon = warning.indexOf(":");
    const code = colon > 0 ? warning.slice(0, colon) : "";
    const text = colon > 0 ? warning.slice(colon + 1).trim() : warning;
    return { code: code === "upload_expiring_soon" || code === "upload_expired" || code === "retry_limit_reached" ? code : "other", text };
  });
}

/** Which failed step a retry would repeat, for a record in a failed state. */
export function retryKindOf(state: SkillImportState): "scan" | "stage" | "install" | undefined {
  return state === "scan_failed" ? "scan" : state === "stage_failed" ? "stage" : state === "install_failed" ? "install" : undefined;
}

/** Accepted picks: a zip (a bundle or a zipped folder) or one SKILL.md (§0C.20 plus single-file import). */
export const IMPORT_ACCEPT = ".zip,.skillbundle.zip,.md,application/zip,application/x-zip-compressed,text/markdown";
