import { Loader2 } from 'lucide-react';
import { useId, type ComponentProps, type ReactNode } from 'react';
import { DialogContent } from '../../../components/ui/dialog';
import { useLanguage } from '../../../i18n';

/**
 * The Customer Demo's overlay: the shared dialog, held open while the payment is in flight. While `busy` its X stays
 * in place but is visibly disabled, points to the visible "Payment in progress…" note that says why, and does
 * nothing, as Escape does nothing.
 */
export function BpayOverlayContent({
  busy,
  header,
  children,
  ...props
}: ComponentProps<typeof DialogContent> & { busy: boolean; header: ReactNode }) {
  const { t } = useLanguage();
  const busyId = useId();
  return (
    <DialogContent
      closeLabel={t('common.close')}
      closeDisabled={busy}
      closeDescribedBy={busyId}
      closeTestId="bpay-overlay-close"
      aria-busy={busy || undefined}
      {...props}
    >
      {header}
      {busy && (
        <p
          id={busyId}
          className="mb-4 flex items-start gap-2 rounded-lg border border-brand-100 bg-brand-50 px-3 py-2 text-sm text-brand-700"
          data-testid="bpay-overlay-busy"
        >
          <Loader2 className="mt-0.5 h-4 w-4 shrink-0 animate-spin" aria-hidden />
          <span>{t('demos.overlay.busy')}</span>
        </p>
      )}
      {children}
    </DialogContent>
  );
}
