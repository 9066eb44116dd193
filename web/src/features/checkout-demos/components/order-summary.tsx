import { Laptop } from 'lucide-react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { useLanguage } from '../../../i18n';
import { formatCents } from '../../../lib/money';
import { DEMO_ORDER } from '../flow';

/** TechStore's order (spec §2, §9): one item, tax $0.00, free shipping, the total the merchant asks for. */
export function OrderSummary() {
  const { t } = useLanguage();
  const total = DEMO_ORDER.amountCents + DEMO_ORDER.taxCents + DEMO_ORDER.shippingCents;
  return (
    <Card data-testid="demo-order-summary">
      <CardHeader className="pb-3">
        <CardTitle className="text-base">{t('demos.order.title')}</CardTitle>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="flex items-center gap-3">
          <span className="flex h-12 w-12 shrink-0 items-center justify-center rounded-lg bg-slate-100 text-slate-600" aria-hidden>
            <Laptop className="h-6 w-6" />
          </span>
          <div className="min-w-0 flex-1">
            <p className="font-medium text-slate-900" data-testid="demo-order-item">
              {t('demos.order.item')}
            </p>
            <p className="text-xs text-slate-500">{t('demos.order.quantity')}</p>
          </div>
          <span className="tabular-nums font-medium" dir="ltr">
            {formatCents(DEMO_ORDER.amountCents)}
          </span>
        </div>
        <dl className="space-y-1.5 border-t border-slate-200 pt-3 text-sm">
          <div className="flex justify-between gap-4">
            <dt className="text-slate-600">{t('demos.order.subtotal')}</dt>
            <dd className="tabular-nums" dir="ltr">
              {formatCents(DEMO_ORDER.amountCents)}
            </dd>
          </div>
          <div className="flex justify-between gap-4">
            <dt className="text-slate-600">{t('demos.order.tax')}</dt>
            <dd className="tabular-nums" dir="ltr" data-testid="demo-order-tax">
              {formatCents(DEMO_ORDER.taxCents)}
            </dd>
          </div>
          <div className="flex justify-between gap-4">
            <dt className="text-slate-600">{t('demos.order.shipping')}</dt>
            <dd className="font-medium text-green-700" data-testid="demo-order-shipping">
              {t('demos.order.free')}
            </dd>
          </div>
          <div className="flex justify-between gap-4 border-t border-slate-200 pt-1.5 text-base font-semibold">
            <dt>{t('demos.order.total')}</dt>
            <dd className="tabular-nums" dir="ltr" data-testid="demo-order-total">
              {formatCents(total)}
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}
