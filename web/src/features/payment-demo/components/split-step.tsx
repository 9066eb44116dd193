import { ArrowLeft, Loader2 } from 'lucide-react';
import { Link } from 'wouter';
import { SplitConfigurator, type SplitEvaluation, type SplitValue } from '../../../components/split-configurator';
import { Badge } from '../../../components/ui/badge';
import { Button, buttonClasses } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { isolateFor } from '../../../lib/card-display';
import { formatCents } from '../../../lib/money';
import type { PaymentSources } from '../hooks/use-payment-sources';

/**
 * Split (spec §2): a Back button and the shared configurator, over the sample sources or the consumer's own. Loading
 * and a missing source list are announced by the page's live region, not by an alert mounted with its text.
 */
export function SplitStep({
  merchant,
  amountCents,
  src,
  value,
  onChange,
  onBack,
  onSubmit,
}: {
  merchant: string;
  amountCents: number;
  src: PaymentSources;
  value: SplitValue;
  onChange(v: SplitValue): void;
  onBack(): void;
  onSubmit(e: SplitEvaluation): void;
}) {
  const { t, dir } = useLanguage();
  const iso = isolateFor(dir);
  const back = (
    <Button variant="outline" onClick={onBack} data-testid="pd-split-back">
      <ArrowLeft className="h-4 w-4 rtl:-scale-x-100" aria-hidden />
      {t('paymentDemo.split.back')}
    </Button>
  );

  let body;
  if (src.sourcesLoading) {
    body = (
      <p className="flex items-center gap-2 py-6 text-sm text-slate-600">
        <Loader2 className="h-4 w-4 animate-spin" aria-hidden />
        {t('paymentDemo.split.loading')}
      </p>
    );
  } else if (src.sourcesError || src.sources.length === 0) {
    body = (
      <div className="space-y-4">
        <p className="rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900" data-testid="pd-no-sources">
          {src.sourcesError ? t('paymentDemo.split.loadFailed') : t('paymentDemo.split.noSources')}
        </p>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
          {back}
          <Link href="/" className={buttonClasses('primary')}>
            {t('paymentDemo.split.toDashboard')}
          </Link>
        </div>
      </div>
    );
  } else {
    body = (
      <SplitConfigurator
        sources={src.sources}
        value={value}
        onChange={onChange}
        amountCents={amountCents}
        feePercentage={src.feePercentage}
        checkAvailable={src.checkAvailable}
        pending={false}
        submitDisabled={src.feeLoading}
        submitLabel={t('paymentDemo.split.submit')}
        onSubmit={onSubmit}
        secondaryAction={back}
      />
    );
  }

  return (
    <Card data-testid="pd-split" className="mx-auto min-w-0 max-w-3xl">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle level={2} tabIndex={-1} data-step-heading data-testid="pd-step-heading" className="outline-none">
            {t('paymentDemo.split.title')}
          </CardTitle>
          <Badge tone={src.own ? 'blue' : 'yellow'}>{src.own ? t('paymentDemo.split.yourSources') : t('paymentDemo.split.sampleSources')}</Badge>
        </div>
        {/* A long merchant name wraps anywhere rather than widening the page. */}
        <CardDescription className="[overflow-wrap:anywhere]">
          {t('paymentDemo.split.description', { merchant, amount: iso(formatCents(amountCents)) })}
        </CardDescription>
      </CardHeader>
      <CardContent>{body}</CardContent>
    </Card>
  );
}
