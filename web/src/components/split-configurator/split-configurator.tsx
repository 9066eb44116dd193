import { isolateFor } from '../../lib/card-display';
import { Loader2, Plus, Trash2 } from 'lucide-react';
import { useId, type ReactNode } from 'react';
import { useLanguage } from '../../i18n';
import { cn } from '../../lib/cn';
import { formatCents, parseCents } from '../../lib/money';
import { Button } from '../ui/button';
import { Input } from '../ui/input';
import {
  addRow,
  canAddRow,
  canRemoveRow,
  canSubmit,
  evaluateSplit,
  removeRow,
  selectableSources,
  setMode,
  setRowFixedAmount,
  setRowPercentage,
  setRowSource,
  type SplitError,
  type SplitEvaluation,
  type SplitMode,
  type SplitSourceOption,
  type SplitValue,
} from './split-rules';

/** Elements whose test id a host may rename (the Create bcard dialog keeps its own ids). */
export type SplitTestIdSlot = 'root' | 'error' | 'fundsError' | 'fee' | 'total' | 'submit';

const DEFAULT_TEST_IDS: Record<SplitTestIdSlot, string> = {
  root: 'split-configurator',
  error: 'split-error',
  fundsError: 'split-funds-error',
  fee: 'split-fee',
  total: 'split-total',
  submit: 'split-submit',
};

export interface SplitConfiguratorProps {
  sources: readonly SplitSourceOption[];
  value: SplitValue;
  onChange(next: SplitValue): void;
  amountCents: number;
  feePercentage: number;
  /** Each source's known `available` must cover its share (signed-out samples; the Create bcard dialog). */
  checkAvailable: boolean;
  /** A payment is in flight: the pay button is disabled and shows a spinner. */
  pending: boolean;
  submitLabel: string;
  onSubmit(evaluation: SplitEvaluation): void;
  /** Rendered beside the pay button (e.g. a Back button). */
  secondaryAction?: ReactNode;
  /** 'demo' = the demo spec's error texts (default); 'bcard' = the Create bcard dialog's own texts. */
  messages?: 'demo' | 'bcard';
  /** Disables the pay button for a reason the host knows (demo mode, an invalid amount). */
  submitDisabled?: boolean;
  /** Rendered between the summary and the buttons (e.g. a demo-mode note). */
  footnote?: ReactNode;
  /** Renames test ids (defaults split-configurator, split-error, split-funds-error, split-fee, split-total, split-submit). */
  testIds?: Partial<Record<SplitTestIdSlot, string>>;
}

/** Keeps "$1,234.56" or "•••• 4242" in one left-to-right piece inside right-to-left text (Unicode isolates). */
const isolate = (dir: 'ltr' | 'rtl', text: string) => isolateFor(dir)(text);

const selectClass =
  'h-10 w-full min-w-0 rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 disabled:opacity-50';

/**
 * The shared split configurator (spec §2): percentage or fixed-amount mode, one row per funding source, the fee and
 * total, the first broken rule as an alert, and the pay button. Controlled: the host owns the SplitValue; every
 * change goes through the pure helpers of split-rules.ts.
 */
