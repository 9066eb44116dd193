/*
 * Links that carry a chosen plan from the landing page's pricing cards through sign-up (or sign-in) to /plans
 * (issue 25 item 6c). The plan rides in the auth page's `next` (`/auth?tab=register&next=/plans?tier=<id>`), which
 * web/src/features/auth/next-path.ts checks as it checks every `next`: a same-site path only.
 */

/** A tier id as the API writes it (a uuid or a short slug); anything else in the address is ignored. */
const TIER_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** /plans with a tier preselected: `/plans?tier=<id>`. */
export function plansPath(tierId?: string | null): string {
  return tierId && TIER_ID.test(tierId) ? `/plans?tier=${encodeURIComponent(tierId)}` : '/plans';
}

/** The auth page in the given mode, returning to `next` (a same-site path, checked again when it is read). */
export function authPath(mode: 'signin' | 'register', next?: string | null): string {
  const params = new URLSearchParams();
  if (mode === 'register') params.set('tab', 'register');
  if (next) params.set('next', next);
  const query = params.toString();
  return query ? `/auth?${query}` : '/auth';
}

/**
 * A pricing card's button. Signed in, the plan is changed on /plans (the auth page would only send a signed-in
 * visitor on). Signed out, Start Free (a free tier) opens Register, and Choose Plan opens Register returning to
 * /plans with that tier chosen.
 */
export function pricingCardHref(tier: { id: string; monthlyPrice: number }, signedIn: boolean): string {
  if (tier.monthlyPrice === 0) return signedIn ? '/plans' : authPath('register');
  return signedIn ? plansPath(tier.id) : authPath('register', plansPath(tier.id));
}

/** The tier chosen in /plans' query (`?tier=<id>`), or null when none or not an id. */
export function tierFromSearch(search: string): string | null {
  const id = new URLSearchParams(search).get('tier');
  return id && TIER_ID.test(id) ? id : null;
}
