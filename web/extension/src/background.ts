import { BRIDGE_SCRIPT_ID, bridgeMatches, checkOrigin, currentOrigin, DEFAULT_ORIGIN, originPattern, STORAGE } from './lib/config';
import {
  isMessage,
  type Attempt,
  type CheckoutReport,
  type Connection,
  type FillAnswer,
  type FillMessage,
  type FillOutcome,
  type PairAnswer,
  type PairRequest,
  type PopupRequest,
  type ReportFieldsRequest,
  type Result,
  type TabState,
} from './lib/protocol';
import { createSession } from './lib/session';
import { registrableDomain } from '../../../api/src/lib/registrable-domain';

/*
 * The background service worker: the only part that talks to bpay (Bearer token from chrome.storage.local), keeps
 * each tab's detection state in chrome.storage.session (memory only: the worker may be stopped between events), and
 * sends the card to the frames that own the card fields. See lib/protocol.ts for every message.
 *
 * Trust: content scripts run in pages' processes, so a message from a tab is only believed for what it says about
 * that tab (its frames' fields, its total); pairing is accepted only from the bridge on the configured origin's
 * connect page; everything that spends or reveals is accepted only from the extension's own pages (popup, options).
 */

const session = createSession({ store: chrome.storage.local, origin: currentOrigin });

const tabKey = (tabId: number) => `tab:${tabId}`;
const EMPTY: TabState = { url: null, total: null, fieldFrames: [], attempt: null };

async function tabState(tabId: number): Promise<TabState> {
  const got = await chrome.storage.session.get(tabKey(tabId));
  const v = got[tabKey(tabId)];
  return typeof v === 'object' && v !== null ? { ...EMPTY, ...(v as Partial<TabState>) } : { ...EMPTY };
}

/** Read-modify-write of one tab's state, one at a time per tab (reports from several frames arrive together). */
const queues = new Map<number, Promise<unknown>>();
function updateTab(tabId: number, change: (s: TabState) => TabState): Promise<TabState> {
  const run = (queues.get(tabId) ?? Promise.resolve()).then(async () => {
    const next = change(await tabState(tabId));
    await chrome.storage.session.set({ [tabKey(tabId)]: next });
    return next;
  });
  queues.set(tabId, run.catch(() => undefined));
  return run;
}

chrome.tabs.onRemoved.addListener((tabId) => {
  void chrome.storage.session.remove(tabKey(tabId));
});
// A new page in the tab: what was found on the last one no longer applies (an attempt's record stays, for its popup).
chrome.tabs.onUpdated.addListener((tabId, change) => {
  if (change.status === 'loading') void updateTab(tabId, (s) => ({ ...EMPTY, attempt: s.attempt }));
});

function fromExtensionPage(sender: chrome.runtime.MessageSender): boolean {
  return sender.id === chrome.runtime.id && typeof sender.url === 'string' && sender.url.startsWith(chrome.runtime.getURL(''));
}

