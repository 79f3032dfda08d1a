import type { FastifyRequest } from "fastify";
import type { RawData, WebSocket } from "ws";
import type { LearnSession } from "../../shared/learning/sessions/learn-session";
import type { ObservationScopeRuntime } from "../../shared/learning/sessions/observation-scope-runtime";
import {
  AgentFrameSchema,
  CAPTURE_CLOSE_CODES,
  ClientFrameSchema,
  type AgentFrame,
  type CaptureSessionState,
  type ClientFrame,
} from "../../shared/observation/capture-protocol";
import { toAppError, toEnvelope } from "../http/error-handler";
import type { TabRelayLink } from "../execution/in-tab/tab-relay";
import { tokensMatch } from "../security/agent-token";
import { AGENT_VERSION } from "../../shared/common/agent-version";
import type { AdapterRegistry } from "./adapter-registry";
import type { IngestRoutesOptions } from "./ingest-routes";
import { assertNever } from "../../shared/common/assert-never";

export function captureStateOf(session: LearnSession | undefined, scope: ObservationScopeRuntime | undefined): CaptureSessionState | null {
  if (session === undefined) return null;
  return {
    learn_session_id: session.learn_session_id,
    state: session.state,
    target_app_whitelist: session.target_app_whitelist,
    redaction_modes: scope?.redaction_modes ?? {},
  };
}

/** One extension socket: what it said, what it holds, and how to answer it. */
interface CaptureSocket {
  socket: WebSocket;
  request: FastifyRequest;
  options: IngestRoutesOptions;
  send: (frame: AgentFrame) => boolean;
  hello: boolean;
  adapterIds: string[];
  /** Frames are handled one at a time, in order, so acks follow the batches they answer. */
  queue: Promise<void>;
  tabLink?: TabRelayLink | undefined;
  dropTabLink?: (() => void) | undefined;
  stopNotices?: (() => void) | undefined;
}

/**
 * The extension's socket: hello with the token first, then batches, each answered once it is durable.
 * `sockets` holds the open ones (the agent closes them on shutdown).
 */
export function openCaptureSocket(socket: WebSocket, request: FastifyRequest, options: IngestRoutesOptions, sockets: Set<WebSocket>): void {
  sockets.add(socket);
  const helloTimeoutMs = options.helloTimeoutMs ?? 5000;
  const send = (frame: AgentFrame): boolean => {
    if (socket.readyState !== socket.OPEN) return false;
    socket.send(JSON.stringify(AgentFrameSchema.parse(frame)));
    return true;
  };
  const link: CaptureSocket = { socket, request, options, send, hello: false, adapterIds: [], queue: Promise.resolve() };
  const stopListening = options.sessions.onCurrentChange((session, scope) => {
    if (link.hello) send({ type: "session", session: captureStateOf(session, scope) });
  });
  const timer = setTimeout(() => {
    if (!link.hello) socket.close(CAPTURE_CLOSE_CODES.helloTimeout, "say hello first");
  }, helloTimeoutMs);

  socket.on("message", (data) => {
    link.queue = link.queue.then(() => onFrame(link, data, timer));
  });
  socket.on("close", () => {
    link.dropTabLink?.();
    link.stopNotices?.();
    clearTimeout(timer);
    stopListening();
    sockets.delete(socket);
    for (const id of link.adapterIds) options.adapters.disconnect(id.split("|")[0] ?? "");
  });
}

function beat({ adapterIds, options }: CaptureSocket): void {
  for (const id of adapterIds) {
    const [adapterId, kind] = id.split("|") as [string, Parameters<AdapterRegistry["heartbeat"]>[0]["kind"]];
    options.adapters.heartbeat({ adapter_id: adapterId, kind, enabled: true });
  }
}

async function onFrame(link: CaptureSocket, data: RawData, timer: NodeJS.Timeout): Promise<void> {
  const { socket } = link;
  // Once the agent has closed the socket (bad frame, no hello), frames that were already on
  // the wire are dropped, not ingested behind a close the sender reads as "not delivered".
  if (socket.readyState !== socket.OPEN) return;
  let frame;
  try {
    frame = ClientFrameSchema.safeParse(JSON.parse(data.toString()));
  } catch {
    frame = undefined;
  }
  if (frame === undefined || !frame.success) {
    socket.close(link.hello ? CAPTURE_CLOSE_CODES.badFrame : CAPTURE_CLOSE_CODES.unauthorized, "not a valid frame");
    return;
  }
  if (!link.hello) {
    onHello(link, frame.data, timer);
    return;
  }
  await onMessage(link, frame.data);
}

/** The first frame: hello with the agent token, else the socket is closed. */
function onHello(link: CaptureSocket, message: ClientFrame, timer: NodeJS.Timeout): void {
  const { socket, options, send } = link;
  if (message.type !== "hello" || !tokensMatch(options.token, message.token)) {
    socket.close(CAPTURE_CLOSE_CODES.unauthorized, "the first frame must be hello with the agent token");
    return;
  }
  link.hello = true;
  clearTimeout(timer);
  link.adapterIds = message.adapter_kinds.map((kind) => `${message.adapter_id}:${kind}|${kind}`);
  beat(link);
  const current = options.sessions.current();
  send({ type: "welcome", agent_version: AGENT_VERSION, session: captureStateOf(current?.session, current?.scope) });
  if (options.tabRelay !== undefined && message.adapter_kinds.includes("browser_dom")) {
    link.tabLink = { send };
    link.dropTabLink = options.tabRelay.connect(link.tabLink);
  }
  if (options.runNotices !== undefined && message.adapter_kinds.includes("browser_dom")) {
    send({ type: "run_notices", waiting: options.runNotices.waiting() });
    link.stopNotices = options.runNotices.subscribe((notice) => void send({ type: "run_notice", notice }));
  }
}

/** A frame after hello: heartbeats, batches (acknowledged once durable) and in-tab run answers. */
async function onMessage(link: CaptureSocket, message: ClientFrame): Promise<void> {
  const { options, request, send } = link;
  switch (message.type) {
    case "hello":
      return;
    case "heartbeat":
      beat(link);
      return;
    case "batch":
      beat(link);
      try {
        send({ type: "ack", ack: await options.ingest.ingest(message.batch) });
      } catch (error) {
        // Nothing of the batch is acknowledged; the sender keeps it and resends.
        const appError = toAppError(error);
        request.log.error({ code: appError.code }, "observation batch failed");
        send({ type: "error", envelope: toEnvelope(appError, request.id) });
      }
      return;
    case "tab_opened":
    case "tab_refused":
    case "tab_cdp_result":
    case "tab_cdp_event":
    case "tab_read_result":
    case "tab_ended":
      if (link.tabLink !== undefined) options.tabRelay?.receive(link.tabLink, message);
      return;
    default:
      return assertNever(message);
  }
}
