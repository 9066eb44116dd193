import { Menu, X } from 'lucide-react';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { useHydrated } from '../../lib/use-hydrated';

/** A header's mobile menu: open state, and Escape closes it and gives focus back to its toggle. */
export function useMobileMenu() {
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    function onKey(e: KeyboardEvent) {
      if (e.key !== 'Escape') return;
      setOpen(false);
      toggleRef.current?.focus();
    }
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return { open, setOpen, toggleRef, close: () => setOpen(false) };
}

/** The header's menu button below `md`: a hamburger that becomes a cross, naming the menu it controls. */
export function MobileMenuToggle({
  open,
  onToggle,
  toggleRef,
  controls,
  label,
  testId,
}: {
  open: boolean;
  onToggle(): void;
  toggleRef: RefObject<HTMLButtonElement | null>;
  controls: string;
  label: string;
  testId?: string;
}) {
  // On a prerendered page a click before the page is live would do nothing and be lost.
  const hydrated = useHydrated();
  return (
    <button
      ref={toggleRef}
      disabled={!hydrated}
      type="button"
      data-testid={testId}
      className="inline-flex h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 md:hidden"
      aria-expanded={open}
      aria-controls={controls}
      aria-label={label}
      onClick={onToggle}
    >
      {open ? <X className="h-5 w-5" aria-hidden /> : <Menu className="h-5 w-5" aria-hidden />}
    </button>
  );
}
