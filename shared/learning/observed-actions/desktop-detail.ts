import { z } from "zod";

/**
 * What a desktop adapter (terminal_command, process_launch — §0C.22 Phase 1) adds to an observed
 * event: the program and its arguments after masking (command-masking.ts), how it ended, and only
 * the last folder of the working directory (a full path can name the user).
 */
export const DesktopEventDetailSchema = z.object({
  program: z.string().min(1).max(120),
  args: z.array(z.string().max(400)).max(64),
  exit_code: z.number().int().optional(),
  duration_ms: z.number().int().min(0).optional(),
  cwd_name: z.string().max(120).optional(),
});
export type DesktopEventDetail = z.infer<typeof DesktopEventDetailSchema>;

/**
 * The `target_app_family` of a session that watches programs on this computer (the side panel's
 * "This computer"): desktop adapters report to it, and its `target_app_whitelist` may still name
 * sites the browser extension watches alongside. Without it, a session is a browser one.
 */
export const DESKTOP_APP_FAMILY = "desktop";

/** Whether a session watches this computer: desktop events are in its scope whatever sites it lists. */
export function watchesThisComputer(session: { target_app_family?: string | undefined; observation_mode: string }): boolean {
  return session.observation_mode !== "none" && session.target_app_family?.toLowerCase() === DESKTOP_APP_FAMILY;
}
