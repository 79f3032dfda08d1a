/** The agent's version as reported by /api/health and pairing; bumped with package.json. */
export const AGENT_VERSION = "0.1.0";
