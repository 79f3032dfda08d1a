import { existsSync } from "node:fs";
import path from "node:path";

/** What `npm start` prints once the agent listens: where things are and how to pair. */
/** A URL as it may be printed: any `user:password@` taken out. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}

export function startupBanner(details: {
  url: string;
  memoryRoot: string;
  token: string;
  projectRoot: string;
  refiner?: { baseUrl: string; model: string } | undefined;
}): string {
  const extensionDir = path.join(details.projectRoot, ".output", "chrome-mv3");
  const built = existsSync(path.join(extensionDir, "manifest.json"));
  return [
    "",
    "elnor-learn agent is running.",
    `  Agent address:   ${details.url}`,
    `  ELNOR_MEMORY:    ${details.memoryRoot}`,
    `  Extension folder: ${built ? extensionDir : `${extensionDir} (not built yet: run \`npm run build\`)`}`,
    `  Model refiner:   ${details.refiner === undefined ? "off (proposals are worded by the deterministic compiler)" : `${details.refiner.model} at ${withoutCredentials(details.refiner.baseUrl)}`}`,
    "",
    "Load the extension in Chrome:",
    "  1. Open chrome://extensions and turn on Developer mode.",
    "  2. Click 'Load unpacked' and choose the extension folder above.",
    "  3. Click the elnor-learn toolbar button to open the Ability Learning side panel.",
    "",
    "Pair it: paste this token into the side panel (keep it private, it is your agent's key):",
    `  ${details.token}`,
    "",
    "Stop the agent with Ctrl+C.",
    "",
  ].join("\n");
}
