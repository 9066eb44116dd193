import { parse } from 'regexparam';
import { lazy, Suspense, useState, type ComponentType, type LazyExoticComponent } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { AdminLoginPage } from '../features/admin/components/admin-login-page';
import { AdminPanelPage, useAdminSession } from '../features/admin/components/admin-panel-page';
import { AuthPage } from '../features/auth/components/auth-page';
import { LogoutPage } from '../features/auth/components/logout-page';
import { useAuth } from '../features/auth/auth-context';
import { nextFromLocation } from '../features/auth/next-path';
import { CheckoutPayPage } from '../features/checkout/components/checkout-pay-page';
import { DashboardPage } from '../features/dashboard/components/dashboard-page';
import { KycVerificationPage } from '../features/kyc/components/kyc-page';
import { LandingPage } from '../features/landing/components/landing-page';
import { DisclaimersPage } from '../features/legal/components/disclaimers-page';
import { PrivacyPage } from '../features/legal/components/privacy-page';
import { TermsPage } from '../features/legal/components/terms-page';
import { AccessRequired } from '../features/merchants/components/access-required';
import { MerchantDashboardPage } from '../features/merchants/components/merchant-dashboard-page';
import { MerchantPortalPage } from '../features/merchants/components/merchant-portal-page';
import { NotFoundPage } from './not-found';

/*
 * The demos and the investor pages are their own chunks (issue 12): a first visit to / does not download them.
 * Each import names the module's export, so a renamed page fails the typecheck.
 */
const PaymentDemoPage = lazy(() =>
  import('../features/payment-demo/components/payment-demo-page').then((m) => ({ default: m.PaymentDemoPage })),
);
const AddonCheckoutDemoPage = lazy(() =>
  import('../features/checkout-demos/components/addon-demo-page').then((m) => ({ default: m.AddonCheckoutDemoPage })),
);
const BannerCheckoutDemoPage = lazy(() =>
  import('../features/checkout-demos/components/banner-demo-page').then((m) => ({ default: m.BannerCheckoutDemoPage })),
);
const InvestorsPage = lazy(() => import('../features/investors/components/investors-page').then((m) => ({ default: m.InvestorsPage })));
const InvestorsArPage = lazy(() =>
  import('../features/investors/components/investors-ar-page').then((m) => ({ default: m.InvestorsArPage })),
);

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
  const adminSession = useAdminSession();
  if (!isLoading && !user && adminSession.token) {
    if (adminSession.isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
    if (adminSession.admin) return <AdminPanelPage />;
  }
  if (isLoading || !user) return <LandingPage lang="en" />;
  if (user.role === 'admin') return <Redirect to="/admin-panel" />;
  return <DashboardPage />;
}

/** Pages only for signed-out visitors: signed-in users go to a checked same-site `next`, else to /. */
function AuthRoute() {
  const { user, isLoading } = useAuth();
  const [next] = useState(nextFromLocation);
  if (!isLoading && user) return <Redirect to={next ?? '/'} replace />;
  return <AuthPage />;
}

/** Pages for any signed-in user, admins included (spec §2); signed-out visitors are asked to sign in first. */
function SignedIn({ page: Page }: { page: ComponentType }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  if (isLoading) {
    return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  }
  if (!user) return <AccessRequired returnTo={location} />;
  return <Page />;
}

/** Pages for signed-in non-admin users only (spec §2: admins are not offered KYC); admins go to /. */
function ConsumerOnly({ page: Page }: { page: ComponentType }) {
  const { user, isLoading } = useAuth();
  const [location] = useLocation();
  if (isLoading) return <div className="min-h-screen bg-slate-50" aria-busy="true" />;
  if (!user) return <AccessRequired returnTo={location} />;
  if (user.role === 'admin') return <Redirect to="/" replace />;
  return <Page />;
}

export function AppRouter() {
  return (
    <Router parser={caseInsensitiveParser}>
      <Switch>
        <Route path="/" component={Home} />
        <Route path="/ar">{() => <LandingPage lang="ar" />}</Route>
        <Route path="/auth" component={AuthRoute} />
        <Route path="/auth/logout" component={LogoutPage} />
        <Route path="/terms-conditions" component={TermsPage} />
        <Route path="/privacy-policy" component={PrivacyPage} />
        <Route path="/legal-disclaimers" component={DisclaimersPage} />
        <Route path="/admin-login" component={AdminLoginPage} />
        <Route path="/admin-panel" component={AdminPanelPage} />
        <Route path="/kyc-verification">{() => <ConsumerOnly page={KycVerificationPage} />}</Route>
        <Route path="/merchant-portal">{() => <SignedIn page={MerchantPortalPage} />}</Route>
        <Route path="/merchant-dashboard">{() => <SignedIn page={MerchantDashboardPage} />}</Route>
        {/* The checkout popup asks for sign-in itself, after showing what is being paid. */}
        <Route path="/checkout/pay" component={CheckoutPayPage} />
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
