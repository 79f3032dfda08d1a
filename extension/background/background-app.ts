import type { CaptureControlReply } from "../../shared/observation/panel-messages";
import type { AgentSocket } from "./agent-link/agent-socket";
import type { BackgroundContext, BackgroundDeps } from "./background-parts";
import { createOutboxAccess } from "./background-outbox";
import { connectToAgent, type SocketParts } from "./background-socket";
import { listenToNotifications, noticeRuns } from "./background-run-notices";
import { createLayeredBadge } from "./run-notices/ask-badge";
import { debuggerApiOf, lendTabsToAgent } from "./background-tab-lending";
import { createSessionControlClient } from "./capture/capture-control-client";
import { commandControl, planControl, type CaptureControl } from "./capture/capture-control-plan";
import { createCaptureScripts } from "./capture/capture-scripts";
import { createCaptureSession, type CaptureSession } from "./capture/capture-session";
import { createMessageRouter } from "./messages/message-router";
import { createParkedBatches } from "./outbox/parked-batches";
import { createFailureRecorder } from "./worker/background-failures";
import { createKeepalive, KEEPALIVE_ALARM } from "./worker/keepalive";

/**
 * The background service worker's composition root. Every Chrome event listener is added
 * synchronously here, as MV3 requires for the worker to be woken by those events; the state
 * they need is loaded afterwards from `chrome.storage.session` and IndexedDB, so a worker started
 * by any event (alarm, message, command) picks up a capture where the last one left it.
 */
export function startBackground(deps: BackgroundDeps): void {
  const { browser } = deps;
  const keepalive = createKeepalive(browser.alarms);
  // The socket is made once the parts it serves exist; nothing asks for it before (listen comes after).
  const link: { socket?: AgentSocket } = {};
  const context: BackgroundContext = {
    deps,
    failed: createFailureRecorder(deps.store, deps.now),
    socket: () => link.socket as AgentSocket,
    demand: { captureActive: false, runActive: false, queued: 0, paired: false },
    wantsLink: () => context.demand.captureActive || context.demand.runActive || context.demand.queued > 0 || context.demand.paired,
    badge: createLayeredBadge(browser.action),
    linkWantChanged() {
      void keepalive.set(context.wantsLink()).catch(context.failed("keepalive"));
      context.socket().refresh();
    },
  };

  const capture = createCaptureSession({
    store: deps.store,
    scripts: createCaptureScripts({ scripting: browser.scripting, tabs: browser.tabs, permissions: browser.permissions }),
    action: context.badge.surface,
    releaseSites: (origins) => browser.permissions.remove({ origins }),
    randomBytes: deps.randomBytes,
    now: deps.now,
    onActiveChange(active) {
      context.demand.captureActive = active;
      context.linkWantChanged();
    },
  });
  const outbox = createOutboxAccess(context);
  const tabLeases = lendTabsToAgent(context, capture);
  const notices = noticeRuns(context);
  link.socket = connectToAgent(context, { capture, tabLeases, outbox, notices });
  listen(context, { capture, tabLeases, outbox, notices });
}

/**
 * Issue #33: while this browser is paired, the link to the agent is kept up (its heartbeat keeps
 * the worker awake, the keepalive alarm wakes a stopped one), so a run that waits for the person
 * reaches them; on each welcome the agent says which runs wait now.
 */
function followPairing(context: BackgroundContext): void {
  const { deps, failed } = context;
  void deps.connection
    .load()
    .then((connection) => {
      const paired = connection !== null;
      if (paired === context.demand.paired) return;
      context.demand.paired = paired;
      context.linkWantChanged();
    })
    .catch(failed("pairing"));
}

/** Listeners first, synchronously (MV3): these events are what wake a sleeping worker. Then the state. */
function listen(context: BackgroundContext, parts: SocketParts): void {
  const { deps, failed } = context;
  const { browser } = deps;
  const { capture, tabLeases, outbox, notices } = parts;
  const socket = context.socket();
  const control = controlCapture(context, capture);
  const parked = createParkedBatches({ get: (keys) => browser.storage.local.get(keys), remove: (keys) => browser.storage.local.remove(keys) });
  const router = createMessageRouter({
    extensionId: browser.runtime.id,
    capture,
    outbox: outbox.outbox,
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
    hasDebugger: () => debuggerApiOf(context)() !== undefined,
    runActive: () => tabLeases.active(),
    parked,
  });

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
    outbox.drain();
  });
  browser.permissions.onAdded.addListener(() => void capture.permissionsChanged().catch(failed("site access")));
  browser.permissions.onRemoved.addListener(() => void capture.permissionsChanged().catch(failed("site access")));
  deps.watchConnection(() => {
    socket.restart();
    followPairing(context);
  });
  listenToNotifications(context, notices);
  // A browser start wakes the worker, so a paired browser links to its agent without a click.
  browser.runtime.onStartup.addListener(() => followPairing(context));
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
    .then(() => outbox.outbox().then((sender) => sender.status()))
    .catch(failed("outbox open"))
    .then(() => router.drainParked())
    .then(() => notices.restore())
    .catch(failed("run notices restore"))
    .finally(() => {
      followPairing(context);
      socket.connect();
    });
}

/** A control from the page's indicator or the keyboard: planned against the mirrored session, sent, and remembered. */
function controlCapture(context: BackgroundContext, capture: CaptureSession) {
  const { deps } = context;
  const controls = createSessionControlClient({ loadConnection: () => deps.connection.load(), fetch: deps.fetch });
  return async (action: CaptureControl, source: "user_click" | "hotkey"): Promise<CaptureControlReply> => {
    const plan = planControl(action, await capture.current());
    const reply: CaptureControlReply =
      plan.kind === "skip" ? { ok: false, code: plan.code, message: plan.message } : await controls.call(plan.sessionId, plan.route, source);
    await deps.store.saveLastControl({ control: action, source, at: deps.now().toISOString(), reply });
    return reply;
  };
}
