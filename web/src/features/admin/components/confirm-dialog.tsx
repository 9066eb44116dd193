import { useRef, type ReactNode } from 'react';
import { Loader2 } from 'lucide-react';
import { Button } from '../../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../../../components/ui/dialog';
import { useT } from '../../../i18n';

/**
 * Asks before a change is sent (a role, a plan, a deletion). An alert dialog: focus moves into it (to Cancel for a
 * destructive change, so Enter does not confirm by accident; else to the confirm button), Escape and Cancel close it
 * without sending, and Radix puts focus back on what opened it. While `pending` both buttons stay put and Confirm
 * says it is working.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  destructive = false,
  pending = false,
  onConfirm,
  onCancel,
  testId,
  children,
}: {
  open: boolean;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  pending?: boolean;
  onConfirm(): void;
  onCancel(): void;
  testId?: string;
  /** More to decide before confirming (a choice), shown under the description. */
  children?: ReactNode;
}) {
  const t = useT();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  return (
    <Dialog open={open} onOpenChange={(o) => !o && !pending && onCancel()}>
      {open && (
        <DialogContent
          role="alertdialog"
          closeLabel={t('admin.close')}
          closeDisabled={pending}
          data-testid={testId}
          onOpenAutoFocus={(e) => {
            // Opened by a select or a button, not a Radix trigger: remember it, to hand focus back on close.
            returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            e.preventDefault();
            (destructive ? cancelRef : confirmRef).current?.focus();
          }}
          onCloseAutoFocus={(e) => {
            e.preventDefault();
            if (returnTo.current?.isConnected) returnTo.current.focus();
          }}
        >
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          {children}
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            {/* aria-disabled, not disabled, while sending: a disabled button would drop the keyboard focus. */}
            <Button ref={cancelRef} variant="outline" onClick={() => !pending && onCancel()} aria-disabled={pending} data-testid="confirm-cancel">
              {t('admin.cancel')}
            </Button>
            <Button
              ref={confirmRef}
              variant={destructive ? 'destructive' : 'primary'}
              onClick={() => !pending && onConfirm()}
              aria-disabled={pending}
              aria-busy={pending}
              data-testid="confirm-ok"
            >
              {pending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
              {confirmLabel}
            </Button>
          </div>
        </DialogContent>
      )}
    </Dialog>
  );
}
