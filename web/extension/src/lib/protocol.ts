/*
 * Every message between the extension's parts (chrome.runtime / chrome.tabs messaging). The background service
 * worker alone talks to bpay; the content scripts and the popup ask it. Messages carry ids and amounts, never a
 * card number, except FillMessage, which the background sends once to each frame that reported card fields.
 *
 *   content (every frame) -> background   FieldsReport     "this frame has card fields" (frameId from the sender)
 *   content (top frame)   -> background   CheckoutReport   "this tab is a checkout, total X"
 *   content (top frame)   -> background   OpenPopupRequest the banner's Split button
 *   bridge                -> background   PairRequest      the code bpay's connect page handed over -> PairAnswer
 *   popup                 -> content(top) PageInfoRequest  -> PageInfo (detected again, at that moment)
 *   popup / options       -> background   PopupRequest     -> the answers below
 *   background            -> content(all) ReportFieldsRequest  each frame with card fields sends FieldsReport again
 *   background            -> content      FillMessage      -> FillAnswer (per frame that reported, and the top)
 */

import type { CreateExtensionBcardBody } from './api';

/** The detected total as the content script reports it (minor units, ISO currency in lower case or null). */
export interface DetectedTotal {
  cents: number;
  currency: string | null;
  text: string;
}

export interface FieldsReport {
  type: 'card-fields';
}
export interface CheckoutReport {
  type: 'checkout';
  url: string;
  total: DetectedTotal | null;
}
export interface OpenPopupRequest {
  type: 'open-popup';
}
export interface PairRequest {
  type: 'pair';
  code: string;
}
export type PairAnswer = { ok: true; label: string } | { ok: false; message: string };

export type ContentToBackground = FieldsReport | CheckoutReport | OpenPopupRequest | PairRequest;

export interface PageInfoRequest {
  type: 'page-info';
}
export interface PageInfo {
  url: string;
  isCheckout: boolean;
  total: DetectedTotal | null;
  hasCardFields: boolean;
}

/** The card, in memory only, for the frames that own the fields. */
export interface FillCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
}
export interface FillMessage {
  type: 'fill';
  card: FillCard;
}
export interface FillAnswer {
  /** How many fields of this frame got a value. */
  filled: number;
}

/** Asks every frame of a tab to report its card fields again (no card data): sent just before a fill. */
export interface ReportFieldsRequest {
  type: 'report-fields';
}

export type BackgroundToContent = PageInfoRequest | FillMessage | ReportFieldsRequest;

/** An API failure as the popup shows it: the server's message when it sent one. */
export interface ApiFailure {
  /** HTTP status; 0 = no answer (network down, bpay unreachable): the same attempt may be retried. */
  status: number;
  code: string | null;
  message: string;
}
export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiFailure };

export interface Connection {
  origin: string;
  /** The pairing's label and expiry; null when not connected. */
  paired: { label: string; expiresAt: string } | null;
  /** The plan's fee (percent) as bpay last said (GET /api/extension/me); null until a verified connection. */
  feePercentage: number | null;
  /** The server revoked or expired the token (401 extension_token_invalid). */
  disconnected: boolean;
}

/** The per-tab state the background keeps in chrome.storage.session (no card data). */
export interface TabState {
  url: string | null;
  total: DetectedTotal | null;
  /** Frames that reported card fields (0 = the top frame). */
  fieldFrames: number[];
  attempt: Attempt | null;
}

export interface FillOutcome {
  /** Fields filled across the frames. */
  filled: number;
  /** Frames that got the card. */
  frames: number;
}

/** A share as planned when the attempt was sent (for the progress list). */
export interface PlannedShareInfo {
  sourceId: string;
  name: string;
  last4: string;
  cents: number;
}

/**
 * One "Create bcard and fill" attempt of a tab, kept by the background in chrome.storage.session (memory only; no
 * card data) so a popup closed and opened again finds it: still pending, or its bcard and fill outcome.
 */
export interface Attempt {
  key: string;
  /** The request body as sent (JSON): the same body after no answer is resent under the same key. */
  body: string;
  planned: PlannedShareInfo[];
  state: 'pending' | 'created' | 'failed';
  /** Whether the server answered (an answer, even an error, ends the attempt; no answer lets it be resent). */
  answered: boolean;
  bcard: { id: string; last4: string; balance: string } | null;
  error: ApiFailure | null;
  fill: Result<FillOutcome> | null;
}

export type PopupRequest =
  | { type: 'connection'; verify?: boolean }
  | { type: 'tab-state'; tabId: number }
  | { type: 'funding-sources' }
  | { type: 'create-bcard'; tabId: number; key: string; body: CreateExtensionBcardBody; planned: PlannedShareInfo[] }
  | { type: 'progress'; key: string }
  | { type: 'fill'; tabId: number; bcardId: string }
  | { type: 'set-origin'; origin: string };

/** Whether an unknown value is a message of this protocol with the given type (messages cross a trust boundary). */
export function isMessage<T extends { type: string }>(value: unknown, type: T['type']): value is T {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;
}
