/** The bpay word mark. A decorative square (the first letter, hidden from assistive tech) plus the name; the surrounding link carries the accessible name. */
export function Logo({ name, inverted = false }: { name: string; inverted?: boolean }) {
  return (
    <span className="flex items-center gap-2" dir="ltr">
      <span
        aria-hidden
        className="flex h-8 w-8 items-center justify-center rounded-lg bg-linear-to-br from-brand-500 to-brand-700 text-lg font-bold text-white shadow-sm"
      >
        b
      </span>
      <span className={inverted ? 'text-xl font-bold tracking-tight text-white' : 'text-xl font-bold tracking-tight text-slate-900'}>
        {name}
      </span>
    </span>
  );
}
