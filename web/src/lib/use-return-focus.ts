import { useRef } from 'react';

/**
 * For a dialog opened without a Radix Trigger (from a row's button, by state): the element that had focus when it
 * opened gets it back when it closes, as a Trigger would. Spread the answer onto DialogContent.
 */
export function useReturnFocus() {
  const opener = useRef<HTMLElement | null>(null);
  return {
    onOpenAutoFocus: () => {
      // Still the element that opened the dialog: focus moves in after this.
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    },
    onCloseAutoFocus: (e: Event) => {
      if (opener.current?.isConnected) {
        e.preventDefault();
        opener.current.focus();
      }
      opener.current = null;
    },
  };
}
