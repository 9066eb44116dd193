/** Being built (issue 12). */
export function PaymentDemoPage() {
  return <main data-testid="PaymentDemoPage" />;
}
