import { CreditCard, Languages, PieChart, ShieldCheck } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../../components/ui/tabs';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, useT, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { authErrorText, waitText, weakPasswordText } from '../../../lib/auth-errors';
import { isEmail } from '../../../lib/validation';
import { useAuth } from '../auth-context';
import { useDocumentTitle } from '../../../lib/document-title';
import { useHydrated } from '../../../lib/use-hydrated';

type Errors = Partial<Record<'email' | 'password' | 'totpCode', MessageKey>>;

/** A field's error: a catalogue key, or a text already translated (a weak password's reason from the server). */
function FieldError({ id, error, text }: { id: string; error?: MessageKey; text?: string }) {
  const t = useT();
  if (!error && !text) return null;
  return (
    <p id={id} role="alert" className="text-xs text-red-600">
      {error ? t(error) : text}
    </p>
  );
}

/*
 * Neither form navigates when its request succeeds. The route around this page (AuthRoute in
 * app/router.tsx) sends a signed-in person on, to the checked `next` or to `/`, as soon as the session state holds the
 * user. Navigating from the request's success callback ran before that state did (React Query tells React on a later
 * tick), so `/` still saw a signed-out visitor, showed the landing, and the landing sent an Arabic reader on to `/ar`.
 */
function SignInForm() {
  const t = useT();
  const { loginMutation } = useAuth();
  const hydrated = useHydrated();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  // Past the account's cap on a new device the answer is "if the password is right, a link is in your mail".
  const [linkSent, setLinkSent] = useState(false);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setLinkSent(false);
    const next: Errors = {};
    if (!email.trim()) next.email = 'auth.error.emailRequired';
    else if (!isEmail(email)) next.email = 'auth.error.emailInvalid';
    if (!password) next.password = 'auth.error.passwordRequired';
    if (needsCode && totpCode && !/^\d{6}$/.test(totpCode)) next.totpCode = 'auth.error.totpInvalid';
    setErrors(next);
    if (Object.keys(next).length) return;
    loginMutation.mutate(
      { email: email.trim(), password, ...(needsCode && totpCode ? { totpCode } : {}) },
      {
        onSuccess: () => {
          toast({ title: t('auth.toast.loginSuccess'), description: t('auth.toast.loginSuccessBody') });
          // No navigation here: see the note above SignInForm.
        },
        onError: (error) => {
          if (error instanceof ApiError && error.code === 'two_factor_required') {
            setNeedsCode(true);
            return;
          }
          if (error instanceof ApiError && error.code === 'sign_in_link_sent') {
            setLinkSent(true);
            return;
          }
          // Past the account's cap, a new device gets in with the password and a two-factor code: offer the field.
          if (error instanceof ApiError && error.code === 'account_sign_in_limited') setNeedsCode(true);
          const linkLimited = error instanceof ApiError && error.code === 'sign_in_link_rate_limited';
          toast({
            title: t('auth.toast.loginFailed'),
            description: linkLimited ? t('signInLink.limited', { wait: waitText(t, error.retryAfterSeconds ?? 3600) }) : authErrorText(t, error),
            variant: 'destructive',
          });
        },
      },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label={t('auth.tab.signIn')}>
      <fieldset disabled={!hydrated} className="m-0 min-w-0 space-y-4 border-0 p-0">
      <div className="space-y-2">
        <Label htmlFor="login-email">{t('auth.email')}</Label>
        <Input
          id="login-email"
          type="email"
          autoComplete="email"
          placeholder={t('auth.email.placeholder')}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={!!errors.email}
          aria-describedby={errors.email ? 'login-email-error' : undefined}
        />
        <FieldError id="login-email-error" error={errors.email} />
      </div>
      <div className="space-y-2">
        <Label htmlFor="login-password">{t('auth.password')}</Label>
        <Input
          id="login-password"
          type="password"
          autoComplete="current-password"
          placeholder={t('auth.password.placeholder')}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={!!errors.password}
          aria-describedby={errors.password ? 'login-password-error' : undefined}
        />
        <FieldError id="login-password-error" error={errors.password} />
      </div>
      {needsCode && (
        <div className="space-y-2">
          <Label htmlFor="login-totp">{t('auth.totp')}</Label>
          <p className="text-xs text-slate-500">{t('auth.totp.help')}</p>
          <Input
            id="login-totp"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            autoFocus
            placeholder={t('auth.totp.placeholder')}
            value={totpCode}
            onChange={(e) => setTotpCode(e.target.value.replace(/\D/g, ''))}
            aria-invalid={!!errors.totpCode}
          />
          <FieldError id="login-totp-error" error={errors.totpCode} />
        </div>
      )}
      {linkSent && (
        <div role="status" data-testid="sign-in-link-sent" className="rounded-md bg-brand-50 p-3 text-sm text-slate-800">
          <p className="font-semibold">{t('signInLink.sent.title')}</p>
          <p>{t('signInLink.sent.body')}</p>
        </div>
      )}
      <Button type="submit" className="w-full" disabled={loginMutation.isPending}>
        {loginMutation.isPending ? t('auth.signIn.pending') : t('auth.signIn.submit')}
      </Button>
      <p className="text-center text-sm">
        <Link href="/forgot-password" className="text-brand-600 underline-offset-4 hover:underline">
          {t('auth.forgotPassword')}
        </Link>
      </p>
      </fieldset>
    </form>
  );
}