export function SplitConfigurator({
  sources,
  value,
  onChange,
  amountCents,
  feePercentage,
  checkAvailable,
  pending,
  submitLabel,
  onSubmit,
  secondaryAction,
  messages = 'demo',
  submitDisabled = false,
  footnote,
  testIds,
}: SplitConfiguratorProps) {
  const { t, dir } = useLanguage();
  const ids = { ...DEFAULT_TEST_IDS, ...testIds };
  const baseId = useId();
  const evaluation = evaluateSplit(value, sources, amountCents, feePercentage, { checkAvailable });
  const byId = new Map(sources.map((s) => [s.id, s]));
  const evaluatedRows = new Map(evaluation.rows.map((r) => [r.key, r]));
  const money = (cents: number) => isolate(dir, formatCents(cents));
  // The last four digits first: a narrow select (390 px) then cuts the end of the name, never the digits that tell
  // two cards of the same name apart, in either direction.
  const label = (s: SplitSourceOption) => `${isolate(dir, `•••• ${s.last4}`)} ${s.name}`;
  const disabled = !canSubmit(evaluation) || pending || submitDisabled;
  const leftCents = evaluation.totalCents - evaluation.fixedTotalCents;

  const modeButton = (mode: SplitMode, text: string) => {
    const active = value.mode === mode;
    return (
      <button
        type="button"
        aria-pressed={active}
        data-testid={`split-mode-${mode}`}
        onClick={() => onChange(setMode(value, mode))}
        className={cn(
          'h-9 flex-1 rounded-md px-3 text-sm font-medium transition-colors',
          active ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900',
        )}
      >
        {text}
      </button>
    );
  };

  return (
    <div className="space-y-4" data-testid={ids.root} data-mode={value.mode}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="text-sm font-medium text-slate-700" id={`${baseId}-legend`}>
          {t('split.legend')}
        </span>
        <div
          role="group"
          aria-label={t('split.mode.label')}
          className="flex w-full gap-1 rounded-lg bg-slate-100 p-1 sm:w-auto"
        >
          {modeButton('percentage', t('split.mode.percentage'))}
          {modeButton('fixed', t('split.mode.fixed'))}
        </div>
      </div>

      <ul className="space-y-3" aria-labelledby={`${baseId}-legend`}>
        {value.rows.map((row, i) => {
          const source = byId.get(row.sourceId);
          if (!source) return null;
          const result = evaluatedRows.get(row.key);
          const short = result?.short ?? false;
          const inputId = `${baseId}-${row.key}-value`;
          const options = selectableSources(value, sources, row.key);
          return (
            <li key={row.key} className="rounded-lg border border-slate-200 p-3" data-testid="split-row">
              <div className="flex items-start gap-2">
                <div className="min-w-0 flex-1">
                  <select
                    className={selectClass}
                    value={row.sourceId}
                    aria-label={t('split.row.source', { n: i + 1 })}
                    data-testid="split-source-select"
                    disabled={pending}
                    onChange={(e) => onChange(setRowSource(value, row.key, e.target.value))}
                  >
                    {options.map((s) => (
                      <option key={s.id} value={s.id}>
                        {label(s)}
                      </option>
                    ))}
                  </select>
                  <p className="mt-1 text-xs text-slate-500">
                    {source.available === null
                      ? t('split.row.availableUnknown')
                      : t('split.row.available', { amount: money(parseCents(source.available) ?? 0) })}
                  </p>
                </div>
                {canRemoveRow(value) && (
                  <Button
                    variant="ghost"
                    size="icon"
                    className="shrink-0"
                    aria-label={t('split.row.remove', { name: source.name })}
                    data-testid="split-remove"
                    disabled={pending}
                    onClick={() => onChange(removeRow(value, row.key))}
                  >
                    <Trash2 className="h-4 w-4" aria-hidden />
                  </Button>
                )}
              </div>
              <div className="mt-2 flex items-center gap-3">
                {/* Left-to-right as a whole, so the $ / % sign and the input's padding sit on the same side. */}
                <div className="relative w-32 shrink-0" dir="ltr">
                  {value.mode === 'percentage' ? (
                    <>
                      <Input
                        id={inputId}
                        data-testid="split-percentage-input"
                        type="number"
                        min={0}
                        max={100}
                        step={0.1}
                        inputMode="decimal"
                        className="pe-7 text-end"
                        value={row.percentage}
                        disabled={pending}
                        aria-label={t('split.row.percentage', { name: source.name })}
                        aria-invalid={evaluation.error?.code === 'percentage_total' || short}
                        onChange={(e) => onChange(setRowPercentage(value, row.key, e.target.value))}
                      />
                      <span className="pointer-events-none absolute inset-y-0 end-3 flex items-center text-sm text-slate-400">
                        %
                      </span>
                    </>
                  ) : (
                    <>
                      <span className="pointer-events-none absolute inset-y-0 start-3 flex items-center text-sm text-slate-400">
                        $
                      </span>
                      <Input
                        id={inputId}
                        data-testid="split-fixed-input"
                        type="number"
                        min={0}
                        step={0.01}
                        inputMode="decimal"
                        className="ps-7 text-end"
                        placeholder="0.00"
                        value={row.fixedAmount}
                        disabled={pending}
                        aria-label={t('split.row.fixed', { name: source.name })}
                        aria-invalid={
                          evaluation.error?.code === 'fixed_total' ||
                          (evaluation.error?.code === 'fixed_decimals' && evaluation.error.rowKeys.includes(row.key)) ||
                          short
                        }
                        onChange={(e) => onChange(setRowFixedAmount(value, row.key, e.target.value))}
                      />
                    </>
                  )}
                </div>
                <p
                  className={cn(
                    'min-w-0 flex-1 text-end text-sm font-semibold tabular-nums',
                    short ? 'text-red-600' : 'text-slate-900',
                  )}
                  dir="ltr"
                  data-testid="split-row-amount"
                >
                  {formatCents(result?.cents ?? 0)}
                </p>
              </div>
            </li>
          );
        })}
      </ul>

      {canAddRow(value, sources) && (
        <Button
          variant="outline"
          className="w-full"
          data-testid="split-add"
          disabled={pending}
          onClick={() => onChange(addRow(value, sources))}
        >
          <Plus className="h-4 w-4" aria-hidden />
          {t('split.add')}
        </Button>
      )}

      <dl className="space-y-1.5 rounded-lg bg-slate-50 p-4 text-sm" data-testid="split-summary">
        <div className="flex justify-between gap-4">
          <dt className="text-slate-600">{t('split.summary.amount')}</dt>
          <dd className="tabular-nums" dir="ltr">
            {formatCents(evaluation.amountCents)}
          </dd>
        </div>
        <div className="flex justify-between gap-4">
          <dt className="text-slate-600">{t('split.summary.fee', { fee: feePercentage })}</dt>
          <dd className="tabular-nums" dir="ltr" data-testid={ids.fee}>
            {formatCents(evaluation.feeCents)}
          </dd>
        </div>
        <div className="flex justify-between gap-4 border-t border-slate-200 pt-1.5 font-semibold">
          <dt>{t('split.summary.total')}</dt>
          <dd className="tabular-nums" dir="ltr" data-testid={ids.total}>
            {formatCents(evaluation.totalCents)}
          </dd>
        </div>
        {value.mode === 'percentage' ? (
          <div className="flex justify-between gap-4 text-xs text-slate-500">
            <dt>{t('split.summary.percentTotal')}</dt>
            <dd className="tabular-nums" dir="ltr" data-testid="split-percent-total">
              {t('split.percent', { n: evaluation.percentTotal })}
            </dd>
          </div>
        ) : (
          <>
            <div className="flex justify-between gap-4 text-xs text-slate-500">
              <dt>{t('split.summary.fixedTotal')}</dt>
              <dd className="tabular-nums" dir="ltr" data-testid="split-fixed-total">
                {formatCents(evaluation.fixedTotalCents)}
              </dd>
            </div>
            {leftCents !== 0 && (
              <div className="flex justify-between gap-4 text-xs text-slate-500">
                <dt>{t('split.summary.left')}</dt>
                <dd className="tabular-nums" dir="ltr">
                  {leftCents < 0 ? `−${formatCents(-leftCents)}` : formatCents(leftCents)}
                </dd>
              </div>
            )}
          </>
        )}
      </dl>

      {/*
       * Always mounted and polite: the rule being broken is read out when it changes, without interrupting every
       * keystroke the way an alert that re-renders with each typed digit would.
       */}
      <div aria-live="polite" aria-atomic="true">
        {evaluation.error && (
          <SplitErrorMessage
            error={evaluation.error}
            mode={value.mode}
            messages={messages}
            money={money}
            dir={dir}
            testId={ids.error}
            fundsTestId={ids.fundsError}
          />
        )}
      </div>

      {footnote}

      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
        {secondaryAction ?? <span className="hidden sm:block" />}
        <Button
          data-testid={ids.submit}
          disabled={disabled}
          aria-busy={pending}
          onClick={() => {
            // Re-checked here: a click can land before React re-renders the disabled button.
            if (disabled) return;
            onSubmit(evaluation);
          }}
        >
          {pending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {submitLabel}
        </Button>
      </div>
    </div>
  );
}

function SplitErrorMessage({
  error,
  mode,
  messages,
  money,
  dir,
  testId,
  fundsTestId,
}: {
  error: SplitError;
  mode: SplitMode;
  messages: 'demo' | 'bcard';
  money(cents: number): string;
  dir: 'ltr' | 'rtl';
  testId: string;
  fundsTestId: string;
}) {
  const { t } = useLanguage();
  let body: ReactNode;
  switch (error.code) {
    case 'no_splits':
      // The consumer spec's funding step knows one percentage text: an all-zero split does not add up to 100 %.
      body =
        messages === 'bcard' && mode === 'percentage' ? (
          <p className="font-medium">{t('split.bcard.percentageTotal')}</p>
        ) : (
          <>
            <p className="font-medium">{t('split.error.noSplitsTitle')}</p>
            <p>{t('split.error.noSplits')}</p>
          </>
        );
      break;
    case 'percentage_total':
      body = (
        <p className="font-medium">
          {messages === 'bcard'
            ? t('split.bcard.percentageTotal')
            : t('split.error.percentageTotal', { total: isolate(dir, String(error.totalPercent)) })}
        </p>
      );
      break;
    case 'fixed_decimals':
      body = <p className="font-medium">{t('split.error.fixedDecimals')}</p>;
      break;
    case 'fixed_total':
      body = (
        <p className="font-medium">
          {t('split.error.fixedTotal', { total: money(error.totalCents), required: money(error.requiredCents) })}
        </p>
      );
      break;
    case 'insufficient':
      body = (
        <div data-testid={fundsTestId}>
          {messages === 'bcard' ? (
            <p className="font-medium">{t('split.bcard.insufficient')}</p>
          ) : (
            <>
              <p className="font-medium">{t('split.error.insufficientTitle')}</p>
              <p>{t('split.error.insufficient', { need: money(error.requiredCents), have: money(error.availableCents) })}</p>
            </>
          )}
          <ul className="mt-1 list-disc space-y-0.5 ps-5">
            {error.sources.map((s) => (
              <li key={s.sourceId}>
                {t(messages === 'bcard' ? 'split.bcard.insufficientLine' : 'split.error.insufficientLine', {
                  name: `${s.name} ${isolate(dir, `•••• ${s.last4}`)}`,
                  needs: money(s.requiredCents),
                  has: money(s.availableCents),
                })}
              </li>
            ))}
          </ul>
        </div>
      );
      break;
  }
  return (
    <div className="space-y-1 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-700" data-testid={testId}>
      {body}
    </div>
  );
}
