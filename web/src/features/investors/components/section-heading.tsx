/** The eyebrow, h2 and lead paragraph each investor section opens with (the landing page's look). */
export function SectionHeading({ id, eyebrow, title, subtitle }: { id: string; eyebrow: string; title: string; subtitle?: string }) {
  return (
    <div className="mx-auto max-w-2xl text-center">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-700">{eyebrow}</p>
      <h2 id={id} className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
        {title}
      </h2>
      {subtitle && <p className="mt-4 text-lg text-slate-600">{subtitle}</p>}
    </div>
  );
}

/** A section's frame. Pages alternate `shaded` sections so neighbours are told apart without doubled white space. */
export function sectionClass(shaded = false): string {
  return `scroll-mt-20 py-16 sm:py-20 ${shaded ? 'bg-slate-50' : 'bg-white'}`;
}
