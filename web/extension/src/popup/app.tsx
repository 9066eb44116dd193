import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  createBcardFundingSources,
  DEFAULT_FEE_PERCENTAGE,
  SplitConfigurator,
  type SplitEvaluation,
  type SplitValue,
} from '../../../src/components/split-configurator';
import { Button } from '../../../src/components/ui/button';
import { Input } from '../../../src/components/ui/input';
import { CollectProgressPanel } from '../../../src/features/bcards/components/collect-progress-panel';
import { checkAmountInput, type AmountCheck } from '../../../src/features/bcards/split';
import { useLanguage } from '../../../src/i18n';
import { isolateFor } from '../../../src/lib/card-display';
import { centsToDecimal, formatMoney } from '../../../src/lib/money';
import { minorDigits } from '../detect/amount';
import { TOKEN_INVALID, type CollectionProgress, type CreateExtensionBcardBody, type FundingSource } from '../lib/api';
import { connectUrl } from '../lib/config';
import { formatTotal } from '../lib/format';
import { tx, type ExtKey } from '../lib/messages';
import type { Attempt, Connection, PageInfo, PlannedShareInfo, Result, TabState } from '../lib/protocol';
import { ask, askResult, pageInfo, targetTab } from './bg';
import { defaultPreset, defaultsAddUp, evenPreset, oneCardPreset, splitOptions } from './presets';

/*
 * The popup: the site, the detected total (editable), the funding sources and presets, the web app's split
 * configurator (same component, same rules), then the collection's real per-share progress and the result. Every
 * call goes through the background (the only part holding the token); the popup may be closed at any time, so the
 * attempt lives in the background and a popup opened again picks it up.
 */

/** How often the per-share progress is asked for while the bcard is being made. */
const PROGRESS_POLL_MS = 300;

const amountText: Record<Exclude<AmountCheck, { ok: true }>['reason'], ExtKey> = {
  invalid: 'ext.popup.amount.invalid',
  decimals: 'ext.popup.amount.decimals',
  minimum: 'ext.popup.amount.minimum',
  maximum: 'ext.popup.amount.maximum',
};

interface Boot {
  tabId: number | null;
  connection: Connection;
  tab: TabState | null;
  page: PageInfo | null;
}

export function App() {
  const { lang } = useLanguage();
  const [boot, setBoot] = useState<Boot | null>(null);
  const t = useCallback((key: ExtKey, vars?: Record<string, string | number>) => tx(lang, key, vars), [lang]);
  // A call met a revoked or expired token: the background has forgotten it; show why and how to connect again.
  const onDisconnected = useCallback(() => {
    void ask<Connection>({ type: 'connection' }).then((connection) => setBoot((b) => (b ? { ...b, connection } : b)));
  }, []);

  useEffect(() => {
    void (async () => {
      const tabId = await targetTab();
      const [connection, tab, page] = await Promise.all([
        ask<Connection>({ type: 'connection', verify: true }),
        tabId === null ? null : ask<TabState>({ type: 'tab-state', tabId }),
        tabId === null ? null : pageInfo(tabId),
      ]);
      setBoot({ tabId, connection, tab, page });
    })();
  }, []);

  if (!boot) return <p className="p-4 text-sm text-slate-600">{t('ext.popup.loading')}</p>;

  const url = boot.page?.url ?? boot.tab?.url ?? null;
  const host = url ? safeHost(url) : null;
  return (
    <main className="space-y-4 p-4" data-testid="ext-popup">
      <header className="flex items-center justify-between gap-2">
        <h1 className="flex items-center gap-2 text-base font-semibold">
          <span aria-hidden className="grid h-7 w-7 place-items-center rounded-lg bg-brand-600 font-bold text-white">
            b
          </span>
          {t('ext.popup.title')}
        </h1>
        <button type="button" className="text-sm text-brand-600 hover:underline" onClick={() => void chrome.runtime.openOptionsPage()}>
          {t('ext.popup.settings')}
        </button>
      </header>
      {host && (
        <p className="truncate text-sm text-slate-600" data-testid="ext-site">
          {t('ext.popup.site')}: <span className="font-medium text-slate-900" dir="ltr">{host}</span>
        </p>
      )}
      {!boot.connection.paired ? (
        <ConnectView connection={boot.connection} t={t} />
      ) : boot.tabId === null || !url || !host ? (
        <p className="rounded-lg border border-slate-200 bg-white p-3 text-sm" data-testid="ext-no-page">
          {t('ext.popup.noPage')}
        </p>
      ) : (
        <>
          <p className="text-xs text-slate-500" data-testid="ext-connected">
            {t('ext.popup.connectedAs', { label: boot.connection.paired.label })}
          </p>
          <SplitView
            tabId={boot.tabId}
            url={url}
            host={host}
            page={boot.page}
            tab={boot.tab}
            feePercentage={boot.connection.feePercentage ?? DEFAULT_FEE_PERCENTAGE}
            t={t}
            onDisconnected={onDisconnected}
          />
        </>
      )}
    </main>
  );
}

