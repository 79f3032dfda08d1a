import type { WxtBrowser } from "wxt/browser";
import type { ConnectionStorage } from "../../shared/common/agent-connection";
import { CoachingReadReplySchema, type CoachingReadMessage } from "../../shared/observation/coaching-read";
import type { AgentLinkState, CaptureControlReply } from "../../shared/observation/panel-messages";
import { createFailureRecorder } from "./worker/background-failures";
import { createAgentSocket } from "./agent-link/agent-socket";
import type { SocketLike, Timers } from "./agent-link/socket-port";
import type { BackgroundStore } from "./worker/background-storage";
import { createCaptureScripts } from "./capture/capture-scripts";
import { createCaptureSession } from "./capture/capture-session";
import { createKeepalive, KEEPALIVE_ALARM } from "./worker/keepalive";
import { createMessageRouter } from "./messages/message-router";
import { createParkedBatches } from "./outbox/parked-batches";
import { openOutboxDb } from "./outbox/outbox-db";
import { createOutboxLedger } from "./outbox/outbox-ledger";
import { createOutboxSender, type OutboxSender } from "./outbox/outbox-sender";
import type { OutboxStatus } from "../../shared/observation/panel-messages";
import { createSessionControlClient } from "./capture/capture-control-client";
import { badgeForSession, showBadge } from "./capture/capture-badge";
import { isActiveCapture } from "./capture/capture-config";
import type { InTabConsent } from "./tab-lending/in-tab-consent";
import type { DebuggerApi } from "./tab-lending/lease-context";
import { createTabLeases } from "./tab-lending/tab-lease";
import { commandControl, planControl, type CaptureControl } from "./capture/capture-control-plan";

export interface BackgroundDeps {
  browser: WxtBrowser;
  connection: ConnectionStorage;
  /** Calls back when the pairing in extension storage changes. */
  watchConnection(onChange: () => void): void;
  store: BackgroundStore;
  /** The person's consent to in-tab runs (issue #21). */
  inTabRuns: InTabConsent;
  /** The tab lent to an in-tab run, kept in session storage across a worker stop. */
  leasedTab: { save(tabId: number | null): Promise<void>; load(): Promise<number | null> };
  openSocket(url: string): SocketLike;
  fetch: typeof fetch;
  timers: Timers;
  randomBytes(bytes: Uint8Array): void;
  newId(): string;
  now(): Date;
}

/**
 * The background service worker's composition root. Every Chrome event listener is added
 * synchronously here, as MV3 requires for the worker to be woken by those events; the state
 * they need is loaded afterwards from `chrome.storage.session` and IndexedDB, so a worker started
 * by any event (alarm, message, command) picks up a capture where the last one left it.
 */
