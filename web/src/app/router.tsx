import { parse } from 'regexparam';
import { Suspense, useState, type ReactNode } from 'react';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { useAdminToken } from '../features/admin/session';
import { LogoutPage } from '../features/auth/components/logout-page';
import { useAuth } from '../features/auth/auth-context';
import { nextFromLocation } from '../features/auth/next-path';
import { LandingPage } from '../features/landing/components/landing-page';
import { AccessRequired } from '../features/merchants/components/access-required';
import { DashboardFrame } from './dashboard-frame';
import { ChunkErrorBoundary, lazyPage, type LazyPage } from './lazy-page';
import { NotFoundPage } from './not-found';
import { startedPrerendered } from './prerendered';

/*
 * Every area is its own chunk, loaded on its first visit (issue 13): only the landing page, the sign-out page, the
 * sign-in guard and the 404 page travel in the entry, with the common and landing texts. Each area module
 * in ./areas registers its own catalogues when it loads, before any of its pages renders. Each import names the
 * module's export, so a renamed page fails the typecheck.
 */
const AuthPage = lazyPage(() => import('./areas/auth'), (m) => m.AuthPage);
const ForgotPasswordPage = lazyPage(() => import('./areas/password-reset'), (m) => m.ForgotPasswordPage);
const ResetPasswordPage = lazyPage(() => import('./areas/password-reset'), (m) => m.ResetPasswordPage);
const SignInLinkPage = lazyPage(() => import('./areas/sign-in-link'), (m) => m.SignInLinkPage);
const ConfirmEmailPage = lazyPage(() => import('./areas/email-change'), (m) => m.ConfirmEmailPage);
const RevertEmailPage = lazyPage(() => import('./areas/email-change'), (m) => m.RevertEmailPage);
const EmailOutboxPage = lazyPage(() => import('./areas/email-outbox'), (m) => m.EmailOutboxPage);
const DashboardPage = lazyPage(() => import('./areas/dashboard'), (m) => m.DashboardPage);
const KycVerificationPage = lazyPage(() => import('./areas/kyc'), (m) => m.KycVerificationPage);
const PlansPage = lazyPage(() => import('./areas/plans'), (m) => m.PlansPage);
const PlansSignedOutPage = lazyPage(() => import('./areas/plans'), (m) => m.PlansSignedOut);
const MerchantPortalPage = lazyPage(() => import('./areas/merchants'), (m) => m.MerchantPortalPage);
const MerchantDashboardPage = lazyPage(() => import('./areas/merchants'), (m) => m.MerchantDashboardPage);
const AdminLoginPage = lazyPage(() => import('./areas/admin'), (m) => m.AdminLoginPage);
const AdminPanelPage = lazyPage(() => import('./areas/admin'), (m) => m.AdminPanelPage);
const AdminHome = lazyPage(() => import('./areas/admin'), (m) => m.AdminHome);
const CheckoutPayPage = lazyPage(() => import('./areas/checkout'), (m) => m.CheckoutPayPage);
const TermsPage = lazyPage(() => import('./areas/legal'), (m) => m.TermsPage);
const PrivacyPage = lazyPage(() => import('./areas/legal'), (m) => m.PrivacyPage);
const DisclaimersPage = lazyPage(() => import('./areas/legal'), (m) => m.DisclaimersPage);
const PaymentDemoPage = lazyPage(() => import('./areas/payment-demo'), (m) => m.PaymentDemoPage);
const AddonCheckoutDemoPage = lazyPage(() => import('./areas/checkout-demos'), (m) => m.AddonCheckoutDemoPage);
const BannerCheckoutDemoPage = lazyPage(() => import('./areas/checkout-demos'), (m) => m.BannerCheckoutDemoPage);
const InvestorsPage = lazyPage(() => import('./areas/investors'), (m) => m.InvestorsPage);
const InvestorsArPage = lazyPage(() => import('./areas/investors'), (m) => m.InvestorsArPage);
const ExtensionPage = lazyPage(() => import('./areas/extension'), (m) => m.ExtensionPage);
const ExtensionArPage = lazyPage(() => import('./areas/extension'), (m) => m.ExtensionArPage);
const ExtensionConnectPage = lazyPage(() => import('./areas/extension'), (m) => m.ExtensionConnectPage);

