import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../errors';
import { registrableDomain } from '../../lib/registrable-domain';
import { createBcard, revealBcard } from '../bcards/service';
import type { SplitInput } from '../bcards/plan';
import { getOwnedBcard, type BcardView } from '../bcards/views';
import type { ExtensionPrincipal } from './tokens';

/*
 * What a connected browser does with its token (tokens.ts): bcards made for the checkout page it is on, and the
 * card details of those bcards only. Built on the bcards module's services: the same collection, limits and rules as
 * POST /api/virtual-cards.
 */

/** The registrable domain of the page a bcard is made for: an http(s) URL with a host. Fails with: validation_error. */
export function siteDomain(site: string): string {
  let url: URL | null = null;
  try {
    url = new URL(site);
  } catch {
    url = null;
  }
  const domain = url && (url.protocol === 'https:' || url.protocol === 'http:') ? registrableDomain(url.href) : null;
  if (!domain) throw invalid('site', "site must be the checkout page's address: an http or https URL with a host name.");
  return domain;
}

export interface ExtensionBcardInput {
  name: string;
  amountCents: number;
  splits: SplitInput[];
  idempotencyKey: string | null;
  /** The page the extension found the checkout on; the bcard is locked to its registrable domain. */
  site: string;
}

/**
 * Collects the split and issues a bcard, as POST /api/virtual-cards does, locked to the site's registrable domain
 * (only a shop there can charge it) and remembering the token that made it (only that token can reveal it).
 * Fails with: validation_error (site), and everything createBcard fails with.
 */
export async function createExtensionBcard(deps: AppDeps, p: ExtensionPrincipal, input: ExtensionBcardInput): Promise<BcardView> {
  const lockedDomain = siteDomain(input.site);
  return createBcard(deps, p.user, {
    name: input.name,
    amountCents: input.amountCents,
    splits: input.splits,
    idempotencyKey: input.idempotencyKey,
    lockedDomain,
    extensionTokenId: p.extensionToken.id,
  });
}

/**
 * The full number, expiry, CVV and name of a bcard this very token made, for the extension to fill in at checkout;
 * recorded like every reveal. A bcard made in the dashboard, by another connected browser or by another user is
 * "not found", as is a merchant's sandbox test bcard.
 * Fails with: resource_not_found, bcard_not_active.
 */
export async function revealExtensionBcard(
  deps: AppDeps,
  p: ExtensionPrincipal,
  id: string,
  meta: { ip: string; userAgent: string | null },
) {
  const bcard = await getOwnedBcard(deps.db, p.user.id, id);
  if (bcard.extensionTokenId !== p.extensionToken.id) throw notFound('bcard');
  const card = await revealBcard(deps, p.user.id, id, meta);
  return {
    cardNumber: card.cardNumber,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    cvv: card.cvv,
    cardholderName: bcard.cardholderName,
  };
}
