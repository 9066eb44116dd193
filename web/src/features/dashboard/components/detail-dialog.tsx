import type { ReactNode } from 'react';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { useLanguage } from '../../../i18n';
import { useReturnFocus } from '../../../lib/use-return-focus';

/*
 * The frame of a dialog that shows one row of a list in full (a transaction, a plan payment's receipt): open while
 * there is a row, closed by the caller, and focus goes back to the View button that opened it (it has no Radix Trigger).
 */
export function DetailDialog({
  open,
  onClose,
  testId,
  title,
  description,
  children,
}: {
  open: boolean;
  onClose(): void;
  testId: string;
  title: ReactNode;
  description: ReactNode;
  children: ReactNode;
}) {
  const { t } = useLanguage();
  const returnFocus = useReturnFocus();
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) onClose();
      }}
    >
      <DialogContent closeLabel={t('common.close')} data-testid={testId} {...returnFocus}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {children}
      </DialogContent>
    </Dialog>
  );
}

/** One labelled figure of such a dialog (inside its `<dl>`). */
export function DetailRow({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="flex items-start justify-between gap-4 py-2">
      <dt className="text-sm text-slate-500">{label}</dt>
      <dd className="min-w-0 text-end text-sm font-medium text-slate-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
