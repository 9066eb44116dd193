/** Being built (issue 12). */
export function BannerCheckoutDemoPage() {
  return <main data-testid="BannerCheckoutDemoPage" />;
}
