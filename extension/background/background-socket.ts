import type { AgentLinkState } from "../../shared/observation/panel-messages";
import { createAgentSocket, type AgentSocket } from "./agent-link/agent-socket";
import type { BackgroundContext } from "./background-parts";
import type { OutboxAccess } from "./background-outbox";
import { isActiveCapture } from "./capture/capture-config";
import type { CaptureSession } from "./capture/capture-session";
import type { TabLeases } from "./tab-lending/tab-lease";
import type { RunNotices } from "./run-notices/run-notices";
import { assertNever } from "../../shared/common/assert-never";

/** What the socket's frames are handed to. */
export interface SocketParts {
  capture: CaptureSession;
  tabLeases: TabLeases;
  outbox: OutboxAccess;
  notices: RunNotices;
}

/** The agent socket, its frames handed to the part each is for: the session mirror, tab lending, the outbox, run notices. */
export function connectToAgent(context: BackgroundContext, parts: SocketParts): AgentSocket {
  const { deps, failed } = context;
  const { capture, tabLeases, outbox, notices } = parts;

  // Session changes are mirrored one after the other, in the agent's order. A recording that
  // starts takes a lent tab back first, so nothing an in-tab run types is ever observed.
  let mirrorChain: Promise<void> = Promise.resolve();
  const mirrorSession = (session: Parameters<typeof capture.apply>[0]) => {
    mirrorChain = mirrorChain
      .then(() => tabLeases.recordingChanged(isActiveCapture(session)))
      .then(() => capture.apply(session))
      .catch(failed("session mirror"));
  };

  return createAgentSocket({
    loadConnection: () => deps.connection.load(),
    openSocket: deps.openSocket,
    adapterId: `chrome-extension:${deps.browser.runtime.id}`,
    timers: deps.timers,
    wantsLink: context.wantsLink,
    onWelcome(session) {
      mirrorSession(session);
      outbox.drain();
    },
    onFrame(frame) {
      switch (frame.type) {
        case "session":
          mirrorSession(frame.session);
          return;
        case "tab_open":
        case "tab_cdp":
        case "tab_read":
        case "tab_release":
          tabLeases.handle(frame);
          return;
        case "ack":
          void outbox
            .outbox()
            .then((sender) => sender.acknowledged(frame.ack))
            .catch(failed("outbox ack"));
          return;
        case "run_notices":
          void notices.waitingNow(frame.waiting);
          return;
        case "run_notice":
          void notices.notice(frame.notice);
          return;
        case "error":
          // The agent could not take a batch (it says so instead of acking): start over on a new
          // link after backoff, so everything unacknowledged is resent rather than retried hot.
          context.socket().drop("agent error");
          return;
        default:
          return assertNever(frame);
      }
    },
    onLost() {
      tabLeases.linkLost();
      void outbox
        .outbox()
        .then((sender) => sender.connectionLost())
        .catch(failed("outbox"));
    },
    onState(state: AgentLinkState) {
      void deps.store.saveAgentLink(state).catch(failed("agent link"));
    },
  });
}
