import { useMutation, useQueryClient } from '@tanstack/react-query';
import { BadgeCheck, Loader2, LogIn, LogOut, Mail, MapPin, Pencil, Phone } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { DialogForm } from '../../../components/ui/dialog-form';
import { FormField } from '../../../components/ui/form-field';
import { Input } from '../../../components/ui/input';
import { toast } from '../../../components/ui/use-toast';
import { useT } from '../../../i18n';
import { messageOf } from '../../../lib/api';
import { useCountryOptions } from '../../../lib/countries';
import { updateProfileRequest, USER_QUERY_KEY, type User } from '../../auth/api';
import { useAuth } from '../../auth/auth-context';
import { displayName } from '../display-name';
import { ProfileAvatar } from './profile-avatar';

interface ContactForm {
  phoneNumber: string;
  line1: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

const DEFAULT_COUNTRY = 'US';

function fromUser(user: User): ContactForm {
  return {
    phoneNumber: user.phoneNumber ?? '',
    line1: user.address.line1 ?? '',
    city: user.address.city ?? '',
    state: user.address.state ?? '',
    postal_code: user.address.postal_code ?? '',
    country: user.address.country || DEFAULT_COUNTRY,
  };
}

/** One line per address, skipping what is not filled in: "1 Main St, Springfield, IL 62701, US". */
function formatAddress(address: User['address']): string {
  const region = [address.state, address.postal_code].filter(Boolean).join(' ');
  return address.line1 || address.city
    ? [address.line1, address.city, region, address.country].filter(Boolean).join(', ')
    : '';
}

function DetailRow({ icon, label, value, empty }: { icon: ReactNode; label: string; value: string; empty: string }) {
  return (
    <div className="flex items-start gap-3 py-3">
      <span className="mt-0.5 text-slate-400" aria-hidden>
        {icon}
      </span>
      <div className="min-w-0">
        <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</dt>
        <dd className={value ? 'break-words text-sm text-slate-900' : 'text-sm italic text-slate-400'}>
          {value || empty}
        </dd>
      </div>
    </div>
  );
}

/** A required field's label: a visible asterisk, and '(required)' for screen readers. */
function RequiredLabel({ children }: { children: string }) {
  const t = useT();
  return (
    <>
      {children}
      <span className="text-red-600" aria-hidden>
        {' '}
        *
      </span>
      <span className="sr-only"> ({t('profile.required')})</span>
    </>
  );
}

function SignedInProfile({ user, onClose }: { user: User; onClose(): void }) {
  const t = useT();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState<ContactForm>(() => fromUser(user));
  // The one Country list, as in Settings (the API accepts only these codes).
  const countries = useCountryOptions(form.country, { none: false });

  const save = useMutation({
    mutationFn: updateProfileRequest,
    onSuccess: (updated) => {
      qc.setQueryData(USER_QUERY_KEY, updated);
      setForm(fromUser(updated));
      setEditing(false);
      toast({ title: t('profile.toast.updated') });
    },
    onError: (error) => {
      toast({
        title: t('profile.toast.updateFailed'),
        description: messageOf(error) ?? t('profile.toast.updateFailedBody'),
        variant: 'destructive',
      });
    },
  });

  const set = (field: keyof ContactForm) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  function startEditing() {
    setForm(fromUser(user));
    setEditing(true);
  }
  function cancelEditing() {
    setForm(fromUser(user));
    setEditing(false);
  }

  function onSubmit() {
    const v = {
      phoneNumber: form.phoneNumber.trim(),
      line1: form.line1.trim(),
      city: form.city.trim(),
      state: form.state.trim().toUpperCase(),
      postal_code: form.postal_code.trim(),
      country: form.country.trim().toUpperCase() || DEFAULT_COUNTRY,
    };
    if (!v.phoneNumber || !v.line1 || !v.city) {
      toast({
        title: t('profile.toast.incomplete'),
        description: t('profile.toast.incompleteBody'),
        variant: 'destructive',
      });
      return;
    }
    save.mutate({
      phoneNumber: v.phoneNumber,
      address: { line1: v.line1, city: v.city, state: v.state, postal_code: v.postal_code, country: v.country },
    });
  }

  function logout() {
    onClose();
    navigate('/auth/logout');
  }

  const name = displayName(user, t('profile.userFallback'));

  return (
    <>
      <DialogHeader>
        <div className="flex items-center gap-4">
          <ProfileAvatar user={user} className="h-16 w-16 text-xl" />
          <div className="min-w-0 space-y-1">
            <DialogTitle className="truncate text-xl" data-testid="profile-name">
              {name}
            </DialogTitle>
            <DialogDescription className="truncate" dir="ltr">
              {user.email}
            </DialogDescription>
            {user.isKycVerified && (
              <Badge tone="green" className="gap-1" data-testid="profile-verified">
                <BadgeCheck className="h-3.5 w-3.5" aria-hidden />
                {t('profile.verified')}
              </Badge>
            )}
          </div>
        </div>
      </DialogHeader>

      {editing ? (
        <DialogForm
          onSubmit={onSubmit}
          label={t('profile.editTitle')}
          actionsClassName="pt-2"
          submit={{ label: t('profile.save'), pendingLabel: t('profile.saving'), pending: save.isPending, testId: 'profile-save' }}
          cancel={{ label: t('profile.cancel'), onClick: cancelEditing, disabled: save.isPending, testId: 'profile-cancel' }}
        >
          <p className="text-xs text-slate-500">{t('profile.requiredHint')}</p>
          <FormField id="phoneNumber" label={<RequiredLabel>{t('profile.phone')}</RequiredLabel>}>
            {({ id }) => (
              <Input
                id={id}
                name="phoneNumber"
                type="tel"
                autoComplete="tel"
                dir="ltr"
                maxLength={23}
                placeholder={t('profile.phone.placeholder')}
                value={form.phoneNumber}
                onChange={(e) => set('phoneNumber')(e.target.value)}
                aria-required
              />
            )}
          </FormField>
          <FormField id="line1" label={<RequiredLabel>{t('profile.address.line1')}</RequiredLabel>}>
            {({ id }) => (
              <Input
                id={id}
                name="line1"
                dir="auto"
                autoComplete="address-line1"
                maxLength={200}
                placeholder={t('profile.address.line1.placeholder')}
                value={form.line1}
                onChange={(e) => set('line1')(e.target.value)}
                aria-required
              />
            )}
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField id="city" label={<RequiredLabel>{t('profile.address.city')}</RequiredLabel>}>
              {({ id }) => (
                <Input
                  id={id}
                  name="city"
                  dir="auto"
                  autoComplete="address-level2"
                  maxLength={100}
                  value={form.city}
                  onChange={(e) => set('city')(e.target.value)}
                  aria-required
                />
              )}
            </FormField>
            <FormField id="state" label={t('profile.address.state')}>
              {({ id }) => (
                <Input
                  id={id}
                  name="state"
                  autoComplete="address-level1"
                  maxLength={2}
                  dir="ltr"
                  className="uppercase"
                  placeholder={t('profile.address.state.placeholder')}
                  value={form.state}
                  onChange={(e) => set('state')(e.target.value.toUpperCase())}
                />
              )}
            </FormField>
            <FormField id="postal_code" label={t('profile.address.postalCode')}>
              {({ id }) => (
                <Input
                  id={id}
                  name="postal_code"
                  autoComplete="postal-code"
                  maxLength={20}
                  dir="ltr"
                  value={form.postal_code}
                  onChange={(e) => set('postal_code')(e.target.value)}
                />
              )}
            </FormField>
            <FormField id="country" label={t('profile.address.country')}>
              {({ id }) => (
                <select
                  id={id}
                  name="country"
                  autoComplete="country"
                  className="flex h-10 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 disabled:cursor-not-allowed disabled:opacity-50"
                  value={form.country}
                  onChange={(e) => set('country')(e.target.value)}
                  data-testid="profile-country"
                >
                  {countries.map((o) => (
                    <option key={o.code} value={o.code}>
                      {o.label}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
          </div>
        </DialogForm>
      ) : (
        <>
          <dl className="divide-y divide-slate-100 rounded-lg border border-slate-200 px-4">
            <DetailRow icon={<Mail className="h-4 w-4" />} label={t('profile.email')} value={user.email} empty="" />
            <DetailRow
              icon={<Phone className="h-4 w-4" />}
              label={t('profile.phone')}
              value={user.phoneNumber ?? ''}
              empty={t('profile.notProvided')}
            />
            <DetailRow
              icon={<MapPin className="h-4 w-4" />}
              label={t('profile.address')}
              value={formatAddress(user.address)}
              empty={t('profile.notProvided')}
            />
          </dl>
          <div className="mt-6 flex flex-col gap-2 sm:flex-row sm:items-center">
            <Button
              variant="ghost"
              className="text-red-600 hover:bg-red-50 sm:me-auto"
              onClick={logout}
              data-testid="profile-logout"
            >
              <LogOut className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
              {t('profile.logout')}
            </Button>
            <Button variant="outline" onClick={onClose} data-testid="profile-close">
              {t('profile.close')}
            </Button>
            <Button onClick={startEditing} data-testid="profile-edit">
              <Pencil className="h-4 w-4" aria-hidden />
              {t('profile.edit')}
            </Button>
          </div>
        </>
      )}
    </>
  );
}

function AccessRequired({ onClose }: { onClose(): void }) {
  const t = useT();
  const [, navigate] = useLocation();
  return (
    <>
      <DialogHeader>
        <DialogTitle>{t('profile.accessRequired')}</DialogTitle>
        <DialogDescription>{t('profile.accessRequiredBody')}</DialogDescription>
      </DialogHeader>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onClose}>
          {t('profile.cancel')}
        </Button>
        <Button
          onClick={() => {
            onClose();
            navigate('/auth');
          }}
        >
          <LogIn className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
          {t('profile.logIn')}
        </Button>
      </div>
    </>
  );
}

/**
 * The profile modal (spec §2): view and edit the contact details, close, or log out. Signed-out visitors are asked
 * to log in; while the session loads it says so. Edits are discarded whenever the dialog closes.
 */
export function ProfileDialog({ open, onOpenChange }: { open: boolean; onOpenChange(open: boolean): void }) {
  const t = useT();
  const { user, isLoading } = useAuth();
  const close = () => onOpenChange(false);
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent closeLabel={t('profile.close')} data-testid="profile-dialog">
        {isLoading ? (
          <>
            <DialogTitle className="sr-only">{t('profile.title')}</DialogTitle>
            <DialogDescription className="flex items-center gap-2 py-6 text-slate-600" role="status">
              <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
              {t('profile.loading')}
            </DialogDescription>
          </>
        ) : user ? (
          <SignedInProfile key={user.id} user={user} onClose={close} />
        ) : (
          <AccessRequired onClose={close} />
        )}
      </DialogContent>
    </Dialog>
  );
}
