import { Loader2 } from 'lucide-react';
import type { FormEvent, ReactNode } from 'react';
import { useT } from '../../i18n';
import { Button } from './button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from './dialog';

/** The dialog's open-change handler: a close asked for while `busy` is ignored; everything else passes through. */
export function closeUnlessBusy(busy: boolean, onOpenChange: (open: boolean) => void): (open: boolean) => void {
  return (next) => {
    if (!next && busy) return;
    onOpenChange(next);
  };
}

/**
 * A dialog with a title and a description over its body (usually a `DialogForm`, or what replaces the form once it
 * is done). While `busy` (a request in flight), Escape, the outside click and the close button do not close it.
 */
export function FormDialog({
  open,
  onOpenChange,
  title,
  description,
  testId,
  closeLabel,
  busy = false,
  dataAttributes,
  children,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: ReactNode;
  description: ReactNode;
  testId: string;
  /** The close button's name; the common 'Close' unless the feature has its own. */
  closeLabel?: string;
  busy?: boolean;
  /** data-* attributes for the dialog's content (a step the tests read, say). */
  dataAttributes?: Record<`data-${string}`, string>;
  children: ReactNode;
}) {
  const t = useT();
  return (
    <Dialog open={open} onOpenChange={closeUnlessBusy(busy, onOpenChange)}>
      <DialogContent closeLabel={closeLabel ?? t('common.close')} data-testid={testId} {...dataAttributes}>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {children}
      </DialogContent>
    </Dialog>
  );
}

export interface SubmitAction {
  label: string;
  /** Shown instead of `label` while pending. */
  pendingLabel?: string;
  /** A request is in flight: the button spins and is disabled. */
  pending?: boolean;
  /** Disabled for another reason (nothing to send yet, a limit reached). */
  disabled?: boolean;
  variant?: 'primary' | 'destructive';
  testId?: string;
}

export interface CancelAction {
  label: string;
  onClick(): void;
  disabled?: boolean;
  testId?: string;
}

/** A dialog's footer: Cancel and the submit button, stacked (submit on top) on a phone, side by side at the end from sm. */
export function FormActions({ submit, cancel, className }: { submit: SubmitAction; cancel: CancelAction; className?: string }) {
  const pending = !!submit.pending;
  return (
    <div className={className ? `flex flex-col-reverse gap-2 ${className} sm:flex-row sm:justify-end` : 'flex flex-col-reverse gap-2 sm:flex-row sm:justify-end'}>
      <Button variant="outline" onClick={cancel.onClick} disabled={cancel.disabled} data-testid={cancel.testId}>
        {cancel.label}
      </Button>
      <Button type="submit" variant={submit.variant} disabled={pending || !!submit.disabled} data-testid={submit.testId}>
        {pending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
        {pending && submit.pendingLabel ? submit.pendingLabel : submit.label}
      </Button>
    </div>
  );
}

/**
 * A dialog's form: the browser's own validation off (the form says what is wrong in the page's language), the
 * fields, then Cancel and submit. `onSubmit` runs without the page reloading.
 */
export function DialogForm({
  onSubmit,
  submit,
  cancel,
  label,
  className = 'space-y-4',
  actionsClassName,
  children,
}: {
  onSubmit(): void | Promise<void>;
  submit: SubmitAction;
  cancel: CancelAction;
  /** The form's accessible name, where the dialog holds more than the form. */
  label?: string;
  className?: string;
  actionsClassName?: string;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void onSubmit();
      }}
      noValidate
      className={className}
      aria-label={label}
    >
      {children}
      <FormActions submit={submit} cancel={cancel} className={actionsClassName} />
    </form>
  );
}