function RegisterForm() {
  const { t, lang } = useLanguage();
  const { registerMutation } = useAuth();
  const hydrated = useHydrated();
  const [form, setForm] = useState({ email: '', password: '', firstName: '', lastName: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [weakPassword, setWeakPassword] = useState<string | undefined>();
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    if (k === 'password') setWeakPassword(undefined);
    setForm({ ...form, [k]: e.target.value });
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const next: Errors = {};
    if (!form.email.trim()) next.email = 'auth.error.emailRequired';
    else if (!isEmail(form.email)) next.email = 'auth.error.emailInvalid';
    if (!form.password) next.password = 'auth.error.passwordRequired';
    else if (form.password.length < 6) next.password = 'auth.error.passwordShort';
    setErrors(next);
    if (Object.keys(next).length) return;
    registerMutation.mutate(
      // The language signed up in is the account's: bpay writes to the person in it.
      { ...form, email: form.email.trim(), language: lang },
      {
        onSuccess: () => {
          toast({ title: t('auth.toast.registerSuccess'), description: t('auth.toast.registerSuccessBody') });
          // No navigation here: see the note above SignInForm.
        },
        onError: (error) => {
          setWeakPassword(weakPasswordText(t, error));
          toast({ title: t('auth.toast.registerFailed'), description: authErrorText(t, error), variant: 'destructive' });
        },
      },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label={t('auth.tab.register')}>
      <fieldset disabled={!hydrated} className="m-0 min-w-0 space-y-4 border-0 p-0">
      <div className="grid grid-cols-2 gap-3">
        <div className="space-y-2">
          <Label htmlFor="register-first-name">{t('auth.firstName')}</Label>
          <Input
            id="register-first-name"
            autoComplete="given-name"
            placeholder={t('auth.firstName.placeholder')}
            value={form.firstName}
            onChange={set('firstName')}
          />
        </div>
        <div className="space-y-2">
          <Label htmlFor="register-last-name">{t('auth.lastName')}</Label>
          <Input
            id="register-last-name"
            autoComplete="family-name"
            placeholder={t('auth.lastName.placeholder')}
            value={form.lastName}
            onChange={set('lastName')}
          />
        </div>
      </div>
      <div className="space-y-2">
        <Label htmlFor="register-email">{t('auth.email')}</Label>
        <Input
          id="register-email"
          type="email"
          autoComplete="email"
          placeholder={t('auth.email.placeholder')}
          value={form.email}
          onChange={set('email')}
          aria-invalid={!!errors.email}
        />
        <FieldError id="register-email-error" error={errors.email} />
      </div>
      <div className="space-y-2">
        <Label htmlFor="register-password">{t('auth.password')}</Label>
        <Input
          id="register-password"
          type="password"
          autoComplete="new-password"
          placeholder={t('auth.password.createPlaceholder')}
          value={form.password}
          onChange={set('password')}
          aria-invalid={!!errors.password || !!weakPassword}
          aria-describedby={errors.password || weakPassword ? 'register-password-error' : undefined}
        />
        <FieldError id="register-password-error" error={errors.password} text={weakPassword} />
      </div>
      <Button type="submit" className="w-full" disabled={registerMutation.isPending}>
        {registerMutation.isPending ? t('auth.register.pending') : t('auth.register.submit')}
      </Button>
      </fieldset>
    </form>
  );
}

type AuthTab = 'signin' | 'register';

/** `?tab=register` (the landing page's Start Free) opens Register; anything else Sign In. */
export function tabFromSearch(search: string): AuthTab {
  return new URLSearchParams(search).get('tab') === 'register' ? 'register' : 'signin';
}

export function AuthPage() {
  const { t, lang, setLanguage } = useLanguage();
  const hydrated = useHydrated();
  // The prerendered page shows Sign In; once live, the link's choice is applied (read after hydration, so the first
  // render matches the prerendered HTML).
  const [tab, setTab] = useState<AuthTab>('signin');
  useEffect(() => {
    setTab(tabFromSearch(window.location.search));
  }, []);
  useDocumentTitle(t('auth.meta.title'));
  const benefits = [
    { icon: CreditCard, title: t('auth.benefits.cards.title'), body: t('auth.benefits.cards.body') },
    { icon: PieChart, title: t('auth.benefits.split.title'), body: t('auth.benefits.split.body') },
    { icon: ShieldCheck, title: t('auth.benefits.security.title'), body: t('auth.benefits.security.body') },
  ];
  return (
    <div className="grid min-h-screen lg:grid-cols-2">
      <main className="flex items-center justify-center px-4 py-12">
        <div className="w-full max-w-md">
          <div className="mb-8 flex items-center justify-between gap-4">
            <Link href="/" className="inline-block text-2xl font-bold text-brand-600">
              bpay
            </Link>
            <Button
              variant="ghost"
              size="sm"
              onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
              lang={lang === 'ar' ? 'en' : 'ar'}
              aria-label={t('common.language.label')}
              disabled={!hydrated}
              data-testid="auth-language"
            >
              <Languages className="h-4 w-4" aria-hidden />
              {t('common.language.switch')}
            </Button>
          </div>
          <Card>
            <CardHeader>
              <CardTitle level={1}>{t('auth.title')}</CardTitle>
              <CardDescription>{t('auth.subtitle')}</CardDescription>
            </CardHeader>
            <CardContent>
              <Tabs dir={lang === 'ar' ? 'rtl' : 'ltr'} value={tab} onValueChange={(v) => setTab(v === 'register' ? 'register' : 'signin')}>
                <TabsList className="grid w-full grid-cols-2">
                  <TabsTrigger value="signin">{t('auth.tab.signIn')}</TabsTrigger>
                  {/* Until the page is live a click on the prerendered tab would do nothing and be lost. */}
                  <TabsTrigger value="register" disabled={!hydrated}>
                    {t('auth.tab.register')}
                  </TabsTrigger>
                </TabsList>
                <TabsContent value="signin">
                  <SignInForm />
                </TabsContent>
                <TabsContent value="register">
                  <RegisterForm />
                </TabsContent>
              </Tabs>
            </CardContent>
          </Card>
        </div>
      </main>
      <aside className="hidden flex-col justify-center bg-gradient-to-br from-brand-600 to-brand-700 p-12 text-white lg:flex">
        <h2 className="mb-8 text-3xl font-bold">{t('auth.benefits.title')}</h2>
        <ul className="space-y-6">
          {benefits.map(({ icon: Icon, title, body }) => (
            <li key={title} className="flex gap-4">
              <Icon className="mt-1 h-6 w-6 shrink-0" aria-hidden />
              <div>
                <h3 className="font-semibold">{title}</h3>
                <p className="text-sm text-brand-100">{body}</p>
              </div>
            </li>
          ))}
        </ul>
      </aside>
    </div>
  );
}
