import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../../agent/test-support/agent-process";

/** `scripts/together.mjs`, which `npm run check` runs its checkers with: a failure anywhere fails the whole. */
const together = (...commands: string[]) =>
  spawnSync(process.execPath, [path.join(projectRoot, "scripts", "together.mjs"), ...commands], {
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: "0" },
  });

describe("scripts/together.mjs", () => {
  it("passes when every command passes, and prints each one's output whole under its own header", () => {
    const result = together("echo one; sleep 0.2; echo two", "echo three");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/> echo three\nthree\n> passed/);
    expect(result.stdout).toMatch(/> echo one; sleep 0\.2; echo two\none\ntwo\n> passed/);
  });

  it("fails when any command fails, whichever ends first, and names it", () => {
    const result = together("sleep 0.2; exit 3", "echo fine");
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("> failed (exit 3)");
    expect(result.stderr).toContain("1 of 2 failed: sleep 0.2; exit 3");
  });

  it("refuses to run nothing", () => {
    expect(together().status).toBe(2);
  });
});
