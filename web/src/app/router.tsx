import { parse } from 'regexparam';
import { lazy, Suspense, useState, type ComponentType, type LazyExoticComponent } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { useAdminToken } from '../features/admin/session';
import { LogoutPage } from '../features/auth/components/logout-page';
import { useAuth } from '../features/auth/auth-context';
import { nextFromLocation } from '../features/auth/next-path';
import { LandingPage } from '../features/landing/components/landing-page';
import { AccessRequired } from '../features/merchants/components/access-required';
import { NotFoundPage } from './not-found';

/*
 * Every area is its own chunk, loaded on its first visit (issue 13): only the landing page, the sign-out page, the
 * sign-in guard and the 404 page travel in the entry, with the common and landing texts. Each area module
 * in ./areas registers its own catalogues when it loads, before any of its pages renders. Each import names the
 * module's export, so a renamed page fails the typecheck.
 */
const AuthPage = lazy(() => import('./areas/auth').then((m) => ({ default: m.AuthPage })));
const DashboardPage = lazy(() => import('./areas/dashboard').then((m) => ({ default: m.DashboardPage })));
const KycVerificationPage = lazy(() => import('./areas/kyc').then((m) => ({ default: m.KycVerificationPage })));
const MerchantPortalPage = lazy(() => import('./areas/merchants').then((m) => ({ default: m.MerchantPortalPage })));
const MerchantDashboardPage = lazy(() =>
  import('./areas/merchants').then((m) => ({ default: m.MerchantDashboardPage })),
);
const AdminLoginPage = lazy(() => import('./areas/admin').then((m) => ({ default: m.AdminLoginPage })));
const AdminPanelPage = lazy(() => import('./areas/admin').then((m) => ({ default: m.AdminPanelPage })));
const AdminHome = lazy(() => import('./areas/admin').then((m) => ({ default: m.AdminHome })));
const CheckoutPayPage = lazy(() => import('./areas/checkout').then((m) => ({ default: m.CheckoutPayPage })));
const TermsPage = lazy(() => import('./areas/legal').then((m) => ({ default: m.TermsPage })));
const PrivacyPage = lazy(() => import('./areas/legal').then((m) => ({ default: m.PrivacyPage })));
const DisclaimersPage = lazy(() => import('./areas/legal').then((m) => ({ default: m.DisclaimersPage })));
const PaymentDemoPage = lazy(() => import('./areas/payment-demo').then((m) => ({ default: m.PaymentDemoPage })));
const AddonCheckoutDemoPage = lazy(() =>
  import('./areas/checkout-demos').then((m) => ({ default: m.AddonCheckoutDemoPage })),
);
const BannerCheckoutDemoPage = lazy(() =>
  import('./areas/checkout-demos').then((m) => ({ default: m.BannerCheckoutDemoPage })),
);
const InvestorsPage = lazy(() => import('./areas/investors').then((m) => ({ default: m.InvestorsPage })));
const InvestorsArPage = lazy(() => import('./areas/investors').then((m) => ({ default: m.InvestorsArPage })));

/** A lazily loaded page, with a quiet placeholder while its chunk arrives. */
function Lazy({ page: Page }: { page: LazyExoticComponent<ComponentType> }) {
  return (
    <Suspense fallback={<div className="min-h-screen bg-slate-50" aria-busy="true" data-testid="page-loading" />}>
      <Page />
    </Suspense>
  );
}

/** Route matching is case-insensitive (spec §2); named and optional parameters and wildcards come from regexparam. */
export function caseInsensitiveParser(route: string, loose?: boolean) {
  const { keys, pattern } = parse(route, loose);
  return { keys, pattern: new RegExp(pattern.source, 'i') };
}

/**
 * `/`: the landing page while the session loads or when signed out, the dashboard for users, the admin panel for
 * admins. Admins are their own accounts: with no consumer signed in, a verified admin token in this tab shows the
 * panel (docs/DECISIONS.md, Admin panel).
 */
function Home() {
  const { user, isLoading } = useAuth();
  const adminToken = useAdminToken();
  // The admin chunk verifies the token and shows the panel, or the landing page if the token is not valid.
  if (!isLoading && !user && adminToken) return <Lazy page={AdminHome} />;
  if (isLoading || !user) return <LandingPage lang="en" />;
  if (user.role === 'admin') return <Redirect to="/admin-panel" />;
  return <Lazy page={DashboardPage} />;
}

/** Pages only for signed-out visitors: signed-in users go to a checked same-site `next`, else to /. */
function AuthRoute() {
  const { user, isLoading } = useAuth();
  const [next] = useState(nextFromLocation);
  if (!isLoading && user) return <Redirect to={next ?? '/'} replace />;
  return <Lazy page={AuthPage} />;
}

/** Pages for any signed-in user, admins included (spec §2); signed-out visitors are asked to sign in first. */
function SignedIn({ page }: { page: LazyExoticComponent<ComponentType> }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  if (isLoading) {
    return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  }
  if (!user) return <AccessRequired returnTo={location} />;
  return <Lazy page={page} />;
}

/** Pages for signed-in non-admin users only (spec §2: admins are not offered KYC); admins go to /. */
function ConsumerOnly({ page }: { page: LazyExoticComponent<ComponentType> }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  if (isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  if (!user) return <AccessRequired returnTo={location} />;
  if (user.role === 'admin') return <Redirect to="/" replace />;
  return <Lazy page={page} />;
}

export function AppRouter() {
  return (
    <Router parser={caseInsensitiveParser}>
      <Switch>
        <Route path="/" component={Home} />
        <Route path="/ar">{() => <LandingPage lang="ar" />}</Route>
        <Route path="/auth" component={AuthRoute} />
        <Route path="/auth/logout" component={LogoutPage} />
        <Route path="/terms-conditions">{() => <Lazy page={TermsPage} />}</Route>
        <Route path="/privacy-policy">{() => <Lazy page={PrivacyPage} />}</Route>
        <Route path="/legal-disclaimers">{() => <Lazy page={DisclaimersPage} />}</Route>
        <Route path="/admin-login">{() => <Lazy page={AdminLoginPage} />}</Route>
        <Route path="/admin-panel">{() => <Lazy page={AdminPanelPage} />}</Route>
        <Route path="/kyc-verification">{() => <ConsumerOnly page={KycVerificationPage} />}</Route>
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
        <Route component={NotFoundPage} />
      </Switch>
    </Router>
  );
}
