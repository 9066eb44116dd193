// Filled in by the landing-page work.
export function LandingPage({ lang }: { lang: 'en' | 'ar' }) {
  return <main data-lang={lang}>bpay</main>;
}
