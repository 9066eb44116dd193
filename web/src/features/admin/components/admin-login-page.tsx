import { useMutation } from '@tanstack/react-query';
import { Eye, EyeOff, Languages, Loader2, Lock, ShieldCheck } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Redirect, useLocation } from 'wouter';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import { adminLogin } from '../api';
import { setAdminToken, useAdminToken } from '../session';

type Field = 'username' | 'password' | 'accessCode';

function loginErrorMessage(e: unknown, fallback: string, network: string): string {
  if (e instanceof ApiError) {
    const body = e.body as { message?: unknown } | null;
    return e.serverMessage ?? (typeof body?.message === 'string' ? body.message : fallback);
  }
  return network;
}

/** /admin-login (spec §2, §5, §8). */
export function AdminLoginPage() {
  const { t, lang, setLanguage } = useLanguage();
  const [, navigate] = useLocation();
  const token = useAdminToken();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [accessCode, setAccessCode] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const login = useMutation({
    mutationFn: adminLogin,
    onSuccess: ({ token: next }) => {
      setAdminToken(next);
      navigate('/admin-panel');
    },
  });

  if (token && !login.isPending && !login.isSuccess) return <Redirect to="/admin-panel" replace />;

  function submit(e: FormEvent) {
    e.preventDefault();
    const next: Partial<Record<Field, string>> = {};
    if (!username.trim()) next.username = t('admin.login.usernameRequired');
    if (!password) next.password = t('admin.login.passwordRequired');
    if (!accessCode.trim()) next.accessCode = t('admin.login.codeRequired');
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    login.mutate({ username: username.trim(), password, accessCode: accessCode.trim() });
  }

  const failure = login.error ? loginErrorMessage(login.error, t('admin.login.invalid'), t('admin.login.network')) : null;

  return (
    <main className="flex min-h-screen items-center justify-center bg-slate-900 px-4 py-10">
      <div className="w-full max-w-md">
        <div className="mb-4 flex justify-end">
          <Button
            variant="ghost"
            size="sm"
            className="text-slate-300 hover:bg-slate-800"
            onClick={() => setLanguage(lang === 'ar' ? 'en' : 'ar')}
            lang={lang === 'ar' ? 'en' : 'ar'}
            aria-label={t('common.language.label')}
          >
            <Languages className="h-4 w-4" aria-hidden />
            {t('common.language.switch')}
          </Button>
        </div>
        <div className="rounded-2xl bg-white p-8 shadow-xl">
          <div className="mb-6 flex flex-col items-center text-center">
            <span className="mb-3 flex h-12 w-12 items-center justify-center rounded-full bg-brand-600 text-white" aria-hidden>
              <ShieldCheck className="h-6 w-6" />
            </span>
            <h1 className="text-2xl font-bold text-slate-900">{t('admin.login.title')}</h1>
            <p className="mt-1 text-sm text-slate-500">{t('admin.login.subtitle')}</p>
          </div>
          <form className="space-y-4" onSubmit={submit} noValidate data-testid="admin-login-form">
            <div className="space-y-1.5">
              <Label htmlFor="admin-username">{t('admin.login.username')}</Label>
              <Input
                id="admin-username"
                autoComplete="username"
                value={username}
                onChange={(e) => setUsername(e.target.value)}
                aria-invalid={errors.username ? true : undefined}
                aria-describedby={errors.username ? 'admin-username-error' : undefined}
                data-testid="admin-username"
              />
              {errors.username && (
                <p id="admin-username-error" className="text-sm text-red-600">
                  {errors.username}
                </p>
              )}
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="admin-password">{t('admin.login.password')}</Label>
              <div className="relative">
                <Input
                  id="admin-password"
                  type={showPassword ? 'text' : 'password'}
                  autoComplete="current-password"
                  className="pe-10"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  aria-invalid={errors.password ? true : undefined}
                  aria-describedby={errors.password ? 'admin-password-error' : undefined}
                  data-testid="admin-password"
                />
                <button
                  type="button"
                  className="absolute inset-y-0 end-0 flex w-10 items-center justify-center text-slate-500 hover:text-slate-900"
                  onClick={() => setShowPassword((v) => !v)}
                  aria-label={showPassword ? t('admin.login.hidePassword') : t('admin.login.showPassword')}
                  aria-pressed={showPassword}
                  data-testid="admin-password-toggle"
                >
                  {showPassword ? <EyeOff className="h-4 w-4" aria-hidden /> : <Eye className="h-4 w-4" aria-hidden />}
                </button>
              </div>
              {errors.password && (
                <p id="admin-password-error" className="text-sm text-red-600">
                  {errors.password}
                </p>
              )}
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="admin-access-code">{t('admin.login.accessCode')}</Label>
              <Input
                id="admin-access-code"
                type="password"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                dir="ltr"
                value={accessCode}
                onChange={(e) => setAccessCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
                aria-invalid={errors.accessCode ? true : undefined}
                aria-describedby={errors.accessCode ? 'admin-code-error' : 'admin-code-hint'}
                data-testid="admin-access-code"
              />
              {errors.accessCode ? (
                <p id="admin-code-error" className="text-sm text-red-600">
                  {errors.accessCode}
                </p>
              ) : (
                <p id="admin-code-hint" className="text-xs text-slate-500">
                  {t('admin.login.accessCodeHint')}
                </p>
              )}
            </div>
            {failure && (
              <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="admin-login-error">
                {failure}
              </div>
            )}
            <Button type="submit" className="w-full" disabled={login.isPending} data-testid="admin-login-submit">
              {login.isPending ? (
                <>
                  <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
                  {t('admin.login.pending')}
                </>
              ) : (
                t('admin.login.submit')
              )}
            </Button>
          </form>
          <div className="mt-6 border-t border-slate-200 pt-4 text-center text-xs text-slate-500">
            <p className="flex items-center justify-center gap-1.5 font-medium">
              <Lock className="h-3.5 w-3.5" aria-hidden />
              {t('admin.login.footer1')}
            </p>
            <p className="mt-1">{t('admin.login.footer2')}</p>
          </div>
        </div>
      </div>
    </main>
  );
}
