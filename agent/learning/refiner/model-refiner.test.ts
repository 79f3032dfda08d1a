import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { WorkflowBoundarySchema } from "../../../shared/learning/sessions/boundary";
import { ObservedActionEventWithDetailSchema } from "../../../shared/learning/observed-actions/observed-action";
import { PageSnapshotSchema, type PageSnapshot } from "../../../shared/observation/page-snapshot";
import { interpretTrace, type Interpretation } from "../compiler/interpret";
import { normalizeTrace } from "../compiler/normalize-trace";
import { readyProposal } from "../../test-support/ready-proposal";
import { startTestAgent } from "../../test-support/test-agent";
import { readRefinerConfig, refineInterpretation, wordingOf, type RefinableWording, type RefinerConfig } from "./model-refiner";

/** The checkout golden demonstration (recorded with the built extension), compiled as generate-proposal does. */
function checkoutInterpretation(): Interpretation {
  const folder = fileURLToPath(new URL("../compiler/golden/checkout/", import.meta.url));
  const events = readFileSync(path.join(folder, "events.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ObservedActionEventWithDetailSchema.parse(JSON.parse(line)));
  const boundaries = z.array(WorkflowBoundarySchema).parse(JSON.parse(readFileSync(path.join(folder, "boundaries.json"), "utf8")));
  const snapshots = new Map<string, PageSnapshot>();
  for (const name of readdirSync(path.join(folder, "snapshots"))) {
    snapshots.set(name.replace(/\.json$/, ""), PageSnapshotSchema.parse(JSON.parse(readFileSync(path.join(folder, "snapshots", name), "utf8"))));
  }
  return interpretTrace({ trace: normalizeTrace({ events, boundaries }), snapshots, answers: {} });
}

/**
 * A small server that speaks the OpenAI chat-completions API: each test says how it answers. It
 * records what it was sent.
 */
let server: Server;
let answer: (request: { body: any; headers: IncomingMessage["headers"] }, response: ServerResponse) => void;
const received: Array<{ url: string; body: any; headers: IncomingMessage["headers"] }> = [];
let config: RefinerConfig;

beforeEach(async () => {
  received.length = 0;
  server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      const body = JSON.parse(text);
      received.push({ url: request.url ?? "", body, headers: request.headers });
      answer({ body, headers: request.headers }, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  config = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: "tiny-local", apiKey: "sk-local-test", timeoutMs: 1500 };
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function completion(response: ServerResponse, content: string, status = 200) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(
    JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] }),
  );
}

/** The model's answer: the wording it was sent, changed by `edit`. */
function rewording(edit: (wording: RefinableWording) => RefinableWording) {
  answer = ({ body }, response) => completion(response, JSON.stringify(edit(JSON.parse(body.messages[1].content) as RefinableWording)));
}

