import { parse } from 'regexparam';
import { useState, type ComponentType } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { AuthPage } from '../features/auth/components/auth-page';
import { LogoutPage } from '../features/auth/components/logout-page';
import { useAuth } from '../features/auth/auth-context';
import { nextFromLocation } from '../features/auth/next-path';
import { CheckoutPayPage } from '../features/checkout/components/checkout-pay-page';
import { DashboardPage } from '../features/dashboard/components/dashboard-page';
import { LandingPage } from '../features/landing/components/landing-page';
import { DisclaimersPage } from '../features/legal/components/disclaimers-page';
import { PrivacyPage } from '../features/legal/components/privacy-page';
import { TermsPage } from '../features/legal/components/terms-page';
import { AccessRequired } from '../features/merchants/components/access-required';
import { MerchantDashboardPage } from '../features/merchants/components/merchant-dashboard-page';
import { MerchantPortalPage } from '../features/merchants/components/merchant-portal-page';
import { NotFoundPage } from './not-found';

/** Route matching is case-insensitive (spec §2); named and optional parameters and wildcards come from regexparam. */
export function caseInsensitiveParser(route: string, loose?: boolean) {
  const { keys, pattern } = parse(route, loose);
  return { keys, pattern: new RegExp(pattern.source, 'i') };
}

/** `/`: the landing page while the session loads or when signed out, the dashboard for users, the admin panel for admins. */
function Home() {
  const { user, isLoading } = useAuth();
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
        <Route path="/merchant-portal">{() => <SignedIn page={MerchantPortalPage} />}</Route>
        <Route path="/merchant-dashboard">{() => <SignedIn page={MerchantDashboardPage} />}</Route>
        {/* The checkout popup asks for sign-in itself, after showing what is being paid. */}
        <Route path="/checkout/pay" component={CheckoutPayPage} />
        <Route component={NotFoundPage} />
      </Switch>
    </Router>
  );
}
