export function DisclaimersPage() { return <main>DisclaimersPage</main>; }
