/*
 * Reading the server's refusal of POST /api/virtual-cards into the bcard step's list (spec §8 "Payment").
 * The error body is `{ error: { type, code, message, param?, details? } }`:
 *  - 402 insufficient_funds: details {totalRequired, totalAvailable, insufficientSources[{fundingSourceId?, name,
 *    requiredAmount, availableBalance}]} (names read "Chase (•••• 4242)");
 *  - card_declined: details.declines[{fundingSourceId, name, last4, code, message}];
 *  - 400 invalid_splits: the split was refused before any money moved.
 * The server holds shares in order and stops at the first refusal, then releases what it held: so the shares before
 * the first refused one were released, the refused ones declined, the rest never charged.
 */
import { parseCents } from '../../lib/money';
import type { Failure, ShareInput, ShareReason, ShareStatus } from './flow';

export interface ServerError {
  status: number;
  code: string | undefined;
  message: string;
  details: unknown;
}

type Outcome = { status: ShareStatus; reason: ShareReason | null };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const cents = (v: unknown): number | null => (typeof v === 'string' ? parseCents(v) : typeof v === 'number' ? Math.round(v * 100) : null);

/** Spec §8: a message containing 'Insufficient funds' is the shortfall case, whatever the status. */
export function isInsufficientFunds(e: ServerError): boolean {
  return e.code === 'insufficient_funds' || e.message.includes('Insufficient funds');
}

/** Which of our shares a server line names: by id when given, else by "Name (•••• 1234)" or the bare name. */
function matchShare(shares: readonly ShareInput[], id: string | undefined, name: string | undefined): ShareInput | undefined {
  if (id) {
    const byId = shares.find((s) => s.sourceId === id);
    if (byId) return byId;
  }
  if (!name) return undefined;
  return shares.find((s) => name === s.name || name === `${s.name} (•••• ${s.last4})`);
}

/** Marks the shares: the refused ones as given, those before the first refused one released, the rest skipped. */
function outcomesAround(shares: readonly ShareInput[], refused: Map<string, ShareReason>): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  const first = shares.findIndex((s) => refused.has(s.sourceId));
  shares.forEach((s, i) => {
    const reason = refused.get(s.sourceId);
    if (reason) out.set(s.sourceId, { status: 'declined', reason });
    else out.set(s.sourceId, { status: first >= 0 && i < first ? 'released' : 'skipped', reason: null });
  });
  return out;
}

export function realFailureFrom(e: ServerError, shares: readonly ShareInput[]): { failure: Failure; outcomes: Map<string, Outcome> } {
  const details = isRecord(e.details) ? e.details : {};

  if (isInsufficientFunds(e)) {
    const lines = Array.isArray(details.insufficientSources) ? details.insufficientSources.filter(isRecord) : [];
    const refused = new Map<string, ShareReason>();
    const sources = lines.map((l) => {
      const requiredCents = cents(l.requiredAmount);
      const availableCents = cents(l.availableBalance);
      const share = matchShare(shares, str(l.fundingSourceId), str(l.name));
      if (share) refused.set(share.sourceId, { kind: 'insufficient', requiredCents, availableCents });
      return { name: str(l.name) ?? share?.name ?? '?', requiredCents, availableCents };
    });
    return {
      failure: {
        kind: 'insufficient',
        message: e.message,
        totalRequiredCents: cents(details.totalRequired),
        totalAvailableCents: cents(details.totalAvailable),
        sources,
      },
      outcomes: outcomesAround(shares, refused),
    };
  }

  if (e.code === 'card_declined') {
    const declines = Array.isArray(details.declines) ? details.declines.filter(isRecord) : [];
    const refused = new Map<string, ShareReason>();
    for (const d of declines) {
      const share = matchShare(shares, str(d.fundingSourceId), str(d.name));
      if (share) refused.set(share.sourceId, { kind: 'message', text: str(d.message) ?? e.message });
    }
    return { failure: { kind: 'declined', message: e.message }, outcomes: outcomesAround(shares, refused) };
  }

  // Nothing names a share: the server guarantees nothing stays held after a failure, so none was charged.
  const none = outcomesAround(shares, new Map());
  if (e.status === 400 && e.code === 'invalid_splits') return { failure: { kind: 'invalidSplits', message: e.message }, outcomes: none };
  return { failure: { kind: 'other', message: e.message }, outcomes: none };
}

/**
 * The answer of POST /api/virtual-cards/{id}/cancel (the bcard, status canceled) as the checkout's notice: how much
 * went back (every share in full, fee included: totalCharged) and whether every share reports refunded already (a
 * processor that did not answer leaves the rest to the server's recovery sweep: then the refund is under way).
 */
export function cancelNoticeFrom(
  bcard: { totalCharged: string; fundingSources: readonly { status: string }[] },
  fallbackCents: number,
): { kind: 'canceled'; refundedCents: number; refunded: boolean } {
  return {
    kind: 'canceled',
    refundedCents: parseCents(bcard.totalCharged) ?? fallbackCents,
    refunded: bcard.fundingSources.length > 0 && bcard.fundingSources.every((s) => s.status === 'refunded'),
  };
}
