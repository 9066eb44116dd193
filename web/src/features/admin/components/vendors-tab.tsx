import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Loader2, PlugZap, Save } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useLanguage, type MessageKey } from '../../../i18n';
import { ApiError } from '../../../lib/api';
import {
  saveVendorKeys,
  saveVendorSettings,
  testVendorConnection,
  VENDORS_KEY,
  vendorsQuery,
  type VendorConfig,
  type VendorFeature,
  type VendorMode,
  type VendorModeConfig,
} from '../api';
import { ErrorBlock, LoadingBlock } from './states';

const FEATURES: VendorFeature[] = ['paymentProcessing', 'cardIssuing', 'identity', 'connect'];
const featureLabel: Record<VendorFeature, MessageKey> = {
  paymentProcessing: 'admin.vendors.feature.paymentProcessing',
  cardIssuing: 'admin.vendors.feature.cardIssuing',
  identity: 'admin.vendors.feature.identity',
  connect: 'admin.vendors.feature.connect',
};
type Drafts = Record<VendorMode, { publishableKey: string; secretKey: string; webhookSecret: string }>;
const emptyDrafts = (): Drafts => ({
  test: { publishableKey: '', secretKey: '', webhookSecret: '' },
  live: { publishableKey: '', secretKey: '', webhookSecret: '' },
});

export function VendorsTab() {
  const { t } = useLanguage();
  const q = useQuery(vendorsQuery());
  if (q.isLoading) return <LoadingBlock />;
  if (q.error || !q.data) return <ErrorBlock message={t('admin.errors.vendors')} onRetry={() => void q.refetch()} />;
  return <VendorsForm config={q.data} />;
}

/** "Set ••••1234" or "Not set": secrets are write-only and never come back from the server. */
function SecretState({ set, last4, testId }: { set: boolean; last4: string | null; testId: string }) {
  const { t } = useLanguage();
  return (
    <span className="text-xs text-slate-500" data-testid={testId}>
      {set ? (
        <>
          {t('admin.vendors.set')}{' '}
          <span dir="ltr" className="font-mono">
            ••••{last4 ?? ''}
          </span>
        </>
      ) : (
        t('admin.vendors.notSet')
      )}
    </span>
  );
}

