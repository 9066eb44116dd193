/** Being built (issue 12). */
export function InvestorsPage() {
  return <main data-testid="InvestorsPage" />;
}
