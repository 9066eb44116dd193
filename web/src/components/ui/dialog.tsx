import * as DialogPrimitive from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { useRef, type ComponentProps, type ReactNode } from 'react';
import { cn } from '../../lib/cn';

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

export function DialogContent({
  className,
  children,
  closeLabel = 'Close',
  closeDisabled = false,
  closeDescribedBy,
  closeTestId,
  onEscapeKeyDown,
  onKeyDown,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & {
  closeLabel?: string;
  /**
   * Holds the dialog open (for example while a payment is in flight): the close button stays in place but is
   * visibly disabled (aria-disabled) and does nothing, and neither does Escape. Say why with `closeDescribedBy`.
   */
  closeDisabled?: boolean;
  closeDescribedBy?: string;
  closeTestId?: string;
}) {
  const closeRef = useRef<HTMLButtonElement>(null);
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-900/50" />
      <DialogPrimitive.Content
        className={cn(
          'fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl',
          className,
        )}
        onEscapeKeyDown={(e) => {
          if (closeDisabled) e.preventDefault();
          onEscapeKeyDown?.(e);
        }}
        // Radix hands Escape only to the topmost layer: a toast shown after the dialog opened (an error, say) is one,
        // and took the first Escape, leaving the dialog open (issue 25 6h). Any layer that acts on Escape (the dialog
        // itself, a select or menu inside it) prevents its default; a toast does not, so an Escape pressed inside
        // the dialog that arrives here unhandled closes it (and the toast, as before). F8 and swipes are untouched.
        onKeyDown={(e) => {
          onKeyDown?.(e);
          if (e.key !== 'Escape' || e.defaultPrevented || closeDisabled) return;
          onEscapeKeyDown?.(e.nativeEvent);
          if (e.nativeEvent.defaultPrevented) return;
          e.preventDefault();
          closeRef.current?.click();
        }}
        {...props}
      >
        {children}
        <DialogPrimitive.Close
          ref={closeRef}
          className="absolute end-4 top-4 rounded-sm text-slate-500 hover:text-slate-900 aria-disabled:cursor-not-allowed aria-disabled:text-slate-300 aria-disabled:hover:text-slate-300"
          aria-label={closeLabel}
          aria-disabled={closeDisabled || undefined}
          aria-describedby={closeDisabled ? closeDescribedBy : undefined}
          // Radix skips its own close when the click's default is prevented.
          onClick={(e) => {
            if (closeDisabled) e.preventDefault();
          }}
          data-testid={closeTestId}
        >
          <X className="h-4 w-4" aria-hidden />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogHeader({ children }: { children: ReactNode }) {
  return <div className="mb-4 flex flex-col gap-1.5 pe-6">{children}</div>;
}
export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn('text-lg font-semibold', className)} {...props} />;
}
export function DialogDescription({ className, ...props }: ComponentProps<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description className={cn('text-sm text-slate-500', className)} {...props} />;
}