describe("optional model refiner (DESIGN §6 step 4)", () => {
  it("uses a good answer: reworded title, goal, triggers and checkpoints; ids, parameters and everything else kept", async () => {
    const deterministic = checkoutInterpretation();
    rewording((wording) => ({
      ...wording,
      title: "Place an order for the items in the cart",
      goal_summary: "Buy what is in the cart with the delivery speed and card the user gives, and confirm the order was placed.",
      triggers: ["place my order", "check out my cart", "buy the things in my cart"],
      checkpoints: wording.checkpoints.map((checkpoint, index) => ({ ...checkpoint, goal: `Stage ${index + 1}: ${checkpoint.goal}` })),
    }));
    const { interpretation, outcome } = await refineInterpretation(config, deterministic, []);
    expect(outcome).toEqual({ used: "model", model: "tiny-local" });
    expect(interpretation.title).toBe("Place an order for the items in the cart");
    expect(interpretation.triggers).toEqual(["place my order", "check out my cart", "buy the things in my cart"]);
    expect(interpretation.checkpoints.map((checkpoint) => checkpoint.goal)).toEqual(
      deterministic.checkpoints.map((checkpoint, index) => `Stage ${index + 1}: ${checkpoint.goal}`),
    );
    // The compiler's structure is untouched: name, parameters, graph, step links.
    expect(interpretation.slug).toBe(deterministic.slug);
    expect(interpretation.parameters).toEqual(deterministic.parameters);
    expect(interpretation.graph).toBe(deterministic.graph);
    expect(interpretation.checkpoints.map((checkpoint) => checkpoint.step_ids)).toEqual(deterministic.checkpoints.map((checkpoint) => checkpoint.step_ids));

    // What was sent: the configured model, the key, the wording only — no selectors, no graph.
    expect(received).toHaveLength(1);
    expect(received[0]?.url).toBe("/v1/chat/completions");
    expect(received[0]?.headers.authorization).toBe("Bearer sk-local-test");
    expect(received[0]?.body.model).toBe("tiny-local");
    expect(JSON.parse(received[0]?.body.messages[1].content)).toEqual(wordingOf(deterministic));
    expect(JSON.stringify(received[0]?.body)).not.toMatch(/aria\/|xpath\/|#[a-z]/);
  });

  it("accepts an answer wrapped in a code fence", async () => {
    const deterministic = checkoutInterpretation();
    answer = ({ body }, response) =>
      completion(response, `\`\`\`json\n${JSON.stringify({ ...JSON.parse(body.messages[1].content), title: "Check out the cart" })}\n\`\`\``);
    const { interpretation, outcome } = await refineInterpretation(config, deterministic, []);
    expect(outcome.used).toBe("model");
    expect(interpretation.title).toBe("Check out the cart");
  });

  const refused: Array<[string, (wording: RefinableWording) => unknown, RegExp]> = [
    [
      "a selector in a success condition",
      (wording) => ({
        ...wording,
        checkpoints: wording.checkpoints.map((checkpoint) => ({ ...checkpoint, success_condition: "The element #order-confirmation is visible" })),
      }),
      /checkpoint lint \(CKP-001\)/,
    ],
    [
      "coordinates",
      (wording) => ({
        ...wording,
        checkpoints: wording.checkpoints.map((checkpoint) => ({ ...checkpoint, goal: "Press the button at 120, 480 on the page" })),
      }),
      /CKP-002/,
    ],
    [
      "an invented email address",
      (wording) => ({
        ...wording,
        goal_summary: wording.goal_summary,
        checkpoints: wording.checkpoints.map((checkpoint) => ({ ...checkpoint, success_condition: "The receipt is sent to jane@example.com and shown" })),
      }),
      /CKP-003/,
    ],
    ["a dropped checkpoint", (wording) => ({ ...wording, checkpoints: wording.checkpoints.slice(1) }), /changed the checkpoints/],
    ["reordered checkpoints", (wording) => ({ ...wording, checkpoints: [...wording.checkpoints].reverse() }), /changed the checkpoints/],
    [
      "an unknown parameter",
      (wording) => ({ ...wording, goal_summary: "Check out and pay with {{coupon_code}} applied to the order." }),
      /unknown parameters: coupon_code/,
    ],
    [
      "many unknown parameters (the reason stays short)",
      (wording) => ({ ...wording, goal_summary: Array.from({ length: 15 }, (_, index) => `{{a_rather_long_parameter_name_${index}}}`).join(" ") }),
      /^the answer used unknown parameters: .{0,204}$/,
    ],
    ["a missing field", (wording) => ({ ...wording, triggers: undefined }), /does not have the skill's shape/],
    ["an extra field", (wording) => ({ ...wording, selectors: ["#buy"] }), /does not have the skill's shape/],
    ["an empty title", (wording) => ({ ...wording, title: "" }), /does not have the skill's shape/],
  ];
  it.each(refused)("keeps the deterministic wording when the answer has %s", async (_what, edit, reason) => {
    const deterministic = checkoutInterpretation();
    rewording(edit as (wording: RefinableWording) => RefinableWording);
    const { interpretation, outcome } = await refineInterpretation(config, deterministic, []);
    expect(outcome.used).toBe("deterministic");
    expect(outcome.reason).toMatch(reason);
    expect(interpretation).toBe(deterministic);
  });

  it("keeps the deterministic wording when the answer is not JSON, not a completion, or an HTTP error", async () => {
    const deterministic = checkoutInterpretation();
    for (const [respond, reason] of [
      [(response: ServerResponse) => completion(response, "Sure! Here is a better title: Checkout"), /not JSON/],
      [
        (response: ServerResponse) => (response.writeHead(200, { "content-type": "application/json" }), response.end('{"result":"ok"}')),
        /not a chat completion/,
      ],
      [
        (response: ServerResponse) => (response.writeHead(500, { "content-type": "application/json" }), response.end('{"error":{"message":"overloaded"}}')),
        /answered 500/,
      ],
      [(response: ServerResponse) => (response.writeHead(502, { "content-type": "text/html" }), response.end("<h1>Bad gateway</h1>")), /502 without JSON/],
    ] as const) {
      answer = (_request, response) => respond(response);
      const { interpretation, outcome } = await refineInterpretation(config, deterministic, []);
      expect(outcome).toMatchObject({ used: "deterministic", reason: expect.stringMatching(reason) });
      expect(interpretation).toBe(deterministic);
    }
  });

  it("times out cleanly when the model does not answer, and when nothing listens", async () => {
    const deterministic = checkoutInterpretation();
    answer = () => undefined; // never answers
    const started = Date.now();
    const slow = await refineInterpretation({ ...config, timeoutMs: 300 }, deterministic, []);
    expect(slow.outcome).toEqual({ used: "deterministic", model: "tiny-local", reason: "no answer within 300 ms" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(slow.interpretation).toBe(deterministic);

    const closed = await refineInterpretation({ ...config, baseUrl: "http://127.0.0.1:9/v1" }, deterministic, []);
    expect(closed.outcome.reason).toBe("the endpoint could not be reached");
  });

  it("never sends a value the user consented to record, and refuses an answer that contains one", async () => {
    const deterministic = checkoutInterpretation();
    const withValue = { ...deterministic, goal_summary: `${deterministic.goal_summary} Ship to Quillfeather Lane.` };
    rewording((wording) => wording);
    const unsent = await refineInterpretation(config, withValue, ["Quillfeather Lane"]);
    expect(unsent.outcome.reason).toMatch(/not sent/);
    expect(received).toHaveLength(0);

    rewording((wording) => ({ ...wording, goal_summary: `${wording.goal_summary} Ship to Quillfeather Lane.` }));
    const refusedAnswer = await refineInterpretation(config, deterministic, ["Quillfeather Lane"]);
    expect(refusedAnswer.outcome.reason).toMatch(/typed during the demonstration/);
    expect(refusedAnswer.interpretation).toBe(deterministic);
  });

  it("is configured from the environment, and off unless both URL and model are set", () => {
    expect(readRefinerConfig({})).toBeUndefined();
    expect(readRefinerConfig({ ELNOR_REFINER_URL: "http://127.0.0.1:11434/v1" })).toBeUndefined();
    expect(readRefinerConfig({ ELNOR_REFINER_URL: "http://127.0.0.1:11434/v1/", ELNOR_REFINER_MODEL: "llama3" })).toEqual({
      baseUrl: "http://127.0.0.1:11434/v1",
      model: "llama3",
      apiKey: undefined,
      timeoutMs: 15_000,
    });
    expect(
      readRefinerConfig({ ELNOR_REFINER_URL: "http://x/v1", ELNOR_REFINER_MODEL: "m", ELNOR_REFINER_API_KEY: "k", ELNOR_REFINER_TIMEOUT_MS: "5000" }),
    ).toMatchObject({ apiKey: "k", timeoutMs: 5000 });
    expect(readRefinerConfig({ ELNOR_REFINER_URL: "http://x/v1", ELNOR_REFINER_MODEL: "m", ELNOR_REFINER_TIMEOUT_MS: "120000" })?.timeoutMs).toBe(25_000);
    expect(() => readRefinerConfig({ ELNOR_REFINER_URL: "not a url", ELNOR_REFINER_MODEL: "m" })).toThrow();
  });
});

describe("the refiner in generate-proposal, through a real agent", () => {
  async function generateWith(refinerConfig: RefinerConfig) {
    const agent = await startTestAgent({ refiner: refinerConfig });
    const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
      const response = await agent.app.inject({
        method,
        url,
        headers: agent.headers(),
        ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      });
      return { status: response.statusCode, body: response.json() as Record<string, any> };
    };
    try {
      const { proposalId } = await readyProposal(call);
      const detail = (await call("GET", `/api/learn/proposals/${proposalId}/detail`)).body;
      const markdown = (await call("GET", `/api/learn/proposals/${proposalId}/skill-md`)).body.markdown as string;
      return { detail, markdown, logs: agent.logs.join("") };
    } finally {
      await agent.close();
    }
  }

  it("uses the model's wording in the draft SKILL.md and says so in the proposal detail", async () => {
    rewording((wording) => ({
      ...wording,
      title: "Download this month's invoices",
      triggers: ["download my invoices", "get the monthly invoices", ...wording.triggers].slice(0, 12),
    }));
    const { detail, markdown, logs } = await generateWith(config);
    expect(detail.wording_refinement).toEqual({ used: "model", model: "tiny-local" });
    expect(detail.proposal.title).toBe("Download this month's invoices");
    expect(markdown).toContain("Download this month's invoices");
    expect(markdown).toContain("download my invoices");
    // The skill keeps the compiler's name: the model rewords, it does not rename.
    expect(markdown).toContain('name: "export-the-monthly-invoices"');
    // The wording went to the model (it is the user's own configuration) but never into the logs.
    expect(received.length).toBeGreaterThan(0);
    expect(logs).not.toContain("Download this month's invoices");
  });

  it("keeps the deterministic proposal, and says why, when the model's answer breaks the checkpoint rules", async () => {
    rewording((wording) => ({
      ...wording,
      checkpoints: wording.checkpoints.map((checkpoint) => ({ ...checkpoint, success_condition: "div#export-done > span is shown" })),
    }));
    const { detail, markdown } = await generateWith(config);
    expect(detail.wording_refinement).toMatchObject({ used: "deterministic", reason: expect.stringMatching(/checkpoint lint/) });
    expect(detail.checkpoint_lint_report.passed).toBe(true);
    expect(markdown).not.toContain("#export-done");
    expect(detail.proposal.title).toBe("Export the monthly invoices");
  });
});