function VendorsForm({ config }: { config: VendorConfig }) {
  const { t } = useLanguage();
  const qc = useQueryClient();
  const [mode, setMode] = useState<VendorMode>(config.mode);
  const [features, setFeatures] = useState(config.features);
  const [drafts, setDrafts] = useState<Drafts>(emptyDrafts);
  const [testing, setTesting] = useState(false);
  const current: VendorModeConfig = config[mode];
  const configured = Boolean(current.publishableKey) && current.secretKeySet;

  const save = useMutation({
    mutationFn: async () => {
      for (const m of ['test', 'live'] as const) {
        const d = drafts[m];
        const body = {
          ...(d.publishableKey.trim() ? { publishableKey: d.publishableKey.trim() } : {}),
          ...(d.secretKey.trim() ? { secretKey: d.secretKey.trim() } : {}),
          ...(d.webhookSecret.trim() ? { webhookSecret: d.webhookSecret.trim() } : {}),
        };
        if (Object.keys(body).length > 0) await saveVendorKeys(m, body);
      }
      await saveVendorSettings(mode, features);
    },
    onSuccess: () => {
      setDrafts(emptyDrafts());
      toast({ title: t('admin.vendors.saved') });
      void qc.invalidateQueries({ queryKey: VENDORS_KEY });
    },
    onError: (e) =>
      toast({ title: t('admin.vendors.saveFailed'), description: e instanceof ApiError ? e.serverMessage : undefined, variant: 'destructive' }),
  });

  /**
   * Tests the mode shown on this page (saved or not) with that mode's saved secret key, and names it in the toast.
   * A secret typed but not saved is not what the server would use: ask to save it first.
   */
  async function testConnection() {
    const shown = mode;
    const modeName = t(shown === 'live' ? 'admin.vendors.modeName.live' : 'admin.vendors.modeName.test');
    if (drafts[shown].secretKey.trim()) {
      toast({ title: t('admin.vendors.unsavedSecret', { mode: modeName }), variant: 'destructive' });
      return;
    }
    // With no key and the simulator running, the server answers for the simulator (it needs no credentials).
    if (!config[shown].secretKeySet && config.inUse.vendor === 'stripe') {
      toast({ title: t('admin.vendors.noSecret'), description: t('admin.vendors.testResult.mode', { mode: modeName }), variant: 'destructive' });
      return;
    }
    setTesting(true);
    try {
      const r = await testVendorConnection(shown);
      const tested = t(r.mode === 'live' ? 'admin.vendors.modeName.live' : 'admin.vendors.modeName.test');
      if (!r.ok) {
        toast({ title: t('admin.vendors.testResult.failed', { mode: tested, reason: r.message || t('admin.vendors.testFailed') }), variant: 'destructive' });
      } else if (r.provider === 'simulated') {
        toast({ title: t('admin.vendors.testResult.simulated', { mode: tested }), description: t('admin.vendors.testOkSimulated') });
      } else {
        toast({ title: t('admin.vendors.testResult.connected', { mode: tested }) });
      }
    } catch (e) {
      const reason = (e instanceof ApiError ? e.serverMessage : undefined) ?? t('admin.vendors.testFailed');
      toast({ title: t('admin.vendors.testResult.failed', { mode: modeName, reason }), variant: 'destructive' });
    } finally {
      setTesting(false);
    }
  }

  const setDraft = (m: VendorMode, k: keyof Drafts[VendorMode], v: string) => setDrafts((d) => ({ ...d, [m]: { ...d[m], [k]: v } }));

  return (
    <div className="space-y-6" data-testid="admin-vendors">
      <section className="flex flex-wrap items-center justify-between gap-4 rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <div>
          <h2 className="text-lg font-semibold text-slate-900">{t('admin.vendors.title')}</h2>
          <p className="text-sm text-slate-500">{t('admin.vendors.description')}</p>
          <p className="mt-2 text-sm text-slate-700" data-testid="vendor-in-use">
            {t('admin.vendors.inUse', {
              vendor:
                config.inUse.vendor === 'stripe'
                  ? t('admin.vendors.inUse.stripe', {
                      mode: config.inUse.mode === 'live' ? t('admin.vendors.liveMode') : t('admin.vendors.testMode'),
                      source: t(config.inUse.source === 'admin' ? 'admin.vendors.inUse.source.admin' : 'admin.vendors.inUse.source.environment'),
                    })
                  : t('admin.vendors.inUse.simulated'),
            })}{' '}
            {t('admin.vendors.applyAtStart')}
          </p>
        </div>
        <div className="flex items-center gap-3">
          <Label htmlFor="vendor-mode">{t('admin.vendors.testMode')}</Label>
          <Switch id="vendor-mode" checked={mode === 'live'} onCheckedChange={(live) => setMode(live ? 'live' : 'test')} aria-label={t('admin.vendors.modeLabel')} data-testid="vendor-mode" />
          <span className="text-sm font-medium">{t('admin.vendors.liveMode')}</span>
          <Badge tone={configured ? 'green' : 'yellow'} data-testid="vendor-configured">
            {configured ? t('admin.vendors.configured') : t('admin.vendors.notConfigured')}
          </Badge>
        </div>
      </section>
      <div className="grid gap-6 lg:grid-cols-2">
        {(['test', 'live'] as const).map((m) => (
          <section key={m} className={`space-y-4 rounded-xl border bg-white p-6 shadow-sm ${m === mode ? 'border-brand-500' : 'border-slate-200'}`} aria-labelledby={`vendor-${m}-title`}>
            <h3 id={`vendor-${m}-title`} className="font-semibold">
              {m === 'test' ? t('admin.vendors.testKeys') : t('admin.vendors.liveKeys')}
            </h3>
            <div className="space-y-1.5">
              <Label htmlFor={`vendor-${m}-pk`}>{t('admin.vendors.publishableKey')}</Label>
              <Input
                id={`vendor-${m}-pk`}
                dir="ltr"
                autoComplete="off"
                placeholder={config[m].publishableKey ?? (m === 'test' ? 'pk_test_…' : 'pk_live_…')}
                value={drafts[m].publishableKey}
                onChange={(e) => setDraft(m, 'publishableKey', e.target.value)}
                data-testid={`vendor-${m}-publishable`}
              />
              <span className="text-xs text-slate-500" dir="ltr">
                {config[m].publishableKey ?? t('admin.vendors.notSet')}
              </span>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor={`vendor-${m}-sk`}>{t('admin.vendors.secretKey')}</Label>
              <Input
                id={`vendor-${m}-sk`}
                type="password"
                dir="ltr"
                autoComplete="off"
                value={drafts[m].secretKey}
                onChange={(e) => setDraft(m, 'secretKey', e.target.value)}
                data-testid={`vendor-${m}-secret`}
              />
              <SecretState set={config[m].secretKeySet} last4={config[m].secretKeyLast4} testId={`vendor-${m}-secret-state`} />
            </div>
            <div className="space-y-1.5">
              <Label htmlFor={`vendor-${m}-wh`}>{t('admin.vendors.webhookSecret')}</Label>
              <Input
                id={`vendor-${m}-wh`}
                type="password"
                dir="ltr"
                autoComplete="off"
                value={drafts[m].webhookSecret}
                onChange={(e) => setDraft(m, 'webhookSecret', e.target.value)}
                data-testid={`vendor-${m}-webhook`}
              />
              <SecretState set={config[m].webhookSecretSet} last4={config[m].webhookSecretLast4} testId={`vendor-${m}-webhook-state`} />
            </div>
          </section>
        ))}
      </div>
      <section className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm" aria-labelledby="vendor-features-title">
        <h3 id="vendor-features-title" className="mb-4 font-semibold">
          {t('admin.vendors.features')}
        </h3>
        <div className="grid gap-3 sm:grid-cols-2">
          {FEATURES.map((f) => (
            <div key={f} className="flex items-center justify-between gap-3 rounded-lg border border-slate-100 p-3">
              <Label htmlFor={`vendor-feature-${f}`}>{t(featureLabel[f])}</Label>
              <Switch id={`vendor-feature-${f}`} checked={features[f] ?? false} onCheckedChange={(on) => setFeatures((cur) => ({ ...cur, [f]: on }))} />
            </div>
          ))}
        </div>
      </section>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="outline" onClick={testConnection} disabled={testing} data-testid="vendor-test">
          {testing ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <PlugZap className="h-4 w-4" aria-hidden />}
          {t('admin.vendors.test')}
        </Button>
        <Button onClick={() => save.mutate()} disabled={save.isPending} data-testid="vendor-save">
          {save.isPending ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <Save className="h-4 w-4" aria-hidden />}
          {t('admin.vendors.save')}
        </Button>
      </div>
    </div>
  );
}
