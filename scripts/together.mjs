// Runs the commands given as arguments at the same time, prints each one's output whole when it
// ends (their lines do not interleave), and fails if any of them failed. `npm run check` runs its
// three checkers with it: each is mostly single-threaded, so on two cores they end sooner together.
import { spawn } from "node:child_process";

const commands = process.argv.slice(2);
if (commands.length === 0) {
  console.error('usage: node scripts/together.mjs "command one" "command two" …');
  process.exit(2);
}

const run = (command) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? "1" } });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on("close", (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = code === 0 ? "passed" : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> ${command}\n`);
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`> ${outcome} in ${seconds} s\n`);
      resolve(code === 0);
    });
  });

const results = await Promise.all(commands.map(run));
const failed = commands.filter((_, index) => !results[index]);
if (failed.length > 0) {
  console.error(`\n${failed.length} of ${commands.length} failed: ${failed.join("; ")}`);
  process.exit(1);
}