function fromTab(sender: chrome.runtime.MessageSender): sender is chrome.runtime.MessageSender & { tab: chrome.tabs.Tab & { id: number } } {
  return sender.id === chrome.runtime.id && typeof sender.tab?.id === 'number' && sender.tab.id >= 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Popup opening (the banner's Split button)

async function openPopup(tab: chrome.tabs.Tab & { id: number }): Promise<void> {
  try {
    // Chromium 127+ lets any extension open its popup; it needs a focused normal window.
    await chrome.action.openPopup({ windowId: tab.windowId });
  } catch {
    await chrome.windows.create({ url: chrome.runtime.getURL(`popup.html?tab=${tab.id}`), type: 'popup', width: 400, height: 640, focused: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Filling

/** How long the frames get to report their card fields before a fill. */
const REPORT_WAIT_MS = 250;

/** The fill's refusal when the tab left the bcard's site (the popup says it in the user's language). */
export const SITE_CHANGED = 'site_changed';

function siteOf(body: string): string | null {
  try {
    const site = (JSON.parse(body) as { site?: unknown }).site;
    return typeof site === 'string' ? site : null;
  } catch {
    return null;
  }
}

/**
 * Fetches the card from the reveal endpoint and sends it to each frame that reported card fields, and to the top
 * frame (a multi-step checkout may show its fields there after the detector ran). The card is held in this
 * function's memory only, for these messages; it is never stored or logged.
 */
async function fill(tabId: number, bcardId: string): Promise<Result<FillOutcome>> {
  // Every frame says again whether it has card fields (a card iframe may have come or gone since the page loaded).
  await chrome.tabs.sendMessage<ReportFieldsRequest>(tabId, { type: 'report-fields' }).catch(() => undefined);
  await new Promise((done) => setTimeout(done, REPORT_WAIT_MS));
  await queues.get(tabId);
  const state = await tabState(tabId);
  // Only this tab's own bcard, and only while the tab still shows the site it was made for (its top frame's address,
  // as the browser gave it): a tab that navigated elsewhere never gets the card.
  const site = state.attempt?.bcard?.id === bcardId ? siteOf(state.attempt.body) : null;
  if (!site || !state.url || registrableDomain(state.url) !== registrableDomain(site)) {
    return { ok: false, error: { status: 409, code: SITE_CHANGED, message: 'This page is not the site the bcard was made for.' } };
  }
  const card = await session.checkoutCard(bcardId);
  if (!card.ok) return card;
  const message: FillMessage = { type: 'fill', card: card.value };
  const frames = [...new Set([0, ...state.fieldFrames])];
  let filled = 0;
  let reached = 0;
  for (const frameId of frames) {
    try {
      const answer = await chrome.tabs.sendMessage<FillMessage, FillAnswer | undefined>(tabId, message, { frameId });
      if (answer && answer.filled > 0) {
        filled += answer.filled;
        reached += 1;
      }
    } catch {
      // That frame is gone (navigated away or closed): the others still get the card.
    }
  }
  return { ok: true, value: { filled, frames: reached } };
}

// ---------------------------------------------------------------------------------------------------------------
// Creating a bcard: one attempt per Idempotency-Key; a second request for a key in flight joins the first.

const inFlight = new Map<string, Promise<Attempt>>();

async function createAndFill(request: Extract<PopupRequest, { type: 'create-bcard' }>): Promise<Attempt> {
  const running = inFlight.get(request.key);
  if (running) return running;
  const run = (async () => {
    let attempt: Attempt = {
      key: request.key,
      body: JSON.stringify(request.body),
      planned: request.planned,
      state: 'pending',
      answered: false,
      bcard: null,
      error: null,
      fill: null,
    };
    await updateTab(request.tabId, (s) => ({ ...s, attempt }));
    const created = await session.createBcard(request.body, request.key);
    if (!created.ok) {
      attempt = { ...attempt, state: 'failed', answered: created.error.status !== 0, error: created.error };
    } else {
      const b = created.value;
      attempt = { ...attempt, state: 'created', answered: true, bcard: { id: b.id, last4: b.last4, balance: String(b.balance) } };
      await updateTab(request.tabId, (s) => ({ ...s, attempt }));
      attempt = { ...attempt, fill: await fill(request.tabId, b.id) };
    }
    await updateTab(request.tabId, (s) => ({ ...s, attempt }));
    return attempt;
  })();
  inFlight.set(request.key, run);
  try {
    return await run;
  } finally {
    inFlight.delete(request.key);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Which bpay: the bridge script for an origin chosen in the options page

/** Registers the bridge for the configured origin when it is not the baked one (the manifest covers that one). */
async function syncBridge(): Promise<void> {
  const origin = await currentOrigin();
  const existing = await chrome.scripting.getRegisteredContentScripts({ ids: [BRIDGE_SCRIPT_ID] });
  if (origin === DEFAULT_ORIGIN) {
    if (existing.length > 0) await chrome.scripting.unregisterContentScripts({ ids: [BRIDGE_SCRIPT_ID] });
    return;
  }
  const script: chrome.scripting.RegisteredContentScript = {
    id: BRIDGE_SCRIPT_ID,
    matches: bridgeMatches(origin),
    js: ['bridge.js'],
    runAt: 'document_idle',
    allFrames: false,
    persistAcrossSessions: true,
  };
  if (existing.length > 0) await chrome.scripting.updateContentScripts([script]);
  else await chrome.scripting.registerContentScripts([script]);
}

/**
 * Points the extension at another bpay. The options page has asked for the host permission (a user gesture); this
 * checks it was granted, forgets the token (it belongs to the old origin), moves the bridge, and gives back the old
 * origin's optional permission.
 */
async function setOrigin(input: string): Promise<Result<Connection>> {
  const check = checkOrigin(input);
  if (!check.ok) return { ok: false, error: { status: 400, code: `origin_${check.reason}`, message: 'Not a bpay address.' } };
  const next = check.origin;
  const previous = await currentOrigin();
  if (next !== DEFAULT_ORIGIN && !(await chrome.permissions.contains({ origins: [originPattern(next)] }))) {
    return { ok: false, error: { status: 403, code: 'permission_denied', message: 'Permission to reach that address was not given.' } };
  }
  if (next !== previous) {
    await session.forget(false);
    await chrome.storage.local.set({ [STORAGE.origin]: next });
    await syncBridge();
    if (previous !== DEFAULT_ORIGIN) await chrome.permissions.remove({ origins: [originPattern(previous)] }).catch(() => false);
  }
  return { ok: true, value: await session.connection() };
}

chrome.runtime.onInstalled.addListener(() => void syncBridge().catch(() => undefined));
chrome.runtime.onStartup.addListener(() => void syncBridge().catch(() => undefined));

// ---------------------------------------------------------------------------------------------------------------
// Messages

async function fromPage(message: unknown, sender: chrome.runtime.MessageSender & { tab: chrome.tabs.Tab & { id: number } }): Promise<unknown> {
  const tabId = sender.tab.id;
  if (isMessage(message, 'card-fields') && typeof sender.frameId === 'number') {
    const frameId = sender.frameId;
    await updateTab(tabId, (s) => (s.fieldFrames.includes(frameId) ? s : { ...s, fieldFrames: [...s.fieldFrames, frameId] }));
    return undefined;
  }
  if (isMessage<CheckoutReport>(message, 'checkout') && sender.frameId === 0) {
    const total = message.total;
    const valid = total === null || (Number.isSafeInteger(total.cents) && total.cents >= 0);
    await updateTab(tabId, (s) => ({ ...s, url: sender.url ?? message.url, total: valid ? total : null }));
    return undefined;
  }
  if (isMessage(message, 'open-popup') && sender.frameId === 0) {
    await openPopup(sender.tab);
    return undefined;
  }
  if (isMessage<PairRequest>(message, 'pair')) return pair(message, sender);
  return undefined;
}

/** Only the bridge on the configured origin's connect page, in a top frame, may hand over a pairing code. */
async function pair(message: PairRequest, sender: chrome.runtime.MessageSender): Promise<PairAnswer> {
  const origin = await currentOrigin();
  let url: URL | null = null;
  try {
    url = new URL(sender.url ?? '');
  } catch {
    url = null;
  }
  if (sender.frameId !== 0 || !url || url.origin !== origin || !url.pathname.startsWith('/extension/connect')) {
    return { ok: false, message: 'Pairing is only accepted from the bpay site this extension is set to.' };
  }
  if (typeof message.code !== 'string') return { ok: false, message: 'The pairing code is not valid.' };
  const result = await session.pair(message.code);
  return result.ok ? { ok: true, label: result.value.label } : { ok: false, message: result.error.message };
}

async function fromExtension(message: PopupRequest): Promise<unknown> {
  switch (message.type) {
    case 'connection':
      return session.connection(message.verify === true);
    case 'tab-state':
      return tabState(message.tabId);
    case 'funding-sources':
      return session.fundingSources();
    case 'create-bcard':
      return createAndFill(message);
    case 'progress':
      return session.progress(message.key);
    case 'fill': {
      const outcome = await fill(message.tabId, message.bcardId);
      await updateTab(message.tabId, (s) => (s.attempt?.bcard?.id === message.bcardId ? { ...s, attempt: { ...s.attempt, fill: outcome } } : s));
      return outcome;
    }
    case 'set-origin':
      return setOrigin(message.origin);
  }
}

const POPUP_TYPES = new Set<string>(['connection', 'tab-state', 'funding-sources', 'create-bcard', 'progress', 'fill', 'set-origin']);

chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
  let work: Promise<unknown> | null = null;
  if (fromExtensionPage(sender) && typeof message === 'object' && message !== null && POPUP_TYPES.has(String((message as { type?: unknown }).type))) {
    work = fromExtension(message as PopupRequest);
  } else if (fromTab(sender)) {
    work = fromPage(message, sender);
  }
  if (!work) return false;
  work.then(sendResponse, (error: unknown) =>
    sendResponse({ ok: false, error: { status: 0, code: 'extension_error', message: error instanceof Error ? error.message : 'Unexpected error' } }),
  );
  return true;
});
