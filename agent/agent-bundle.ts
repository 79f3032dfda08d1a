import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * How `npm start` runs the agent (issue 17): compiled once by esbuild into one JavaScript module,
 * its packages included, and run by plain `node`. Running the TypeScript through the tsx loader
 * costs every start about 40 MB (a second V8 isolate for the loader's hooks) and half a second of
 * compiling, and loading each package from its hundreds of files another 0.15 s of CPU. Tests keep
 * running the sources with tsx.
 */
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Where the compiled agent is written. One level under the project, as `agent/server.ts` is (it finds the project from there). */
export const AGENT_BUNDLE = path.join(projectRoot, ".output", "agent-server.mjs");

/**
 * Node flags the agent runs with (also in `npm start`, package.json): young-generation semispaces of
 * 4 MB rather than V8's 16 MB (start-up reads logs of a few MB, which grows the default young
 * generation and keeps it), and `gc()` exposed so that the agent collects the garbage of reading
 * its memory once, before it listens (agent/server.ts). Measured at 1,000 abilities and 100,000
 * receipts (bench/agent/agent-scale.bench.ts): the same CPU time, about 20 MB less RSS for each.
 */
export const AGENT_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=4", "--expose-gc"];

/** Compiles `agent/server.ts` and everything it imports from the project into `outfile`. */
export async function buildAgentBundle(outfile = AGENT_BUNDLE): Promise<string> {
  await build({
    entryPoints: [path.join(projectRoot, "agent", "server.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Loaded only by a run (a dynamic import): puppeteer, and what @puppeteer/replay loads for
    // options the agent does not use. They stay in node_modules.
    // The sentence encoder (issue #15) reads its model's files next to its own module: it stays in node_modules too.
    external: ["puppeteer-core", "puppeteer", "lighthouse", "@energetic-ai/*"],
    // Packages written as CommonJS call `require`, which an ES module does not have.
    banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
    // Minified (issue 17): V8 keeps the module's whole source text in the heap for as long as the agent
    // runs (its functions are compiled lazily from it) — 7 MB as written, with comments and indentation,
    // 3.5 MB minified, and fewer line ends to index: about 10 MB less RSS. Names are not kept (esbuild's
    // keepNames costs another 3–4 MB: a call per function and class at load); the linked source map
    // gives stack traces their names back under `node --enable-source-maps`.
    minify: true,
    legalComments: "none",
    sourcemap: "linked",
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`agent compiled: ${path.relative(process.cwd(), await buildAgentBundle())}\n`);
}
