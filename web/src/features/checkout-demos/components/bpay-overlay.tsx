import * as DialogPrimitive from '@radix-ui/react-dialog';
import { Loader2, X } from 'lucide-react';
import { useId, type ComponentProps, type ReactNode } from 'react';
import { useLanguage } from '../../../i18n';
import { cn } from '../../../lib/cn';

/**
 * The Customer Demo's overlay: the shared dialog's look (components/ui/dialog), with a close button that can be
 * held while the payment is in flight. The shared DialogContent always closes on its X; here, while `busy`, the X
 * stays in place but is visibly disabled (aria-disabled, faded, not-allowed cursor), points to the visible
 * "Payment in progress…" note that says why, and does nothing, as Escape does nothing.
 */
export function BpayOverlayContent({
  busy,
  header,
  className,
  children,
  onEscapeKeyDown,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & { busy: boolean; header: ReactNode }) {
  const { t } = useLanguage();
  const busyId = useId();
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-900/50" />
      <DialogPrimitive.Content
        className={cn(
          'fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl',
          className,
        )}
        onEscapeKeyDown={(e) => {
          if (busy) e.preventDefault();
          onEscapeKeyDown?.(e);
        }}
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
        <DialogPrimitive.Close
          className="absolute end-4 top-4 rounded-sm text-slate-500 hover:text-slate-900 aria-disabled:cursor-not-allowed aria-disabled:text-slate-300 aria-disabled:hover:text-slate-300"
          aria-label={t('common.close')}
          aria-disabled={busy || undefined}
          aria-describedby={busy ? busyId : undefined}
          // Radix skips its own close when the click's default is prevented.
          onClick={(e) => {
            if (busy) e.preventDefault();
          }}
          data-testid="bpay-overlay-close"
        >
          <X className="h-4 w-4" aria-hidden />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}