export function startBackground(deps: BackgroundDeps): void {
  const { browser } = deps;
  const failed = createFailureRecorder(deps.store, deps.now);
  let captureActive = false;
  let runActive = false;
  let queued = 0;
  const wantsLink = () => captureActive || runActive || queued > 0;

  const keepalive = createKeepalive(browser.alarms);
  const syncKeepalive = () => void keepalive.set(wantsLink()).catch(failed("keepalive"));

  const capture = createCaptureSession({
    store: deps.store,
    scripts: createCaptureScripts({ scripting: browser.scripting, tabs: browser.tabs, permissions: browser.permissions }),
    action: browser.action,
    releaseSites: (origins) => browser.permissions.remove({ origins }),
    randomBytes: deps.randomBytes,
    now: deps.now,
    onActiveChange(active) {
      captureActive = active;
      syncKeepalive();
      socket.refresh();
    },
  });

  let senderPromise: Promise<OutboxSender> | undefined;
  const openSender = () =>
    openOutboxDb({ now: () => deps.now().getTime() }).then((db) =>
      createOutboxSender({
        outbox: db,
        ledger: createOutboxLedger({ now: () => deps.now().getTime() }),
        channel: {
          isReady: () => socket.isReady(),
          sendBatch: (batch) => socket.send({ type: "batch", batch: { ...batch, schema_version: 1 } }),
          drop: (reason) => socket.drop(reason),
        },
        newBatchId: deps.newId,
        onStatus: (status: OutboxStatus) => {
          const wasWaiting = queued > 0;
          queued = status.queued + status.snapshots_queued;
          void deps.store.saveOutboxStatus(status).catch(failed("outbox status"));
          if (wasWaiting !== (queued > 0)) {
            syncKeepalive();
            socket.refresh();
          }
        },
      }),
    );
  // Opened once per worker; a failed open is tried again by the next caller rather than cached.
  const outbox = () =>
    (senderPromise ??= openSender().catch((error: unknown) => {
      senderPromise = undefined;
      throw error;
    }));
  const drain = () => void outbox().then((sender) => sender.drain()).catch(failed("outbox drain"));

  // Chrome withholds the API when a policy blocks it; the manifest always asks for it.
  const debuggerApi = () => (browser.debugger as DebuggerApi | undefined) ?? undefined;
  const tabLeases = createTabLeases({
    debuggerApi,
    inTabAllowed: () => deps.inTabRuns.allowed(),
    async createTab() {
      const tab = await browser.tabs.create({ url: "about:blank", active: true });
      if (tab.id === undefined) throw new Error("Chrome gave the new tab no id");
      return tab.id;
    },
    action: browser.action,
    restoreBadge: async () => showBadge(browser.action, badgeForSession(await capture.current())),
    recordingActive: async () => isActiveCapture(await capture.current()),
    recordingSessionId: async () => {
      const session = await capture.current();
      return session !== null && isActiveCapture(session) ? session.learn_session_id : undefined;
    },
    send: (frame) => socket.send(frame),
    async readRecorded(tabId, highlight) {
      const message: CoachingReadMessage = { type: "coaching/read", highlight };
      const reply = CoachingReadReplySchema.safeParse(await browser.tabs.sendMessage(tabId, message, { frameId: 0 }));
      return reply.success ? reply.data.read : null;
    },
    onActiveChange(active) {
      runActive = active;
      syncKeepalive();
      socket.refresh();
    },
    failed,
    leasedTab: deps.leasedTab,
  });

  // Session changes are mirrored one after the other, in the agent's order. A recording that
  // starts takes a lent tab back first, so nothing an in-tab run types is ever observed.
  let mirrorChain: Promise<void> = Promise.resolve();
  const mirrorSession = (session: Parameters<typeof capture.apply>[0]) => {
    mirrorChain = mirrorChain
      .then(() => tabLeases.recordingChanged(isActiveCapture(session)))
      .then(() => capture.apply(session))
      .catch(failed("session mirror"));
  };

  const socket = createAgentSocket({
    loadConnection: () => deps.connection.load(),
    openSocket: deps.openSocket,
    adapterId: `chrome-extension:${browser.runtime.id}`,
    timers: deps.timers,
    wantsLink,
    onWelcome(session) {
      mirrorSession(session);
      drain();
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
          void outbox().then((sender) => sender.acknowledged(frame.ack)).catch(failed("outbox ack"));
          return;
        case "error":
          // The agent could not take a batch (it says so instead of acking): start over on a new
          // link after backoff, so everything unacknowledged is resent rather than retried hot.
          socket.drop("agent error");
          return;
        default:
          return assertNever(frame);
      }
    },
    onLost() {
      tabLeases.linkLost();
      void outbox().then((sender) => sender.connectionLost()).catch(failed("outbox"));
    },
    onState(state: AgentLinkState) {
      void deps.store.saveAgentLink(state).catch(failed("agent link"));
    },
  });

  const controls = createSessionControlClient({ loadConnection: () => deps.connection.load(), fetch: deps.fetch });
  const control = async (action: CaptureControl, source: "user_click" | "hotkey"): Promise<CaptureControlReply> => {
    const plan = planControl(action, await capture.current());
    const reply: CaptureControlReply =
      plan.kind === "skip" ? { ok: false, code: plan.code, message: plan.message } : await controls.call(plan.sessionId, plan.route, source);
    await deps.store.saveLastControl({ control: action, source, at: deps.now().toISOString(), reply });
    return reply;
  };

  const parked = createParkedBatches({ get: (keys) => browser.storage.local.get(keys), remove: (keys) => browser.storage.local.remove(keys) });
  const router = createMessageRouter({
    extensionId: browser.runtime.id,
    capture,
    outbox,
    control,
    async ensureConnected(timeoutMs) {
      // Already up: a heartbeat now keeps the agent counting us healthy for the Start that follows.
      if (socket.isReady()) socket.send({ type: "heartbeat" });
      else await socket.whenReady(timeoutMs);
      return socket.state();
    },
    linkState: () => socket.state(),
    lastControl: () => deps.store.loadLastControl(),
    lastFailure: () => deps.store.loadLastFailure(),
    // Site access the user took back in Chrome's menu ends capture there, even for a page already observed.
    isGranted: (url) => browser.permissions.contains({ origins: [`${new URL(url).origin}/*`] }),
    inTabRuns: deps.inTabRuns,
    hasDebugger: () => debuggerApi() !== undefined,
    runActive: () => tabLeases.active(),
    parked,
  });

  // Listeners first, synchronously (MV3): these events are what wake a sleeping worker.
  browser.runtime.onMessage.addListener((message, sender, sendResponse) => {
    const answer = router.route(message, sender);
    if (answer === undefined) return undefined;
    void answer.then(sendResponse);
    return true;
  });
  browser.commands.onCommand.addListener((command) => {
    const action = commandControl(command);
    if (action !== undefined) void control(action, "hotkey").catch(failed("keyboard command"));
  });
  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name !== KEEPALIVE_ALARM) return;
    socket.refresh();
    drain();
  });
  browser.permissions.onAdded.addListener(() => void capture.permissionsChanged().catch(failed("site access")));
  browser.permissions.onRemoved.addListener(() => void capture.permissionsChanged().catch(failed("site access")));
  deps.watchConnection(() => socket.restart());
  // A page left before its batch could arrive parked it (issue #35).
  browser.storage.local.onChanged.addListener((changes) => {
    parked.noteChange(Object.keys(changes).filter((key) => changes[key]?.newValue !== undefined));
    void router.drainParked();
  });

  // Then the state: the badge and registration as mirrored, the outbox's size, and the agent's word.
  void tabLeases
    .restore()
    .catch(failed("in-tab restore"))
    .then(() => capture.restore())
    .catch(failed("restore"))
    .then(() => outbox().then((sender) => sender.status()))
    .catch(failed("outbox open"))
    .then(() => router.drainParked())
    .finally(() => socket.connect());
}

function assertNever(value: never): never {
  throw new Error(`Unhandled agent frame ${JSON.stringify(value)}`);
}
