import { ShieldCheck } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { isolateFor } from '../../../lib/card-display';
import { CODE_LENGTH, codeReady, sanitizeCode, type FlowShare } from '../flow';
import type { RunMode } from '../hooks/use-checkout-demo';

/**
 * The issuer's 3-D Secure check for one share (spec §4, §5): a one-time code of exactly six digits; letters and
 * anything past six are dropped as they are typed. In the sandbox and the simulation the check itself is simulated,
 * and the page says so.
 */
export function ThreeDsStep({
  share,
  index,
  count,
  mode,
  onVerify,
  onCancel,
}: {
  share: FlowShare;
  index: number;
  count: number;
  mode: RunMode;
  onVerify(): void;
  onCancel(): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const id = useId();
  const [code, setCode] = useState('');
  const ready = codeReady(code);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (ready) onVerify();
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4 rounded-lg border border-slate-200 p-4" data-testid="three-ds" data-index={index}>
      <div className="flex items-start gap-3">
        <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-brand-50 text-brand-700" aria-hidden>
          <ShieldCheck className="h-5 w-5" />
        </span>
        <div className="min-w-0 space-y-1">
          <h3 className="font-semibold text-slate-900">{t('demos.threeDs.title')}</h3>
          <p className="text-xs font-medium text-slate-500" data-testid="three-ds-position">
            {t('demos.threeDs.position', { n: iso(String(index + 1)), count: iso(String(count)) })}
          </p>
          <p className="text-sm text-slate-600" data-testid="three-ds-source">
            {t('demos.threeDs.body', {
              amount: iso(formatCents(share.cents)),
              source: `${share.name} ${iso(`•••• ${share.last4}`)}`,
            })}
          </p>
        </div>
      </div>
      <div className="space-y-1.5">
        <Label htmlFor={`${id}-code`}>{t('demos.threeDs.label')}</Label>
        <Input
          id={`${id}-code`}
          value={code}
          onChange={(e) => setCode(sanitizeCode(e.target.value))}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={CODE_LENGTH}
          dir="ltr"
          className="text-center font-mono text-lg tracking-[0.5em]"
          aria-describedby={`${id}-hint`}
          autoFocus
          data-testid="three-ds-code"
        />
        <p id={`${id}-hint`} className="text-xs text-slate-500" data-testid="three-ds-hint">
          {mode === 'sandbox' ? t('demos.threeDs.sandboxHint') : t('demos.threeDs.demoHint')}
        </p>
      </div>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="ghost" onClick={onCancel} data-testid="three-ds-cancel">
          {t('common.cancel')}
        </Button>
        <Button type="submit" disabled={!ready} data-testid="three-ds-submit">
          {t('demos.threeDs.submit')}
        </Button>
      </div>
    </form>
  );
}
