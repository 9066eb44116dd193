import { Puzzle, X } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { isolateFor } from '../../../lib/card-display';
import { DEMO_ORDER } from '../flow';
import { BpayMark } from './demo-layout';

/** What bpay's browser extension shows over a merchant's checkout it recognised (spec §2, Extension-mode demo). */
export function ExtensionBanner({ onTry, onDismiss, disabled }: { onTry(): void; onDismiss(): void; disabled: boolean }) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  return (
    <div role="region" aria-label={t('demos.banner.label')} className="border-b-2 border-brand-500 bg-white shadow-sm" data-testid="extension-banner">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6">
        <span className="flex items-center gap-2">
          <BpayMark small />
          <Badge tone="brand" className="gap-1">
            <Puzzle className="h-3 w-3" aria-hidden />
            {t('demos.banner.mode')}
          </Badge>
        </span>
        <p className="min-w-0 flex-1 basis-56 text-sm text-slate-700">
          {t('demos.banner.body', { merchant: DEMO_ORDER.merchant, amount: iso(formatCents(DEMO_ORDER.amountCents)) })}
        </p>
        <span className="flex items-center gap-2">
          <Button size="sm" onClick={onTry} disabled={disabled} data-testid="banner-try-bpay">
            {t('demos.banner.try')}
          </Button>
          <Button variant="ghost" size="icon" onClick={onDismiss} aria-label={t('demos.banner.dismiss')} data-testid="extension-banner-dismiss">
            <X className="h-4 w-4" aria-hidden />
          </Button>
        </span>
      </div>
    </div>
  );
}
