import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEncoderProcess, type EncoderProcess } from "./sentence-encoder-process";

const IDLE_MS = 30_000;

/** Whether a process runs (an exited one not yet reaped by its parent, a zombie, does not: Linux's /proc says so). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
};

/** Waits for a process to be gone, turn by turn of the event loop (no clock: the test's is fake). */
async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setImmediate(resolve));
}

describe("the sentence encoder's process (issue 32)", () => {
  let reader: EncoderProcess;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    reader = createEncoderProcess({ idleMs: () => IDLE_MS });
  });
  afterEach(async () => {
    await reader.stop();
    vi.useRealTimers();
  });

  it("ends its process once idle for idleMs, and starts a new one for the next text, with the same vectors", async () => {
    const [before] = await reader.embed(["rent a car for the weekend"]);
    const first = reader.pid() as number;
    expect(alive(first)).toBe(true);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(reader.running()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(reader.running()).toBe(false);
    await gone(first);
    const [after] = await reader.embed(["rent a car for the weekend"]);
    expect(reader.pid()).not.toBe(first);
    expect([...(after as Float32Array)]).toEqual([...(before as Float32Array)]);
  }, 60_000);

  it("is not ended while it reads, however long, and idles from its last reply", async () => {
    await reader.embed(["load the model"]);
    const pid = reader.pid() as number;
    const reading = reader.embed(Array.from({ length: 64 }, (_, at) => `phrase ${at} read while the clock runs`));
    vi.advanceTimersByTime(IDLE_MS * 10);
    expect((await reading).every((vector) => vector.length === 512)).toBe(true);
    expect(reader.pid()).toBe(pid);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(reader.running()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(reader.running()).toBe(false);
  }, 60_000);

  it("a process stopped in the middle of a read rejects that read, and the next read starts a new process", async () => {
    const reading = reader.embed(Array.from({ length: 128 }, (_, at) => `phrase ${at} read while the process stops`));
    await reader.stop();
    await expect(reading).rejects.toThrow(/process stopped/);
    const [vector] = await reader.embed(["read after the stop"]);
    expect(vector?.length).toBe(512);
  }, 60_000);

  it("leaves with the agent: when the process that started it ends, abruptly, it ends too", async () => {
    const script = `
      import { createEncoderProcess } from ${JSON.stringify(new URL("./sentence-encoder-process.ts", import.meta.url).href)};
      const reader = createEncoderProcess();
      await reader.embed(["load the model"]);
      process.stdout.write(String(reader.pid()));
      process.kill(process.pid, "SIGKILL");
    `;
    const agent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    agent.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => agent.on("exit", resolve));
    const pid = Number(output);
    expect(pid).toBeGreaterThan(0);
    await gone(pid);
    expect(alive(pid)).toBe(false);
  }, 60_000);
});