/**
 * The lazy page of each prerendered route whose page is not in the entry. main.tsx loads it before hydrating, so the
 * page renders at once and takes over its HTML; a page still loading while the session probe answers would be
 * thrown away and painted again (React renders a not-yet-hydrated boundary afresh when an update reaches it).
 */
export const PRERENDERED_ROUTE_PAGES: Readonly<Record<string, LazyPage>> = {
  '/auth': AuthPage,
  '/terms-conditions': TermsPage,
  '/privacy-policy': PrivacyPage,
  '/legal-disclaimers': DisclaimersPage,
  '/investors': InvestorsPage,
  '/investors-ar': InvestorsArPage,
  '/extension': ExtensionPage,
  '/extension-ar': ExtensionArPage,
};

/** A lazily loaded page, with a quiet placeholder (or the given one) while its chunk arrives. */
function Lazy({ page: Page, fallback }: { page: LazyPage; fallback?: ReactNode }) {
  return (
    <ChunkErrorBoundary>
      <Suspense fallback={fallback ?? <div className="min-h-screen bg-slate-50" aria-busy="true" data-testid="page-loading" />}>
        <Page />
      </Suspense>
    </ChunkErrorBoundary>
  );
}

/** Route matching is case-insensitive (spec §2); named and optional parameters and wildcards come from regexparam. */
export function caseInsensitiveParser(route: string, loose?: boolean) {
  const { keys, pattern } = parse(route, loose);
  return { keys, pattern: new RegExp(pattern.source, 'i') };
}

/**
 * `/`: the landing page when signed out (and while the session loads, if the page started from the prerendered
 * landing; else the dashboard's frame), the dashboard for users, the admin panel for admins. Admins are their own accounts: with no consumer signed in, a verified admin token in this tab shows the
 * panel (docs/DECISIONS.md, Admin panel).
 */
function Home() {
  const { user, isLoading } = useAuth();
  const adminToken = useAdminToken();
  // The admin chunk verifies the token and shows the panel, or the landing page if the token is not valid.
  if (!isLoading && !user && adminToken) return <Lazy page={AdminHome} />;
  // No landing HTML came (the browser holds a session cookie): most likely the dashboard is next; show its frame.
  if (isLoading && !startedPrerendered()) return <DashboardFrame />;
  if (isLoading || !user) return <LandingPage lang="en" />;
  if (user.role === 'admin') return <Redirect to="/admin-panel" />;
  return <Lazy page={DashboardPage} fallback={<DashboardFrame />} />;
}

/**
 * Pages only for signed-out visitors: signed-in users go to a checked same-site `next`, else to /. This is also what
 * moves a person on after signing in or registering here (the forms do not navigate): only once the session state
 * holds the user, so `/` shows the dashboard and never the landing (which sends an Arabic reader to `/ar`).
 */
function AuthRoute() {
  const { user, isLoading } = useAuth();
  const [next] = useState(nextFromLocation);
  if (!isLoading && user) return <Redirect to={next ?? '/'} replace />;
  return <Lazy page={AuthPage} />;
}

/** Pages for any signed-in user, admins included (spec §2); signed-out visitors are asked to sign in first. */
function SignedIn({ page }: { page: LazyPage }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  if (isLoading) {
    return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  }
  if (!user) return <AccessRequired returnTo={location} />;
  return <Lazy page={page} />;
}

/**
 * Pages for signed-in non-admin users only (spec §2: admins are not offered KYC); admins go to /. KYC and /plans.
 * Signed-out visitors are asked to sign in (or, on /plans, to register) and come back to the same address, query
 * included (`/plans?tier=<id>` keeps the plan chosen on the landing page).
 */
