/** Being built (issue 12). */
export function InvestorsArPage() {
  return <main data-testid="InvestorsArPage" />;
}
