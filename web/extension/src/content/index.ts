import { registrableDomain } from '../../../../api/src/lib/registrable-domain';
import { detectCheckout } from '../detect/detect';
import { findCardFields, type CardFields } from '../detect/fields';
import { currentOrigin, STORAGE } from '../lib/config';
import { formatTotal } from '../lib/format';
import { resolveLanguage } from '../lib/messages';
import { isMessage, type CheckoutReport, type FieldsReport, type FillAnswer, type FillMessage, type OpenPopupRequest, type PageInfo, type PageInfoRequest, type ReportFieldsRequest } from '../lib/protocol';
import { showBanner } from './banner';
import { fillCard } from './fill';

/*
 * The content script, in every http(s) frame (all_frames: card fields often sit in a cross-origin iframe).
 * Detect (pure, src/detect) -> decide (its score) -> act (banner in the top frame; fill on request).
 *
 * On a page that is not a checkout it adds nothing to the page: no element, no style, no page event listener. It
 * runs the detector at document_idle, then again on added nodes (one MutationObserver, debounced) for at most
 * OBSERVE_MS, and stops as soon as it has what it looks for. Nothing about the page leaves the browser: the reports
 * go to the extension's own background, and only a frame with card fields or a top frame with a checkout reports.
 */

const OBSERVE_MS = 10_000;
const DEBOUNCE_MS = 400;
const isTop = window.top === window;

let reportedFields = false;
let bannerShown = false;

function hasAnyField(fields: CardFields): boolean {
  return Object.values(fields).some((f) => f !== null);
}

function send(message: FieldsReport | CheckoutReport | OpenPopupRequest): void {
  // The background may be restarting (an update): a lost report only means no banner or a later fill of the top frame.
  chrome.runtime.sendMessage(message).catch(() => undefined);
}

/** One pass of the detector; true when nothing more is to be found in this frame. */
function scan(): boolean {
  // A frame only needs to know whether it holds card fields; the whole-page decision is the top frame's.
  if (!isTop) {
    if (hasAnyField(findCardFields(document))) {
      reportedFields = true;
      send({ type: 'card-fields' });
    }
    return reportedFields;
  }
  const detection = detectCheckout(document, location.href);
  if (!reportedFields && hasAnyField(detection.cardFields)) {
    reportedFields = true;
    send({ type: 'card-fields' });
  }
  if (detection.isCheckout && !bannerShown) {
    bannerShown = true;
    const total = detection.total;
    send({ type: 'checkout', url: location.href, total });
    void offerBanner(total);
  }
  return bannerShown;
}

async function offerBanner(total: PageInfo['total']): Promise<void> {
  const site = registrableDomain(location.href) ?? location.hostname;
  const [got, bpay] = await Promise.all([chrome.storage.local.get([STORAGE.dismissed, STORAGE.language]), currentOrigin()]);
  const dismissed = Array.isArray(got[STORAGE.dismissed]) ? (got[STORAGE.dismissed] as unknown[]) : [];
  // Not on bpay's own pages (its dashboard adds cards; its checkout is already bpay), nor where it was dismissed.
  if (location.origin === bpay || dismissed.includes(site)) return;
  const lang = resolveLanguage(got[STORAGE.language], navigator.language);
  showBanner({
    doc: document,
    lang,
    amount: total ? formatTotal(total, lang) : null,
    onSplit: () => send({ type: 'open-popup' }),
    onDismiss: () => {
      void chrome.storage.local.get(STORAGE.dismissed).then((now) => {
        const list = Array.isArray(now[STORAGE.dismissed]) ? (now[STORAGE.dismissed] as unknown[]) : [];
        if (!list.includes(site)) return chrome.storage.local.set({ [STORAGE.dismissed]: [...list, site] });
      });
    },
  });
}

function watch(): void {
  if (scan()) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const observer = new MutationObserver((records) => {
    if (!records.some((r) => r.addedNodes.length > 0)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (scan()) stop();
    }, DEBOUNCE_MS);
  });
  const deadline = setTimeout(stop, OBSERVE_MS);
  function stop() {
    observer.disconnect();
    clearTimeout(timer);
    clearTimeout(deadline);
  }
  observer.observe(document.documentElement, { childList: true, subtree: true });
}

chrome.runtime.onMessage.addListener((message: unknown, sender, sendResponse) => {
  // Only the extension itself talks to its content scripts.
  if (sender.id !== chrome.runtime.id) return false;
  if (isMessage<FillMessage>(message, 'fill')) {
    // Looked up now: a multi-step checkout may show its card fields after the detector last ran.
    const answer: FillAnswer = { filled: fillCard(findCardFields(document), message.card) };
    sendResponse(answer);
    return false;
  }
  if (isMessage<ReportFieldsRequest>(message, 'report-fields')) {
    // A fill is coming: say again whether this frame has card fields (a frame added or changed since it last said).
    if (hasAnyField(findCardFields(document))) send({ type: 'card-fields' });
    return false;
  }
  if (isTop && isMessage<PageInfoRequest>(message, 'page-info')) {
    const detection = detectCheckout(document, location.href);
    const info: PageInfo = {
      url: location.href,
      isCheckout: detection.isCheckout,
      total: detection.total,
      hasCardFields: hasAnyField(detection.cardFields),
    };
    sendResponse(info);
    return false;
  }
  return false;
});

watch();
