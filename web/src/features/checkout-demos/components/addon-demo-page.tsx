/** Being built (issue 12). */
export function AddonCheckoutDemoPage() {
  return <main data-testid="AddonCheckoutDemoPage" />;
}
