import { z } from "zod";

/**
 * §0.2A How an action reaches an app, from most to least semantic. §0C.19 makes this list
 * canonical; the §1.1B copy (with `native_openclaw_nodes` / `native_openclaw_exec` and without
 * `native_openclaw_tool` / `wrapper_script`) is superseded and must not be accepted.
 */
export const ControlSurfaceSchema = z.enum([
  "native_openclaw_tool",
  "native_openclaw_browser",
  "bridge_tool",
  "mcp_connector",
  "mcp_server",
  "app_api",
  "wrapper_script",
  "applescript",
  "python_wrapper",
  "keyboard_shortcut",
  "midi_binding",
  "page_knowledge_ui",
  "raw_ui",
]);
/** §0.2A */
export type ControlSurface = z.infer<typeof ControlSurfaceSchema>;