type T = (key: ExtKey, vars?: Record<string, string | number>) => string;

function safeHost(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

function ConnectView({ connection, t }: { connection: Connection; t: T }) {
  return (
    <section className="space-y-3">
      {connection.disconnected && (
        <p role="alert" className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="ext-disconnected">
          {t('ext.popup.disconnected')}
        </p>
      )}
      <p className="text-sm text-slate-700">{t('ext.popup.connectIntro')}</p>
      <Button
        className="w-full"
        data-testid="ext-connect"
        onClick={() => {
          void chrome.tabs.create({ url: connectUrl(connection.origin) }).then(() => window.close());
        }}
      >
        {connection.disconnected ? t('ext.popup.connectAgain') : t('ext.popup.connect')}
      </Button>
    </section>
  );
}

/** The total the page shows as a decimal string for the amount field, when it is in dollars (bcards are). */
function initialAmount(total: PageInfo['total'] | undefined): string {
  if (!total || (total.currency !== null && total.currency !== 'usd') || minorDigits(total.currency) !== 2) return '';
  return centsToDecimal(total.cents);
}

function SplitView({
  tabId,
  url,
  host,
  page,
  tab,
  feePercentage,
  t,
  onDisconnected,
}: {
  tabId: number;
  url: string;
  host: string;
  page: PageInfo | null;
  tab: TabState | null;
  /** The plan's fee from bpay (GET /api/extension/me), the web's default until bpay has said. */
  feePercentage: number;
  t: T;
  onDisconnected(): void;
}) {
  const { dir, lang } = useLanguage();
  const iso = isolateFor(dir);
  const detected = page?.total ?? tab?.total ?? null;
  const [amount, setAmount] = useState(() => initialAmount(detected));
  const [amountTouched, setAmountTouched] = useState(false);
  const [sources, setSources] = useState<Result<FundingSource[]> | null>(null);
  const [split, setSplit] = useState<SplitValue | null>(null);
  const [attempt, setAttempt] = useState<Attempt | null>(tab?.attempt ?? null);
  const [pending, setPending] = useState(false);
  const [progress, setProgress] = useState<CollectionProgress | undefined>(undefined);
  const [filling, setFilling] = useState(false);
  const busy = useRef(false);

  const loadSources = useCallback(() => {
    setSources(null);
    void askResult<FundingSource[]>({ type: 'funding-sources' }).then((answer) => {
      if (!answer.ok && answer.error.code === TOKEN_INVALID) onDisconnected();
      else setSources(answer);
    });
  }, [onDisconnected]);
  useEffect(loadSources, [loadSources]);

  const options = useMemo(() => (sources?.ok ? splitOptions(sources.value) : []), [sources]);
  const splitValue = split ?? (defaultsAddUp(options) ? defaultPreset(options) : evenPreset(options));
  const amountCheck = checkAmountInput(amount);
  const amountCents = amountCheck.ok ? amountCheck.cents : 0;

  const send = useCallback(
    async (body: CreateExtensionBcardBody, key: string, planned: PlannedShareInfo[]) => {
      if (busy.current) return;
      busy.current = true;
      setPending(true);
      setProgress(undefined);
      setAttempt({ key, body: JSON.stringify(body), planned, state: 'pending', answered: false, bcard: null, error: null, fill: null });
      const answer = await ask<Attempt | undefined>({ type: 'create-bcard', tabId, key, body, planned }).catch(() => undefined);
      setAttempt(
        answer ?? {
          key,
          body: JSON.stringify(body),
          planned,
          state: 'failed',
          answered: false,
          bcard: null,
          error: { status: 0, code: null, message: 'No answer from the extension.' },
          fill: null,
        },
      );
      if (answer?.error?.code === TOKEN_INVALID) onDisconnected();
      // The final statuses (a declined share, the released holds) once the request has answered.
      const last = await askResult<CollectionProgress>({ type: 'progress', key });
      if (last.ok) setProgress(last.value);
      setPending(false);
      busy.current = false;
    },
    [tabId, onDisconnected],
  );

  // A popup opened again while its attempt is still on its way: join it (the same key; the background dedupes).
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current || !attempt || attempt.state !== 'pending') return;
    resumed.current = true;
    const body = JSON.parse(attempt.body) as CreateExtensionBcardBody;
    void send(body, attempt.key, attempt.planned);
  }, [attempt, send]);

  // The real per-share progress, every PROGRESS_POLL_MS while the request is open.
  const key = attempt?.key;
  useEffect(() => {
    if (!pending || !key) return;
    let stopped = false;
    const poll = async () => {
      const answer = await askResult<CollectionProgress>({ type: 'progress', key });
      if (!stopped && answer.ok) setProgress(answer.value);
    };
    const timer = setInterval(() => void poll(), PROGRESS_POLL_MS);
    void poll();
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [pending, key]);

  function onCreate(evaluation: SplitEvaluation) {
    if (amountCents <= 0 || !evaluation.valid || pending) return;
    const body: CreateExtensionBcardBody = {
      name: host.slice(0, 100),
      balance: centsToDecimal(amountCents),
      fundingSources: createBcardFundingSources(evaluation),
      site: url,
    };
    const json = JSON.stringify(body);
    // The same body after an attempt that got no answer is the same attempt: same key, so never a second bcard.
    const sameAttempt = attempt && !attempt.answered && attempt.state !== 'created' && attempt.body === json;
    const planned = evaluation.shares.map((s) => ({ sourceId: s.sourceId, name: s.name, last4: s.last4, cents: s.cents }));
    void send(body, sameAttempt ? attempt.key : crypto.randomUUID(), planned);
  }

  async function fillAgain(bcardId: string) {
    setFilling(true);
    const outcome = await askResult<{ filled: number; frames: number }>({ type: 'fill', tabId, bcardId });
    setAttempt((a) => (a ? { ...a, fill: outcome } : a));
    setFilling(false);
  }

  const created = attempt?.state === 'created' ? attempt : null;
  const bcard = created?.bcard;
  if (created && bcard) {
    const fill = created.fill;
    return (
      <section className="space-y-3" data-testid="ext-result">
        {attempt && <CollectProgressPanel planned={attempt.planned} answer={progress} pending={false} />}
        <p className="rounded-lg border border-green-200 bg-green-50 p-3 text-sm font-medium text-green-900" data-testid="ext-result-card">
          {t('ext.popup.result.card', { last4: iso(`•••• ${bcard.last4}`), amount: iso(formatMoney(bcard.balance)) })}
        </p>
        {filling ? (
          <p className="text-sm text-slate-700">{t('ext.popup.filling')}</p>
        ) : fill?.ok && fill.value.filled > 0 ? (
          <p className="text-sm text-slate-700" data-testid="ext-filled" role="status">
            {t('ext.popup.result.filled')}
          </p>
        ) : (
          <>
            <p role="alert" className="text-sm text-amber-800" data-testid="ext-fill-problem">
              {fill && !fill.ok
                ? t('ext.popup.result.fillFailed', { message: fill.error.code === 'site_changed' ? t('ext.popup.result.siteChanged') : fill.error.message })
                : t('ext.popup.result.noFields')}
            </p>
            <Button variant="outline" className="w-full" data-testid="ext-fill-again" onClick={() => void fillAgain(bcard.id)}>
              {t('ext.popup.fillAgain')}
            </Button>
          </>
        )}
      </section>
    );
  }

  const total = detected;
  const otherCurrency = total && total.currency !== null && total.currency !== 'usd';
  return (
    <section className="space-y-4">
      {!page?.isCheckout && !total && <p className="text-sm text-slate-600">{page ? t('ext.popup.notDetected') : t('ext.popup.reload')}</p>}
      <div className="space-y-1.5">
        <label htmlFor="ext-amount" className="text-sm font-medium">
          {t('ext.popup.total')}
        </label>
        <div className="relative" dir="ltr">
          <span className="pointer-events-none absolute inset-y-0 start-3 flex items-center text-sm text-slate-400">$</span>
          <Input
            id="ext-amount"
            data-testid="ext-amount"
            inputMode="decimal"
            dir="ltr"
            className="ps-7"
            value={amount}
            disabled={pending}
            aria-invalid={amountTouched && !amountCheck.ok}
            aria-describedby="ext-amount-note"
            onChange={(e) => setAmount(e.target.value)}
            onBlur={() => setAmountTouched(true)}
          />
        </div>
        <p id="ext-amount-note" className={amountTouched && !amountCheck.ok ? 'text-xs text-red-600' : 'text-xs text-slate-500'} role={amountTouched && !amountCheck.ok ? 'alert' : undefined}>
          {amountTouched && !amountCheck.ok
            ? t(amountText[amountCheck.reason])
            : otherCurrency
              ? t('ext.popup.currency', { currency: iso(formatTotal(total, lang)) })
              : t('ext.popup.totalHint')}
        </p>
      </div>

      {sources === null ? (
        <p className="text-sm text-slate-600">{t('ext.popup.sources.loading')}</p>
      ) : !sources.ok ? (
        <ErrorBox message={sources.error.status === 0 ? t('ext.popup.network') : sources.error.message} retry={loadSources} t={t} />
      ) : options.length === 0 ? (
        <p role="alert" className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="ext-no-sources">
          {t('ext.popup.sources.none')}
        </p>
      ) : (
        <>
          <div className="space-y-1.5">
            <p className="text-sm font-medium">{t('ext.popup.presets')}</p>
            <div className="flex flex-wrap gap-1.5" data-testid="ext-presets">
              <PresetButton onClick={() => setSplit(defaultPreset(options))} disabled={pending} testId="ext-preset-default">
                {t('ext.popup.preset.default')}
              </PresetButton>
              <PresetButton onClick={() => setSplit(evenPreset(options))} disabled={pending} testId="ext-preset-even">
                {t('ext.popup.preset.even')}
              </PresetButton>
              {options.map((o) => (
                <PresetButton key={o.id} onClick={() => setSplit(oneCardPreset(options, o.id))} disabled={pending} testId={`ext-preset-one-${o.id}`}>
                  {t('ext.popup.preset.one', { name: `${o.name} ${iso(`•••• ${o.last4}`)}` })}
                </PresetButton>
              ))}
            </div>
          </div>
          <SplitConfigurator
            sources={options}
            value={splitValue}
            onChange={setSplit}
            amountCents={amountCents}
            // The plan's own fee, as bpay answered it when the popup opened (the server applies it either way).
            feePercentage={feePercentage}
            checkAvailable
            pending={pending}
            submitLabel={pending ? t('ext.popup.submitting') : t('ext.popup.submit')}
            onSubmit={onCreate}
            submitDisabled={amountCents <= 0}
            messages="bcard"
            footnote={
              <>
                {attempt && (pending || progress) && <CollectProgressPanel planned={attempt.planned} answer={progress} pending={pending} />}
                {attempt?.state === 'failed' && attempt.error && (
                  <div role="alert" className="space-y-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="ext-create-error">
                    <p>{attempt.error.status === 0 ? t('ext.popup.network') : t('ext.popup.failed', { message: attempt.error.message })}</p>
                    {!attempt.answered && (
                      // No answer came back: resend this very attempt (same body, same Idempotency-Key).
                      <Button variant="outline" data-testid="ext-create-retry" onClick={() => void send(JSON.parse(attempt.body) as CreateExtensionBcardBody, attempt.key, attempt.planned)}>
                        {t('ext.popup.retry')}
                      </Button>
                    )}
                  </div>
                )}
              </>
            }
          />
        </>
      )}
    </section>
  );
}

function PresetButton({ children, onClick, disabled, testId }: { children: ReactNode; onClick(): void; disabled: boolean; testId: string }) {
  return (
    <button
      type="button"
      className="rounded-full border border-slate-300 bg-white px-3 py-1 text-xs font-medium text-slate-800 hover:bg-slate-50 disabled:opacity-50"
      onClick={onClick}
      disabled={disabled}
      data-testid={testId}
    >
      {children}
    </button>
  );
}

function ErrorBox({ message, retry, t }: { message: string; retry(): void; t: T }) {
  return (
    <div role="alert" className="space-y-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-testid="ext-error">
      <p>{message}</p>
      <Button variant="outline" onClick={retry} data-testid="ext-retry">
        {t('ext.popup.retry')}
      </Button>
    </div>
  );
}