function ConsumerOnly({ page, signedOut }: { page: LazyPage; signedOut: 'kyc' | 'plans' }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  const search = useSearch();
  if (isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  if (!user) {
    const returnTo = search ? `${location}?${search}` : location;
    return signedOut === 'plans' ? <Lazy page={PlansSignedOutPage} /> : <AccessRequired returnTo={returnTo} body="common.access.kycBody" />;
  }
  if (user.role === 'admin') return <Redirect to="/" replace />;
  return <Lazy page={page} />;
}

/** `ssrPath`: the page the build prerenders (web/src/app/prerender.tsx); in the browser the location is read. */
export function AppRouter({ ssrPath }: { ssrPath?: string } = {}) {
  return (
    <Router parser={caseInsensitiveParser} ssrPath={ssrPath}>
      <Switch>
        <Route path="/" component={Home} />
        <Route path="/ar">{() => <LandingPage lang="ar" />}</Route>
        <Route path="/auth" component={AuthRoute} />
        <Route path="/auth/logout" component={LogoutPage} />
        <Route path="/forgot-password">{() => <Lazy page={ForgotPasswordPage} />}</Route>
        <Route path="/reset-password">{() => <Lazy page={ResetPasswordPage} />}</Route>
        <Route path="/sign-in-link">{() => <Lazy page={SignInLinkPage} />}</Route>
        <Route path="/confirm-email">{() => <Lazy page={ConfirmEmailPage} />}</Route>
        <Route path="/revert-email">{() => <Lazy page={RevertEmailPage} />}</Route>
        <Route path="/email-outbox">{() => <Lazy page={EmailOutboxPage} />}</Route>
        <Route path="/terms-conditions">{() => <Lazy page={TermsPage} />}</Route>
        <Route path="/privacy-policy">{() => <Lazy page={PrivacyPage} />}</Route>
        <Route path="/legal-disclaimers">{() => <Lazy page={DisclaimersPage} />}</Route>
        <Route path="/admin-login">{() => <Lazy page={AdminLoginPage} />}</Route>
        <Route path="/admin-panel">{() => <Lazy page={AdminPanelPage} />}</Route>
        <Route path="/kyc-verification">{() => <ConsumerOnly page={KycVerificationPage} signedOut="kyc" />}</Route>
        <Route path="/plans">{() => <ConsumerOnly page={PlansPage} signedOut="plans" />}</Route>
        <Route path="/merchant-portal">{() => <SignedIn page={MerchantPortalPage} />}</Route>
        <Route path="/merchant-dashboard">{() => <SignedIn page={MerchantDashboardPage} />}</Route>
        {/* The checkout popup asks for sign-in itself, after showing what is being paid. */}
        <Route path="/checkout/pay">{() => <Lazy page={CheckoutPayPage} />}</Route>
        <Route path="/payment-demo">{() => <Lazy page={PaymentDemoPage} />}</Route>
        <Route path="/addon-checkout-demo">{() => <Lazy page={AddonCheckoutDemoPage} />}</Route>
        {/* The dashboard links /checkout-demo (spec §2 leaves its route open): it is the Merchant Demo. */}
        <Route path="/checkout-demo">{() => <Redirect to="/addon-checkout-demo" replace />}</Route>
        <Route path="/banner-checkout-demo">{() => <Lazy page={BannerCheckoutDemoPage} />}</Route>
        <Route path="/investors">{() => <Lazy page={InvestorsPage} />}</Route>
        <Route path="/investors-ar">{() => <Lazy page={InvestorsArPage} />}</Route>
        <Route path="/extension">{() => <Lazy page={ExtensionPage} />}</Route>
        <Route path="/extension-ar">{() => <Lazy page={ExtensionArPage} />}</Route>
        {/* Signed-in only: the page asks signed-out visitors to sign in itself, saying what for. */}
        <Route path="/extension/connect">{() => <Lazy page={ExtensionConnectPage} />}</Route>
        <Route component={NotFoundPage} />
      </Switch>
    </Router>
  );
}
